"""`TinyHarnessError`: the root of the error tree, and its stable `code`."""

from __future__ import annotations


class TinyHarnessError(Exception):
    """Root of every error raised on purpose by tiny-harness."""

    code: str = "tiny_harness_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

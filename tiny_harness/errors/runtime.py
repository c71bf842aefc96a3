"""Errors of the running server itself: configuration, the store, Temporal, the HTTP bind."""

from __future__ import annotations

from tiny_harness.errors.base import TinyHarnessError


class ConfigError(TinyHarnessError):
    """Raised at startup when configuration is missing, unknown or invalid.

    `variable` names the environment variable or TOML key at fault, so the operator can
    fix it without reading a traceback.
    """

    code = "config_error"

    def __init__(self, message: str, *, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable


class StoreError(TinyHarnessError):
    """Raised when the store cannot read or write a record."""

    code = "store_error"


class MissingPayloadError(StoreError):
    """Raised when a payload Temporal refers to is not in the store: it went with its task,
    or the process reading it is given another store than the one that wrote it."""

    code = "missing_payload"


class TemporalUnavailableError(TinyHarnessError):
    """Raised when the Temporal service cannot be reached, or the embedded one will not start."""

    code = "temporal_unavailable"


class HttpBindError(TinyHarnessError):
    """Raised when the HTTP server cannot listen on its address (the port is taken, say)."""

    code = "http_bind_failed"

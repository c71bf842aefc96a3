"""`Duration`: a `timedelta` setting that also reads a plain number as seconds.

Environment variables are text, and `TINY_HARNESS_RETRIES__HEARTBEAT_TIMEOUT=2` should mean
two seconds, as it reads. Anything else is parsed as pydantic parses a timedelta: ISO 8601
(`PT2S`, `P7D`) or `[-][DD ]HH:MM[:SS]`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator


def _seconds(value: object) -> object:
    if isinstance(value, str):
        try:
            return timedelta(seconds=float(value.strip()))
        except (ValueError, OverflowError):
            return value  # not a number: pydantic's own parsing reports the problem
    return value


Duration = Annotated[timedelta, BeforeValidator(_seconds)]
"""A timedelta field that also accepts "30" or "2.5" (seconds)."""

"""`LogFormatter`: every log line masked, as readable text or as one JSON object.

Whatever a record holds (its message, its arguments, an exception's text) is masked by the
Redactor after formatting, so a credential that reached a log call still never reaches the
log. The JSON form (`TINY_HARNESS_LOG_FORMAT=json`) carries, besides the time, level,
logger and message, the trace and span ids of the span current when the record was made
(none without tracing) and the fields a caller attached with `extra=`: `task_id`,
`correlation_id`, `operation`, `phase`, `outcome`.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Final, Literal

from opentelemetry import trace

from tiny_harness.harness.security import Redactor

TEXT_FORMAT: Final = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
FIELDS: Final = ("task_id", "correlation_id", "operation", "phase", "outcome")
"""The structured fields a log call may attach (`extra={"task_id": …}`)."""


class LogFormatter(logging.Formatter):
    """Formats a record as `TEXT_FORMAT` or as a JSON object, then masks it."""

    def __init__(self, redactor: Redactor, *, form: Literal["text", "json"] = "text") -> None:
        super().__init__(TEXT_FORMAT)
        self._redactor = redactor
        self._json = form == "json"

    def format(self, record: logging.LogRecord) -> str:
        """The record as one masked line (an exception's traceback included)."""
        line = self._as_json(record) if self._json else super().format(record)
        return self._redactor.text(line)

    def _as_json(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        span = trace.get_current_span().get_span_context()
        if span.is_valid:
            entry["trace_id"] = format(span.trace_id, "032x")
            entry["span_id"] = format(span.span_id, "016x")
        for name in FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)

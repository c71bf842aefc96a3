"""`Operations`: the harness's own work, beside model and tool calls, as spans and log records.

Model and tool calls have their GenAI spans (`spans.py`) and records (`operation_log.py`).
The rest of what a task does is of two kinds:

- work in an activity, which takes time: writing the task to the store
  (`persistence.write`), folding its context into a summary (`compaction.summarise`),
  choosing whom to ask (`help.decided`). `Operations.run` wraps it in a span, current
  while it runs (what it calls nests under it), and writes one record when it ends;
- moments in the workflow: a plan made, a step done, a question asked and answered, a
  sub-task spawned and ended. The workflow marks each as it happens
  (`workflows/milestones.py`) with a zero-length span and one record.

Each span is named after its operation (the hook point's operation name) and carries
`tiny_harness.task_id`, `tiny_harness.correlation_id`, `tiny_harness.operation`,
`tiny_harness.phase` and `tiny_harness.outcome`; each record carries the same five as
`extra` fields (`logs.FIELDS`), at INFO in every environment. Neither holds content, and
a failure is recorded by its error's type, never its message (which may quote content).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Final

from opentelemetry.trace import NoOpTracer, Span, SpanKind, Status, StatusCode, Tracer
from opentelemetry.util.types import AttributeValue

from tiny_harness.harness.hooks import Operation, Phase

logger = logging.getLogger(__name__)

PREFIX: Final = "tiny_harness."
"""What the record's fields are called as span attributes: `tiny_harness.task_id`, ..."""


def operation_fields(
    operation: Operation, phase: Phase, task_id: str, correlation_id: str
) -> dict[str, str]:
    """The record's fields of one operation, but its outcome (`logs.FIELDS`)."""
    return {
        "task_id": task_id,
        "correlation_id": correlation_id,
        "operation": str(operation),
        "phase": str(phase),
    }


def span_attributes(fields: Mapping[str, str], outcome: str) -> dict[str, AttributeValue]:
    """The span attributes of an operation with record fields `fields` and `outcome`."""
    attributes: dict[str, AttributeValue] = {PREFIX + k: v for k, v in fields.items()}
    attributes[PREFIX + "outcome"] = outcome
    return attributes


class OperationRun:
    """What a running operation tells its span and record: its outcome and details."""

    def __init__(self, span: Span) -> None:
        self.outcome = "ok"
        """What the operation came to; `error` (or `cancelled`) when its block raises."""
        self.detail = ""
        """A few words for the text log line, for example `3 records`; no content."""
        self._span = span

    def note(self, attributes: Mapping[str, AttributeValue]) -> None:
        """Add `attributes` (figures, names; no content) to the operation's span."""
        self._span.set_attributes(attributes)


class Operations:
    """Opens the spans of the harness's own operations on `tracer` (no-op when None)."""

    def __init__(self, tracer: Tracer | None = None) -> None:
        self._tracer = tracer or NoOpTracer()

    @contextmanager
    def run(
        self,
        operation: Operation,
        task_id: str,
        correlation_id: str,
        attributes: Mapping[str, AttributeValue] | None = None,
    ) -> Iterator[OperationRun]:
        """The block as `operation` of task `task_id`: one span, current while it runs,
        and one record when it ends, whether it returns or raises."""
        fields = operation_fields(operation, Phase.POST, task_id, correlation_id)
        opened = span_attributes(fields, "ok") | dict(attributes or {})
        with self._tracer.start_as_current_span(
            str(operation),
            kind=SpanKind.INTERNAL,
            attributes=opened,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            run = OperationRun(span)
            try:
                yield run
            except BaseException as error:
                cancelled = isinstance(error, asyncio.CancelledError)
                run.outcome = "cancelled" if cancelled else "error"
                span.set_attribute("error.type", type(error).__name__)
                span.set_status(Status(StatusCode.ERROR, type(error).__name__))
                raise
            finally:
                span.set_attribute(PREFIX + "outcome", run.outcome)
                _log(fields, run)


def _log(fields: Mapping[str, str], run: OperationRun) -> None:
    detail = f" {run.detail}" if run.detail else ""
    logger.info(
        "task %s: %s%s: %s",
        fields["task_id"],
        fields["operation"],
        detail,
        run.outcome,
        extra={**fields, "outcome": run.outcome},
    )

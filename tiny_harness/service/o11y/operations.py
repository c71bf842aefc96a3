"""`Operations`: the one way the harness opens a span, and `record`, the one way it writes a
log record of what it did.

Every operation a task goes through, in a process that serves or works, is an
`OperationRun`: one span and one record. `Operations.begin` starts it and `OperationRun.end`
finishes it; `Operations.run` is the same as a block, its span current while the block runs
(what it calls nests under it). Three kinds use it:

- a message given to this agent (`agent.invoked`, `agent_spans.invoke_agent`), around
  starting a task or delivering a reply;
- work in an activity, which takes time: writing the task to the store
  (`persistence.write`), folding its context into a summary (`compaction.summarise`),
  choosing whom to ask (`help.decided`);
- a model or a tool call (`llm.invoked`, `tool.invoked`), begun and ended from its hook
  points by `spans.SpanHooks`, with the GenAI names and attributes.

Moments in the workflow (a plan made, a step done, a question asked and answered, a
sub-task spawned and ended) are marked by `workflows/milestones.py`: the workflow may not
open a span itself (it replays), so its zero-length span is Temporal's `completed_span`; its
record is written by `record`, the same as here.

Each span is named after its operation unless told otherwise and carries
`tiny_harness.task_id`, `tiny_harness.correlation_id`, `tiny_harness.operation`,
`tiny_harness.phase` and `tiny_harness.outcome`; each record carries the same five as
`extra` fields (`logs.FIELDS`), at INFO in every environment, and reads

    task 5bc1…: persistence.write version 3, 2 records: stored

Neither holds content, and a failure is recorded by its error's type, never its message
(which may quote content).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Final

from opentelemetry.trace import NoOpTracer, Span, SpanKind, Status, StatusCode, Tracer, use_span
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


def record(
    log: logging.Logger | logging.LoggerAdapter[logging.Logger],
    fields: Mapping[str, str],
    outcome: str,
    detail: str = "",
) -> None:
    """Write the one record of an operation with `fields` that came to `outcome` on `log`
    (the workflow's logger in workflow code); `detail` is a few words, no content."""
    words = f" {detail}" if detail else ""
    log.info(
        "task %s: %s%s: %s",
        fields["task_id"],
        fields["operation"],
        words,
        outcome,
        extra={**fields, "outcome": outcome},
    )


class OperationRun:
    """One operation under way: its span, and what its record will say when it ends."""

    def __init__(self, span: Span, fields: Mapping[str, str]) -> None:
        self.span = span
        self.outcome = "ok"
        """What the operation came to; `error` (or `cancelled`) when its block raises."""
        self.detail = ""
        """A few words for the text log line, for example `3 records`; no content."""
        self._fields = fields
        self._ended = False

    def note(self, attributes: Mapping[str, AttributeValue]) -> None:
        """Add `attributes` (figures, names; no content) to the operation's span."""
        self.span.set_attributes(attributes)

    def fail(self, error_type: str, description: str) -> None:
        """Mark the span as an error of `error_type` (a type's name, never a message)."""
        self.span.set_attribute("error.type", error_type)
        self.span.set_status(Status(StatusCode.ERROR, description))

    def end(self) -> None:
        """End the span with the outcome and write the record; a second end does nothing."""
        if self._ended:
            return
        self._ended = True
        self.span.set_attribute(PREFIX + "outcome", self.outcome)
        self.span.end()
        record(logger, self._fields, self.outcome, self.detail)


class Operations:
    """Begins the harness's operations on `tracer` (no-op when None): see the module."""

    def __init__(self, tracer: Tracer | None = None) -> None:
        self._tracer = tracer or NoOpTracer()

    def begin(
        self,
        operation: Operation,
        task_id: str,
        correlation_id: str,
        attributes: Mapping[str, AttributeValue] | None = None,
        *,
        name: str | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
    ) -> OperationRun:
        """`operation` of task `task_id` begun: its span started (a child of the current
        one, not made current) and its record to come at `end`."""
        fields = operation_fields(operation, Phase.POST, task_id, correlation_id)
        span = self._tracer.start_span(
            name or str(operation),
            kind=kind,
            attributes=span_attributes(fields, "ok") | dict(attributes or {}),
            record_exception=False,
            set_status_on_exception=False,
        )
        return OperationRun(span, fields)

    @contextmanager
    def run(
        self,
        operation: Operation,
        task_id: str,
        correlation_id: str,
        attributes: Mapping[str, AttributeValue] | None = None,
        *,
        name: str | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
    ) -> Iterator[OperationRun]:
        """The block as `operation` (`begin`), its span current while it runs, ended when
        it returns or raises."""
        run = self.begin(operation, task_id, correlation_id, attributes, name=name, kind=kind)
        with use_span(
            run.span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        ):
            try:
                yield run
            except BaseException as error:
                cancelled = isinstance(error, asyncio.CancelledError)
                run.outcome = "cancelled" if cancelled else "error"
                run.fail(type(error).__name__, type(error).__name__)
                raise
            finally:
                run.end()

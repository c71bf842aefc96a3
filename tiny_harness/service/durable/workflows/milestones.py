"""`Milestones`: the moments of a task the workflow itself makes, marked as they happen.

Workflow-side code, deterministic. A plan made (`plan.created`), a step done
(`step.finished`), a question asked and answered (`help.requested`, phases pre and post),
a sub-task spawned and ended (`subtask.spawned`, pre and post): each is one log record
(`operations.record` on `workflow.logger`, the fields and words of every other operation)
and, when the task is traced, one zero-length span. The workflow may not open a span itself
(it replays): the span is Temporal's `completed_span`, made by the tracing interceptor in
the worker and under the workflow's trace. Neither is made again
when the workflow replays, so each moment is marked once.
"""

from __future__ import annotations

from collections.abc import Mapping

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from opentelemetry import trace
    from opentelemetry.util.types import AttributeValue

    from tiny_harness.harness.hooks import Operation, Phase
    from tiny_harness.service.o11y.operations import operation_fields, record, span_attributes


class Milestones:
    """Marks the moments of the task `task_id`."""

    def __init__(self, task_id: str) -> None:
        self._task_id = task_id

    def asked(self, call_id: str) -> None:
        """help.requested, pre: the task asks a question (its call's id)."""
        self.mark(
            Operation.HELP_REQUESTED, call_id, outcome="asked", detail="a question", phase=Phase.PRE
        )

    def answered(self, call_id: str) -> None:
        """help.requested, post: the question (its call's id) was answered."""
        self.mark(Operation.HELP_REQUESTED, call_id, outcome="answered", detail="reply")

    def mark(
        self,
        operation: Operation,
        correlation_id: str,
        *,
        outcome: str,
        detail: str,
        phase: Phase = Phase.POST,
        attributes: Mapping[str, AttributeValue] | None = None,
    ) -> None:
        """Mark `operation` (`detail`: a few words for the text log, no content)."""
        fields = operation_fields(operation, phase, self._task_id, correlation_id)
        record(workflow.logger, fields, outcome, detail)
        # Without the tracing interceptor the workflow has no span at all: nothing to join.
        if trace.get_current_span() is trace.INVALID_SPAN:
            return
        with workflow.unsafe.imports_passed_through():
            # Loaded only when traced: it loads the OpenTelemetry SDK.
            from temporalio.contrib.opentelemetry.workflow import completed_span
        completed_span(
            str(operation), attributes=span_attributes(fields, outcome) | dict(attributes or {})
        )

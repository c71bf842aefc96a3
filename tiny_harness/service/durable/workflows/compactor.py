"""`Compactor`: the workflow side of compaction, between assembling a turn and calling the model.

Workflow-side code, deterministic. When `prepare_turn` reports that compaction.trigger
fired, the compactor runs the `compact` activity under the workflow's retry policy and
returns what it folded, which the workflow applies (the compacted conversation, the record
kept on the task and written to the store). A compaction that fails after its retries, or
that the keep policy declines, returns nothing: the turn goes on uncompacted and nothing is
lost. A hook's veto is not such a failure: it fails the task like any veto.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from tiny_harness.harness.context.compaction import CompactionRecord
    from tiny_harness.harness.models.llm import UserItem
    from tiny_harness.service.durable.activities.task import HOOK_ABORT_ERROR, TaskActivities
    from tiny_harness.service.durable.payloads import (
        AssembleInput,
        CompactInput,
        CompactOutcome,
        TaskStart,
    )
    from tiny_harness.service.durable.workflows.attempts import Attempts

_TIMEOUT = timedelta(minutes=5)


@dataclass(frozen=True)
class Compacted:
    """What a compaction folded: the summary that opens the conversation from now on, the
    numbers of the stored items it keeps after it, and its record."""

    summary: UserItem
    kept: tuple[int, ...]
    record: CompactionRecord


class Compactor:
    """Compacts one run's conversation on request."""

    def __init__(self, start: TaskStart, attempts: Attempts) -> None:
        self._start = start
        self._attempts = attempts

    async def compact(self, context: AssembleInput) -> Compacted | None:
        """Compact the conversation `context` was assembled from: what was folded, or
        None when nothing was."""

        def attempt_once(attempt: int) -> Awaitable[CompactOutcome]:
            return workflow.execute_activity_method(
                TaskActivities.compact,
                CompactInput(context=context, context_id=self._start.context_id, attempt=attempt),
                start_to_close_timeout=_TIMEOUT,
                heartbeat_timeout=self._start.retries.heartbeat_timeout,
                retry_policy=RetryPolicy(maximum_attempts=1),
            )

        policy = self._start.retries.for_activity("compact")
        try:
            outcome = await self._attempts.run("compact", policy, attempt_once)
        except ActivityError as error:
            cause = error.cause
            if isinstance(cause, ApplicationError) and cause.type == HOOK_ABORT_ERROR:
                raise
            workflow.logger.warning(
                "task %s: compaction failed, the turn goes on uncompacted: %s",
                self._start.task_id,
                cause or error,
            )
            return None
        if outcome.record is None or outcome.summary is None:
            workflow.logger.info(
                "task %s: nothing compacted (%s)", self._start.task_id, outcome.skipped
            )
            return None
        return Compacted(summary=outcome.summary, kept=outcome.kept, record=outcome.record)

"""`HeartbeatWorkflow`: one tick of the heartbeat (R16), started by its schedule.

    HeartbeatWorkflow ─► poll_channels     pull channels ─► replies to their tasks
                      ─► monitor_snapshot  visibility ─► heartbeat.tick.pre hooks
                      ─► retention_sweep   store rows past their TTL
                      ─► MonitorSnapshot   (the run's result, with the poll's and
                                            the sweep's counts)

A failed tick is one failed workflow run (no retry policy on the workflow; its activities
retry a bounded number of times) and the schedule fires the next on time. The channels are
polled first, so the snapshot of the same tick already shows what their replies did to the
tasks; a veto of the heartbeat.tick.pre hooks therefore fails the tick (and stops its sweep)
after its deliveries went out.

The workflow does no I/O: the tick's time is `workflow.now()`, passed to the activities.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from tiny_harness.harness.runtime.monitor import MonitorSnapshot
    from tiny_harness.service.heartbeat.activities import (
        DEFAULT_LIST_LIMIT,
        HeartbeatActivities,
        PollInput,
        SnapshotInput,
        SweepInput,
    )

TICK_TIMEOUT = timedelta(minutes=5)
"""A tick still running after this long (no worker, say) times out, so SKIP lets the next one
start."""

_ACTIVITY_TIMEOUT = timedelta(seconds=30)
_ACTIVITY_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=10),
    maximum_attempts=3,
)


class HeartbeatStart(BaseModel, frozen=True):
    """The input every scheduled tick starts with."""

    limit: int = Field(default=DEFAULT_LIST_LIMIT, ge=1, le=1000)
    """How many open tasks the snapshot lists."""


@workflow.defn
class HeartbeatWorkflow:
    """One tick: poll the pull channels, snapshot (its hooks may veto the tick), then sweep;
    returns the snapshot with what the poll and the sweep did. Fails, without retry, when
    any activity gives up (a channel's own failure is counted, never fatal)."""

    @workflow.run
    async def run(self, start: HeartbeatStart) -> MonitorSnapshot:
        """Run the tick's activities in order; the snapshot is the result."""
        now = workflow.now()
        try:
            polled = await workflow.execute_activity_method(
                HeartbeatActivities.poll_channels,
                PollInput(),
                start_to_close_timeout=_ACTIVITY_TIMEOUT,
                retry_policy=_ACTIVITY_RETRY,
            )
            snapshot = await workflow.execute_activity_method(
                HeartbeatActivities.monitor_snapshot,
                SnapshotInput(taken_at=now, limit=start.limit),
                start_to_close_timeout=_ACTIVITY_TIMEOUT,
                retry_policy=_ACTIVITY_RETRY,
            )
            swept = await workflow.execute_activity_method(
                HeartbeatActivities.retention_sweep,
                SweepInput(now=now),
                start_to_close_timeout=_ACTIVITY_TIMEOUT,
                retry_policy=_ACTIVITY_RETRY,
            )
        except ActivityError as error:
            cause = error.cause
            reason = cause.message if isinstance(cause, ApplicationError) else str(cause or error)
            raise ApplicationError(
                f"heartbeat tick failed: {reason}", type="HeartbeatTickFailed", non_retryable=True
            ) from error
        return snapshot.model_copy(update={"swept": swept, "channels": polled})

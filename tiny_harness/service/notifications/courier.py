"""`PushCourierWorkflow`: one per push config, delivering its task's events in order.

    handler: config stored ──► start courier <task>.push.<config> (cursor = next event)
    courier: deliver_pushes slice ──► slice ──► … until the task's final event is handled
             (continue-as-new every `SLICES_PER_RUN` slices, carrying cursor and counts)

The courier is separate from the task's workflow, so a slow or dead receiver costs the
task nothing: the task reaches its final state at its own pace, and its history holds no
delivery events. Each slice is a heartbeating activity that follows the task's log and
posts each event; Temporal retries a slice whose worker died, and the slice resumes from
the cursor it last heartbeated. Delivery is at least once: an event posted just before a
worker dies may be posted again.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from tiny_harness.service.notifications.payloads import (
        CourierReport,
        CourierStart,
        DeliveryInput,
        DeliveryProgress,
    )
    from tiny_harness.service.notifications.sender import SLICE_SECONDS, PushActivities

SLICES_PER_RUN: Final = 50
"""Slices one run schedules before it continues as new (each costs a handful of events)."""

_SLICE_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=60),
)
"""A slice fails only when its worker dies or the store cannot be read: retry without end,
as the task's log and the receiver are both still there."""


def courier_id(task_id: str, config_id: str) -> str:
    """The workflow id of the courier of one push config."""
    return f"{task_id}.push.{config_id}"


@workflow.defn
class PushCourierWorkflow:
    """Delivers one task's events to one push receiver, in order, until the task is final.

    Cancelling the courier (the config was deleted) stops delivery at once.
    """

    @workflow.run
    async def run(self, start: CourierStart) -> CourierReport:
        """Run delivery slices until the task's final event is handled."""
        state = start
        for _ in range(SLICES_PER_RUN):
            progress: DeliveryProgress = await workflow.execute_activity_method(
                PushActivities.deliver_pushes,
                DeliveryInput(
                    task_id=state.task_id,
                    config_id=state.config_id,
                    cursor=state.cursor,
                    window=state.window,
                    failing_since=state.failing_since,
                ),
                start_to_close_timeout=timedelta(seconds=SLICE_SECONDS * 2),
                heartbeat_timeout=timedelta(seconds=30),
                retry_policy=_SLICE_RETRY,
            )
            state = state.model_copy(
                update={
                    "cursor": progress.cursor,
                    "failing_since": progress.failing_since,
                    "delivered": state.delivered + progress.delivered,
                    "dropped": state.dropped + progress.dropped,
                }
            )
            if progress.finished:
                return CourierReport(delivered=state.delivered, dropped=state.dropped)
        workflow.continue_as_new(state)

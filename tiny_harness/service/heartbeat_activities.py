"""The heartbeat's activities: everything a tick does that touches the world.

    monitor_snapshot  visibility (running TaskWorkflows of the task queue) -> MonitorSnapshot,
                      through the heartbeat.tick.pre hooks
    retention_sweep   store rows past their time-to-live -> how many went, by kind

Each takes one typed input model; the times in them come from the workflow (`workflow.now()`),
so a tick's "now" is in its history. A hook's veto (`HookAbort`) fails `monitor_snapshot`
without retry (`ApplicationError` type "HookAbort"), and with it the tick.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.client import Client
from temporalio.exceptions import ApplicationError

from tiny_harness.harness.core.harness import Harness
from tiny_harness.harness.core.monitor import MonitorSnapshot, OpenTask
from tiny_harness.harness.hooks import HeartbeatTickPre, HookAbort, HookPoint, Operation, Phase
from tiny_harness.harness.persistence.retention import RetentionConfig, sweep
from tiny_harness.service.durable.activities import HOOK_ABORT_ERROR
from tiny_harness.service.durable.workflow import TaskWorkflow

DEFAULT_LIST_LIMIT = 50
"""How many open tasks a snapshot lists by default (all of them are counted)."""

_TICK_PRE = HookPoint(operation=Operation.HEARTBEAT_TICK, phase=Phase.PRE)


class SnapshotInput(BaseModel, frozen=True):
    """Input of `monitor_snapshot`: when the tick happened, how many open tasks to list."""

    taken_at: datetime
    limit: int = Field(default=DEFAULT_LIST_LIMIT, ge=1, le=1000)


class SweepInput(BaseModel, frozen=True):
    """Input of `retention_sweep`: the moment the time-to-lives are measured against."""

    now: datetime


def open_tasks_query(task_queue: str) -> str:
    """The visibility query for the running task workflows of `task_queue`."""
    return (
        f'WorkflowType="{TaskWorkflow.__name__}" AND ExecutionStatus="Running" '
        f"AND TaskQueue={_quoted(task_queue)}"
    )


def _quoted(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


class HeartbeatActivities:
    """The activity bodies of `HeartbeatWorkflow`, bound to one worker: the Temporal client
    (for visibility), its `Harness` (hooks, store), the retention config and the task queue
    whose tasks it watches."""

    def __init__(
        self, client: Client, harness: Harness, *, task_queue: str, retention: RetentionConfig
    ) -> None:
        self._client = client
        self._harness = harness
        self._task_queue = task_queue
        self._retention = retention

    @activity.defn(name="monitor_snapshot")
    async def monitor_snapshot(self, data: SnapshotInput) -> MonitorSnapshot:
        """Count the running task workflows, list up to `limit` of them, then run the
        heartbeat.tick.pre hooks over the snapshot; the snapshot they end with."""
        query = open_tasks_query(self._task_queue)
        count = await self._client.count_workflows(query)
        listed = tuple(
            [
                OpenTask(task_id=execution.id, started_at=execution.start_time)
                async for execution in self._client.list_workflows(query, limit=data.limit)
            ]
        )
        # Count and list are two visibility reads: never report fewer than were listed.
        snapshot = MonitorSnapshot(
            taken_at=data.taken_at, open_tasks=max(count.count, len(listed)), listed=listed
        )
        info = activity.info()
        ctx = HeartbeatTickPre(
            task_id=info.workflow_id, correlation_id=info.workflow_run_id, snapshot=snapshot
        )
        try:
            ctx = await self._harness.hooks.run(_TICK_PRE, ctx)
        except HookAbort as error:
            raise ApplicationError(
                f"refused by a hook: {error.reason.message}",
                error.reason.code,
                type=HOOK_ABORT_ERROR,
                non_retryable=True,
            ) from error
        return ctx.snapshot

    @activity.defn(name="retention_sweep")
    async def retention_sweep(self, data: SweepInput) -> dict[str, int]:
        """Delete every store record past its time-to-live at `now`; how many went, by kind."""
        store = await self._harness.store()
        swept = await sweep(store, self._retention, data.now)
        return {str(kind): count for kind, count in swept.items()}

    def all(self) -> list[Callable[..., Awaitable[object]]]:
        """Every heartbeat activity, for the worker."""
        return [self.monitor_snapshot, self.retention_sweep]

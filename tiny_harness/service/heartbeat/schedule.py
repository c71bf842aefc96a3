"""The heartbeat's schedule and its reader: the client side of the heartbeat (R16).

    schedule tiny-harness-heartbeat (every `interval`, overlap SKIP) ─► HeartbeatWorkflow
    GET /_monitor ─► HeartbeatMonitor ─► the schedule's recent runs ─► newest completed result

A schedule rather than a process loop: it outlives any one server process, is visible in
Temporal, and every process reads the same ticks.
"""

from __future__ import annotations

import dataclasses
import logging
from datetime import timedelta

from pydantic import BaseModel
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionExecutionStartWorkflow,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleHandle,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleUpdate,
    ScheduleUpdateInput,
    WorkflowExecutionStatus,
)
from temporalio.exceptions import TemporalError
from temporalio.service import RPCError, RPCStatusCode

from tiny_harness.config import HeartbeatConfig
from tiny_harness.harness.runtime.monitor import MonitorSnapshot
from tiny_harness.service.heartbeat.activities import DEFAULT_LIST_LIMIT
from tiny_harness.service.heartbeat.workflow import TICK_TIMEOUT, HeartbeatStart, HeartbeatWorkflow

logger = logging.getLogger(__name__)

_MIN_CATCHUP_WINDOW = timedelta(seconds=10)
"""The shortest catch-up window Temporal accepts."""
_READ_TIMEOUT = timedelta(seconds=5)
"""How long `/_monitor` waits for each Temporal read before saying Temporal did not answer."""


def heartbeat_schedule(
    *, task_queue: str, config: HeartbeatConfig, limit: int = DEFAULT_LIST_LIMIT
) -> Schedule:
    """The schedule `ensure_heartbeat_schedule` keeps: a tick every `config.interval`."""
    return Schedule(
        action=ScheduleActionStartWorkflow(
            HeartbeatWorkflow.run,
            HeartbeatStart(limit=limit),
            # Temporal appends the fire time to this, so every tick has its own id.
            id=config.schedule_id,
            task_queue=task_queue,
            # No retry_policy: a failed tick is one failed run; the schedule goes on.
            execution_timeout=TICK_TIMEOUT,
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=config.interval)]),
        policy=SchedulePolicy(
            overlap=ScheduleOverlapPolicy.SKIP,
            # After an outage, at most the one tick missed most recently runs.
            catchup_window=max(config.interval, _MIN_CATCHUP_WINDOW),
        ),
    )


async def ensure_heartbeat_schedule(
    client: Client, *, task_queue: str, config: HeartbeatConfig, limit: int = DEFAULT_LIST_LIMIT
) -> ScheduleHandle:
    """Create the heartbeat schedule, or bring an existing one up to date (its spec, action
    and policy; a pause an operator set is kept). Safe to call on every start."""
    schedule = heartbeat_schedule(task_queue=task_queue, config=config, limit=limit)
    try:
        return await client.create_schedule(config.schedule_id, schedule)
    except ScheduleAlreadyRunningError:
        pass
    handle = client.get_schedule_handle(config.schedule_id)

    def update(current: ScheduleUpdateInput) -> ScheduleUpdate:
        kept = current.description.schedule
        return ScheduleUpdate(
            schedule=dataclasses.replace(
                kept, action=schedule.action, spec=schedule.spec, policy=schedule.policy
            )
        )

    await handle.update(update)
    return handle


class NoSnapshot(BaseModel, frozen=True):
    """Why `HeartbeatMonitor.latest` has no snapshot to show."""

    reason: str


class HeartbeatMonitor:
    """Reads the newest completed tick from Temporal, so any process can serve it: the
    schedule's recent actions name the runs it started; the newest that completed wins."""

    def __init__(self, client: Client, *, schedule_id: str) -> None:
        self._client = client
        self.schedule_id = schedule_id

    async def latest(self) -> MonitorSnapshot | NoSnapshot:
        """The snapshot of the newest completed tick, or why there is none. Never raises for
        what Temporal answers (or fails to answer)."""
        schedule = self._client.get_schedule_handle(self.schedule_id)
        try:
            description = await schedule.describe(rpc_timeout=_READ_TIMEOUT)
        except TemporalError as error:
            if isinstance(error, RPCError) and error.status == RPCStatusCode.NOT_FOUND:
                text = f"the heartbeat schedule {self.schedule_id} does not exist"
                return NoSnapshot(reason=text)
            logger.warning("monitor: describing schedule %s failed: %s", self.schedule_id, error)
            return NoSnapshot(reason=f"Temporal did not describe the heartbeat schedule: {error}")
        recent = sorted(description.info.recent_actions, key=lambda r: r.started_at, reverse=True)
        statuses: list[str] = []
        for result in recent:
            action = result.action
            if not isinstance(action, ScheduleActionExecutionStartWorkflow):
                continue
            found = await self._completed(action)
            if isinstance(found, MonitorSnapshot):
                return found
            statuses.append(found)
        if not statuses:
            every = ", ".join(_seconds(i.every) for i in description.schedule.spec.intervals)
            return NoSnapshot(
                reason=f"no heartbeat tick has run yet (schedule {self.schedule_id}, every {every})"
            )
        return NoSnapshot(
            reason=f"none of the {len(statuses)} most recent heartbeat ticks completed "
            f"(newest: {statuses[0]})"
        )

    async def _completed(
        self, action: ScheduleActionExecutionStartWorkflow
    ) -> MonitorSnapshot | str:
        """The run's snapshot if it completed, else its status (in words)."""
        handle = self._client.get_workflow_handle(
            action.workflow_id,
            run_id=action.first_execution_run_id,
            result_type=MonitorSnapshot,
        )
        try:
            status = (await handle.describe(rpc_timeout=_READ_TIMEOUT)).status
            if status != WorkflowExecutionStatus.COMPLETED:
                return status.name.lower() if status is not None else "unknown"
            snapshot: MonitorSnapshot = await handle.result(
                follow_runs=False, rpc_timeout=_READ_TIMEOUT
            )
            return snapshot
        except (TemporalError, ValueError) as error:
            # Gone (history retention), or unreadable: the next older run may still answer.
            logger.warning("monitor: heartbeat run %s unreadable: %s", action.workflow_id, error)
            return "unreadable"


def _seconds(interval: timedelta) -> str:
    return f"{interval.total_seconds():g}s"

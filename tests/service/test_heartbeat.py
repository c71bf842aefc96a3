"""The heartbeat schedule on the shared Temporal dev server: ticks, hooks, retention, /_monitor.

Every test has its own task queue (from `running_harness`) and its own schedule id, and
deletes its schedule when it ends. Waiting is done by polling against a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from a2a.types import Task, TaskState, TaskStatus
from temporalio.client import (
    Client,
    ScheduleActionExecutionStartWorkflow,
    ScheduleActionStartWorkflow,
    ScheduleOverlapPolicy,
    WorkflowExecutionStatus,
    WorkflowFailureError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from tests.support import RunningHarness, collect, running_harness, send_request, states
from tiny_harness.config import HeartbeatConfig
from tiny_harness.harness.hooks import AbortReason, HookAbort, HookContext, HookPoint
from tiny_harness.harness.persistence.store import TaskRecord
from tiny_harness.harness.runtime.monitor import MonitorSnapshot
from tiny_harness.service.heartbeat.schedule import HeartbeatMonitor, ensure_heartbeat_schedule
from tiny_harness.service.heartbeat.workflow import TICK_TIMEOUT

ASK = """
turns:
  - text: "Let me check."
    tool_calls: [{name: ask_participant, arguments: {question: "Which size?", options: [S, M]}}]
  - text: "Size noted."
"""
IDLE = "turns:\n  - text: idle\n"
DEADLINE_SECONDS = 15
LONG_AGO = datetime(2020, 1, 1, tzinfo=UTC)

type NewConfig = Callable[[timedelta], HeartbeatConfig]


@pytest.fixture
async def heartbeat_config(temporal_client: Client) -> AsyncIterator[NewConfig]:
    """Makes heartbeat configs with unique schedule ids; deletes those schedules at the end."""
    made: list[str] = []

    def new(interval: timedelta) -> HeartbeatConfig:
        config = HeartbeatConfig(interval=interval, schedule_id=f"heartbeat-{uuid.uuid4()}")
        made.append(config.schedule_id)
        return config

    yield new
    for schedule_id in made:
        with contextlib.suppress(RPCError):  # never created by the test
            await temporal_client.get_schedule_handle(schedule_id).delete()


async def eventually[T](probe: Callable[[], Awaitable[T | None]], what: str) -> T:
    """`probe()` until it answers something other than None, or fail at the deadline."""
    try:
        async with asyncio.timeout(DEADLINE_SECONDS):
            while True:
                found = await probe()
                if found is not None:
                    return found
                await asyncio.sleep(0.2)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


async def ticks(
    temporal: Client, schedule_id: str
) -> list[tuple[datetime, str, WorkflowExecutionStatus | None]]:
    """(scheduled at, workflow id, status) of the schedule's recent runs, oldest first."""
    description = await temporal.get_schedule_handle(schedule_id).describe()
    out: list[tuple[datetime, str, WorkflowExecutionStatus | None]] = []
    for result in sorted(description.info.recent_actions, key=lambda r: r.scheduled_at):
        action = result.action
        assert isinstance(action, ScheduleActionExecutionStartWorkflow)
        handle = temporal.get_workflow_handle(action.workflow_id)
        out.append((result.scheduled_at, action.workflow_id, (await handle.describe()).status))
    return out


class AbortTicks:
    """Vetoes every heartbeat tick."""

    name = "abort-ticks"
    priority = 100
    points = frozenset({HookPoint.parse("heartbeat.tick.pre")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        raise HookAbort(AbortReason(code="maintenance", message="no ticks during maintenance"))


async def test_monitor_lists_a_task_waiting_for_input(
    temporal_client: Client, tmp_path: Path, heartbeat_config: NewConfig
) -> None:
    config = heartbeat_config(timedelta(seconds=1))
    async with running_harness(temporal_client, tmp_path, ASK, heartbeat=config) as harness:
        events = await collect((await harness.client()).send_message(send_request("shirt")))
        assert states(events)[-1] == "TASK_STATE_INPUT_REQUIRED"
        task_id = events[0].task.id
        await ensure_heartbeat_schedule(
            temporal_client, task_queue=harness.task_queue, config=config
        )

        async def listed() -> dict[str, object] | None:
            response = await harness.http.get(f"{harness.url}/_monitor")
            if response.status_code != 200:
                assert response.status_code == 503, response.text
                return None
            body: dict[str, object] = response.json()
            listed = body["listed"]
            assert isinstance(listed, list)
            return body if any(t["task_id"] == task_id for t in listed) else None

        body = await eventually(listed, "the waiting task on /_monitor")
    open_tasks = body["open_tasks"]
    assert isinstance(open_tasks, int)
    assert open_tasks >= 1
    snapshot = MonitorSnapshot.model_validate(body)
    started = next(t.started_at for t in snapshot.listed if t.task_id == task_id)
    assert started is not None


async def test_an_aborted_tick_fails_its_run_and_the_schedule_goes_on(
    temporal_client: Client, tmp_path: Path, heartbeat_config: NewConfig
) -> None:
    config = heartbeat_config(timedelta(seconds=1))
    async with running_harness(temporal_client, tmp_path, IDLE, heartbeat=config) as harness:
        harness.harness.hooks.register(AbortTicks())
        await ensure_heartbeat_schedule(
            temporal_client, task_queue=harness.task_queue, config=config
        )

        async def failed() -> tuple[datetime, str] | None:
            runs = await ticks(temporal_client, config.schedule_id)
            return next(
                ((at, wf) for at, wf, s in runs if s == WorkflowExecutionStatus.FAILED), None
            )

        failed_at, failed_id = await eventually(failed, "a failed heartbeat run")
        with pytest.raises(WorkflowFailureError) as raised:
            await temporal_client.get_workflow_handle(failed_id).result()
        cause = raised.value.cause
        assert isinstance(cause, ApplicationError)
        assert cause.message == (
            "heartbeat tick failed: refused by a hook: no ticks during maintenance"
        )

        harness.harness.hooks.unregister("abort-ticks")

        async def completed_later() -> str | None:
            runs = await ticks(temporal_client, config.schedule_id)
            return next(
                (
                    wf
                    for at, wf, s in runs
                    if s == WorkflowExecutionStatus.COMPLETED and at > failed_at
                ),
                None,
            )

        await eventually(completed_later, "a completed run after the failed one")


async def test_a_tick_sweeps_expired_records_and_reports_them(
    temporal_client: Client, tmp_path: Path, heartbeat_config: NewConfig
) -> None:
    # A long interval and one manual trigger: exactly one tick, so its snapshot is the newest.
    config = heartbeat_config(timedelta(hours=1))
    async with running_harness(temporal_client, tmp_path, IDLE, heartbeat=config) as harness:
        await put_old_task(harness, "finished-long-ago", TaskState.TASK_STATE_COMPLETED)
        await put_old_task(harness, "working-since-long-ago", TaskState.TASK_STATE_WORKING)
        schedule = await ensure_heartbeat_schedule(
            temporal_client, task_queue=harness.task_queue, config=config
        )
        await schedule.trigger()
        monitor = HeartbeatMonitor(temporal_client, schedule_id=config.schedule_id)

        async def snapshot() -> MonitorSnapshot | None:
            reading = await monitor.latest()
            return reading if isinstance(reading, MonitorSnapshot) else None

        taken = await eventually(snapshot, "the triggered tick")
        assert taken.swept["task"] == 1
        assert await harness.store.get_task("finished-long-ago") is None
        assert await harness.store.get_task("working-since-long-ago") is not None


async def put_old_task(harness: RunningHarness, task_id: str, state: TaskState) -> None:
    task = Task(id=task_id, context_id=f"ctx-{task_id}", status=TaskStatus(state=state))
    await harness.store.put_task(TaskRecord(task=task, version=1, updated_at=LONG_AGO))


async def test_ensuring_the_schedule_twice_updates_it_in_place(
    temporal_client: Client, heartbeat_config: NewConfig
) -> None:
    first = heartbeat_config(timedelta(hours=1))
    second = first.model_copy(update={"interval": timedelta(hours=2)})
    handle = await ensure_heartbeat_schedule(temporal_client, task_queue="q-1", config=first)
    await handle.pause(note="paused by an operator")
    again = await ensure_heartbeat_schedule(temporal_client, task_queue="q-2", config=second)

    assert again.id == handle.id == first.schedule_id
    described = (await again.describe()).schedule
    assert [i.every for i in described.spec.intervals] == [timedelta(hours=2)]
    assert described.policy.overlap == ScheduleOverlapPolicy.SKIP
    assert described.state.paused, "an operator's pause survives the update"
    action = described.action
    assert isinstance(action, ScheduleActionStartWorkflow)
    assert action.workflow == "HeartbeatWorkflow"
    assert action.task_queue == "q-2"
    assert action.retry_policy is None, "a failed tick must not be retried"
    assert action.execution_timeout == TICK_TIMEOUT


async def test_monitor_answers_503_before_the_first_tick(
    temporal_client: Client, tmp_path: Path, heartbeat_config: NewConfig
) -> None:
    config = heartbeat_config(timedelta(hours=1))
    async with running_harness(temporal_client, tmp_path, IDLE, heartbeat=config) as harness:
        missing = await harness.http.get(f"{harness.url}/_monitor")
        assert missing.status_code == 503
        assert "does not exist" in missing.json()["error"]["message"]

        await ensure_heartbeat_schedule(
            temporal_client, task_queue=harness.task_queue, config=config
        )
        early = await harness.http.get(f"{harness.url}/_monitor")
    assert early.status_code == 503
    assert early.json()["error"] == {
        "code": 503,
        "status": "UNAVAILABLE",
        "message": f"no heartbeat tick has run yet (schedule {config.schedule_id}, every 3600s)",
    }


async def test_monitor_answers_503_when_the_heartbeat_is_disabled(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, IDLE) as harness:
        response = await harness.http.get(f"{harness.url}/_monitor")
    assert response.status_code == 503
    assert "heartbeat is disabled" in response.json()["error"]["message"]

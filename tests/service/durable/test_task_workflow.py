"""TaskWorkflow behaviour on a real Temporal dev server: cancel, idempotent inbox, rollover."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest
from a2a.client import Client as A2AClient
from a2a.helpers import get_message_text
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskState,
)
from temporalio.client import Client, WorkflowExecutionStatus

from tests.support import (
    ENDLESS_PLANS,
    RunningHarness,
    collect,
    first_event,
    llm_requests,
    running_harness,
    send_request,
    states,
    stored_log,
    user_message,
)
from tiny_harness.errors import FinalTaskError
from tiny_harness.harness.hooks import HookContext, HookPoint
from tiny_harness.harness.persistence.store import TaskQuery

SLOW = "turns:\n  - text: too late\n    delay_seconds: 30\n"
ASK = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Go on?"}}]
  - text: finished
"""


async def _first_events(client, request, until: str):  # type: ignore[no-untyped-def]
    events = []
    async for event in client.send_message(request):
        events.append(event)
        if states(events) and states(events)[-1] == until:
            break
    return events


async def test_cancel_mid_llm_call_moves_task_to_canceled_and_closes_workflow(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, SLOW) as harness:
        client = await harness.client()
        events = await _first_events(client, send_request("take your time"), "TASK_STATE_WORKING")
        task_id = events[0].task.id
        canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED
        handle = temporal_client.get_workflow_handle(task_id)
        await asyncio.wait_for(handle.result(), timeout=20)
        assert (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED
        stored = await harness.store.get_task(task_id)
        assert stored is not None
        assert stored.task.status.state == TaskState.TASK_STATE_CANCELED
        assert not stored.task.artifacts


async def test_cancel_while_waiting_for_input_ends_canceled(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK) as harness:
        client = await harness.client()
        events = await collect(client.send_message(send_request("start")))
        assert states(events)[-1] == "TASK_STATE_INPUT_REQUIRED"
        canceled = await client.cancel_task(CancelTaskRequest(id=events[0].task.id))
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    assert get_message_text(canceled.status.message).startswith("Task canceled")


async def test_repeated_message_id_is_taken_once(temporal_client: Client, tmp_path: Path) -> None:
    async with running_harness(temporal_client, tmp_path, ASK) as harness:
        client = await harness.client()
        events = await collect(client.send_message(send_request("start")))
        task = events[0].task
        reply = user_message("yes", task_id=task.id)
        first = await harness.gateway.send(task.id, reply)
        again = await harness.gateway.send(task.id, reply)
        assert not first.duplicate
        assert again.duplicate
        await asyncio.wait_for(temporal_client.get_workflow_handle(task.id).result(), 20)
        final = await client.get_task(GetTaskRequest(id=task.id))
        assert final.status.state == TaskState.TASK_STATE_COMPLETED
    assert [get_message_text(m) for m in final.history].count("yes") == 1


async def test_message_sent_again_after_the_task_ended_is_a_duplicate(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK) as harness:
        client = await harness.client()
        events = await collect(client.send_message(send_request("start")))
        task = events[0].task
        reply = user_message("yes", task_id=task.id)
        assert not (await harness.gateway.send(task.id, reply)).duplicate
        await asyncio.wait_for(temporal_client.get_workflow_handle(task.id).result(), 20)
        again = await harness.gateway.send(task.id, reply)
        assert again.duplicate
        assert again.task.status.state == TaskState.TASK_STATE_COMPLETED
        with pytest.raises(FinalTaskError):
            await harness.gateway.send(task.id, user_message("and more", task_id=task.id))


async def test_one_turn_task_is_at_most_15_history_events_and_one_state_for_search(
    temporal_client: Client, tmp_path: Path
) -> None:
    """The Temporal work of a task that only answers: update-with-start, one local activity
    that prepares the turn and writes the log, the model call, one write at the end; and
    one upsert of its `A2ATaskState` search attribute, to COMPLETED (it started WORKING)."""
    async with running_harness(temporal_client, tmp_path, "turns:\n  - text: done\n") as harness:
        client = await harness.client()
        events = await collect(client.send_message(send_request("go")))
        handle = temporal_client.get_workflow_handle(events[0].task.id)
        await asyncio.wait_for(handle.result(), 20)
        history = await handle.fetch_history()
    kinds = [event.WhichOneof("attributes") for event in history.events]
    # A workflow task that a loaded machine let time out is tried again: its timeout and
    # the new try's scheduled and started events are Temporal's bookkeeping, not the design.
    retried = kinds.count("workflow_task_timed_out_event_attributes") + kinds.count(
        "workflow_task_failed_event_attributes"
    )
    upserts = kinds.count("upsert_workflow_search_attributes_event_attributes")
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    assert len(kinds) - 3 * retried - upserts <= 15, kinds
    assert upserts == 1, kinds
    assert kinds.count("marker_recorded_event_attributes") == 2, kinds


MANY_STEPS = (
    "turns:\n"
    + "".join(
        f"  - tool_calls: [{{name: complete_step, arguments: {{step_id: s{i}, output: o}}}}]\n"
        for i in range(12)
    )
    + '  - tool_calls: [{name: ask_participant, arguments: {question: "Still there?"}}]\n'
    + ("  - text: all done\n")
)


async def whole_log(harness: RunningHarness, task_id: str) -> list[StreamResponse]:
    """The task's durable log from event 0, page by page (across every run)."""
    return await stored_log(harness.store, task_id)


async def test_log_replays_whole_across_continue_as_new(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(
        temporal_client, tmp_path, MANY_STEPS, history_event_bound=100
    ) as harness:
        client = await harness.client()
        first = await collect(client.send_message(send_request("go")))
        task_id = first[0].task.id
        assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
        runs = [wf.run_id async for wf in temporal_client.list_workflows(f'WorkflowId="{task_id}"')]
        assert len(runs) > 1, "the bound of 100 history events should have forced a rollover"

        log = await whole_log(harness, task_id)
        assert [e.SerializeToString(deterministic=True) for e in log] == [
            e.SerializeToString(deterministic=True) for e in first
        ]
        # A subscriber gets the parked task as it stands, its whole history in it.
        parked = await first_event(client.subscribe(SubscribeToTaskRequest(id=task_id)))
        assert parked.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert parked.task.history[0].parts[0].text == "go"
        rest = await collect(client.send_message(send_request("yes", task_id=task_id)))
        assert states(rest)[-1] == "TASK_STATE_COMPLETED"


async def test_watchers_add_nothing_to_a_parked_tasks_history_and_all_see_the_end(
    temporal_client: Client, tmp_path: Path
) -> None:
    readers = 12
    async with running_harness(temporal_client, tmp_path, ASK) as harness:
        client = await harness.client()
        alone = await _parked_and_answered(harness, client, watchers=0)
        watched = await _parked_and_answered(harness, client, watchers=readers)
        histories = [
            await harness.temporal.get_workflow_handle(task_id).fetch_history()
            for task_id in (alone.task_id, watched.task_id)
        ]

    assert len(watched.seen) == readers
    for replay in watched.seen:
        assert states(replay)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    # Twelve readers waiting through the pause left nothing in the task's history: the
    # same kinds of event as the task with none, and one update per message sent.
    alone_kinds, watched_kinds = (
        [str(e.WhichOneof("attributes")) for e in h.events] for h in histories
    )
    assert set(watched_kinds) == set(alone_kinds)
    updates = "workflow_execution_update_accepted_event_attributes"
    assert watched_kinds.count(updates) == alone_kinds.count(updates) == 2


@dataclass
class _Watched:
    task_id: str
    seen: list[list[StreamResponse]]


async def _parked_and_answered(
    harness: RunningHarness, client: A2AClient, *, watchers: int
) -> _Watched:
    """A task parked on its question with `watchers` subscribers reading it from before
    the reply until its end."""
    first = await collect(client.send_message(send_request("go")))
    task_id = first[0].task.id
    assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
    attached = asyncio.Barrier(watchers + 1)

    async def read_to_the_end(reader: A2AClient) -> list[StreamResponse]:
        stream = reader.subscribe(SubscribeToTaskRequest(id=task_id))
        seen = [await anext(stream)]
        await attached.wait()  # every reader is on the stream before the reply
        return seen + [event async for event in stream]

    readers = [await harness.client() for _ in range(watchers)]
    replays = asyncio.gather(*(read_to_the_end(reader) for reader in readers))
    await attached.wait()
    await collect(client.send_message(send_request("yes", task_id=task_id)))
    seen = await replays
    await harness.temporal.get_workflow_handle(task_id).result()
    return _Watched(task_id, list(seen))


async def test_a_model_that_never_finishes_is_stopped_at_the_call_limit(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(
        temporal_client, tmp_path, ENDLESS_PLANS, max_model_calls=3
    ) as harness:
        client = await harness.client()
        events = await collect(client.send_message(send_request("go")))
        task_id = events[0].task.id
        await temporal_client.get_workflow_handle(task_id).result()
        task = await client.get_task(GetTaskRequest(id=task_id))
        calls = await llm_requests(temporal_client, task_id)

    assert states(events)[-1] == "TASK_STATE_FAILED"
    assert len(calls) == 3
    reason = get_message_text(task.status.message)
    assert "called 3 times without finishing" in reason
    assert "loop.max_model_calls" in reason
    # Nothing is lost: the history still holds the request that started it all.
    assert get_message_text(task.history[0]) == "go"


class HeldAssembly:
    """A compaction.trigger policy that holds the turn's preparation until released."""

    name = "held-assembly"
    priority = 10
    points = frozenset({HookPoint.parse("compaction.trigger.in")})

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        self.entered.set()
        await self.release.wait()
        return None


async def test_a_task_cancelled_while_its_turn_is_being_prepared_ends_canceled(
    temporal_client: Client, tmp_path: Path
) -> None:
    """The step the preparation was writing goes back to the writer, so the end is written."""
    held = HeldAssembly()
    async with running_harness(temporal_client, tmp_path, "turns:\n  - text: never\n") as h:
        h.harness.hooks.register(held)
        client = await h.client()
        sending = asyncio.create_task(collect(client.send_message(send_request("go"))))
        await asyncio.wait_for(held.entered.wait(), 20)
        page = await h.store.list_tasks(TaskQuery())
        task_id = page.records[0].task_id
        cancelled = await asyncio.wait_for(client.cancel_task(CancelTaskRequest(id=task_id)), 20)
        held.release.set()
        events = await asyncio.wait_for(sending, 20)

    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    assert states(events)[-1] == "TASK_STATE_CANCELED"

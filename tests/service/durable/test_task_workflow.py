"""TaskWorkflow behaviour on a real Temporal dev server: cancel, idempotent inbox, rollover."""

from __future__ import annotations

import asyncio
from pathlib import Path

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
    HeldLLM,
    RunningHarness,
    collect,
    first_event,
    llm_requests,
    running_harness,
    send_request,
    states,
    user_message,
)
from tiny_harness.service.durable.workflows.task_log import MAX_PARKED

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
    events: list[StreamResponse] = []
    while page := (await harness.gateway.read(task_id, len(events))).events:
        events.extend(logged.event for logged in page)
    return events


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


async def test_more_readers_than_parked_watches_all_see_the_end(
    temporal_client: Client, tmp_path: Path
) -> None:
    llm = HeldLLM("turns:\n  - text: finally\n")
    readers = MAX_PARKED + 4
    async with running_harness(temporal_client, tmp_path, "", llm=llm) as harness:
        clients = [await harness.client() for _ in range(readers)]
        events = await _first_events(clients[0], send_request("wait"), "TASK_STATE_WORKING")
        task_id = events[0].task.id
        attached = asyncio.Barrier(readers + 1)

        async def read_to_the_end(client: A2AClient) -> list[StreamResponse]:
            stream = client.subscribe(SubscribeToTaskRequest(id=task_id))
            seen = [await anext(stream)]
            await attached.wait()  # every reader is on the stream before the model answers
            return seen + [event async for event in stream]

        replays = asyncio.gather(*(read_to_the_end(c) for c in clients))
        await attached.wait()
        llm.release.set()
        done = await replays
    assert all(states(replay)[-2:] == ["artifact", "TASK_STATE_COMPLETED"] for replay in done)


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

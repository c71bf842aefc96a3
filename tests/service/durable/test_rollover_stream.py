"""Continue-as-new while clients stream: every event reaches every reader exactly once.

The task asks a question, so its first turn ends INPUT_REQUIRED in its first run. The reply
starts a second turn long enough to pass a history bound of 100 events, so the workflow
continues as new while two readers follow it live over HTTP: the replying client's stream
and a `SubscribeToTask` stream opened before the rollover (which opens with the task as it
stands, then follows).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from a2a.client import Client as A2AClient
from a2a.helpers import get_message_text
from a2a.types import Role, StreamResponse, SubscribeToTaskRequest, Task
from temporalio.client import Client

from tests.support import (
    BINDINGS,
    HeldLLM,
    collect,
    running_harness,
    send_request,
    states,
    stored_log,
)

STEPS = 12
SCRIPT = (
    "turns:\n"
    '  - tool_calls: [{name: ask_participant, arguments: {question: "Ready?"}}]\n'
    "  - text: Planning.\n"  # held until the subscriber is attached (before the rollover)
    "    tool_calls:\n"
    "      - name: create_plan\n"
    "        arguments: {steps: ["
    + ", ".join(f"{{id: s{i}, name: step {i}}}" for i in range(STEPS))
    + "]}\n"
    + "".join(
        f"  - text: Working on s{i}.\n"
        f"    tool_calls: [{{name: complete_step, arguments: {{step_id: s{i}, output: o{i}}}}}]\n"
        for i in range(STEPS)
    )
    + "  - text: All steps done.\n"
)


def wire(events: list[StreamResponse]) -> list[bytes]:
    return [event.SerializeToString(deterministic=True) for event in events]


def last_from_user(task: Task) -> str:
    """The text of the last message a person sent (the agent's calls may follow it)."""
    return get_message_text([m for m in task.history if m.role == Role.ROLE_USER][-1])


def said(events: list[StreamResponse]) -> list[str]:
    """The text of every status message, in order."""
    return [
        get_message_text(e.status_update.status.message)
        for e in events
        if e.HasField("status_update") and e.status_update.status.HasField("message")
    ]


async def stream_reply(
    client: A2AClient, task_id: str, taken: asyncio.Event
) -> list[StreamResponse]:
    """Send the reply, streaming; `taken` is set once the task has taken it."""
    events: list[StreamResponse] = []
    async for event in client.send_message(send_request("yes", task_id=task_id)):
        events.append(event)
        taken.set()
    return events


async def subscribe_and_note_run(
    client: A2AClient, temporal: Client, task_id: str, attached: asyncio.Event
) -> tuple[str, list[StreamResponse]]:
    """Follow the task to its end; also the id of the run current when the stream opened.
    `attached` is set once the stream has opened and that run is noted."""
    handle = temporal.get_workflow_handle(task_id)
    events: list[StreamResponse] = []
    run_at_open = ""
    async for event in client.subscribe(SubscribeToTaskRequest(id=task_id)):
        if not events:
            run_at_open = (await handle.describe()).run_id or ""
            attached.set()
        events.append(event)
    return run_at_open, events


@pytest.mark.parametrize("binding", BINDINGS)
async def test_readers_streaming_across_continue_as_new_see_every_event_once(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    llm = HeldLLM(SCRIPT, hold_call=2)  # the turn after the reply
    async with running_harness(
        temporal_client, tmp_path, "", llm=llm, history_event_bound=100
    ) as harness:
        client = await harness.client(binding)
        first = await collect(client.send_message(send_request("go")))
        task_id = first[0].task.id
        assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
        handle = temporal_client.get_workflow_handle(task_id)
        first_run = (await handle.describe()).run_id

        taken = asyncio.Event()
        reply = asyncio.create_task(stream_reply(client, task_id, taken))
        # Subscribing before the reply is taken would replay up to INPUT_REQUIRED and end.
        await asyncio.wait_for(taken.wait(), 30)
        follower = await harness.client(binding)
        attached = asyncio.Event()
        following = asyncio.create_task(
            subscribe_and_note_run(follower, temporal_client, task_id, attached)
        )
        await asyncio.wait_for(attached.wait(), 30)
        llm.release.set()
        run_at_open, followed = await asyncio.wait_for(following, 60)
        replied = await asyncio.wait_for(reply, 60)
        await asyncio.wait_for(handle.result(), 30)  # the whole log is stored on closing
        last_run = (await handle.describe()).run_id
        record = await harness.store.get_task(task_id)
        stored = await stored_log(harness.store, task_id)

    assert run_at_open == first_run, "the subscriber must attach before the rollover"
    assert last_run != first_run, "the bound of 100 history events should force a rollover"
    assert record is not None
    log = stored
    assert len(set(wire(log))) == len(log), "the task's log holds an event twice"
    assert states(log)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    steps_done = [text for text in said(log) if text.startswith("Step ")]
    assert steps_done == [f"Step s{i} done: o{i}" for i in range(STEPS)]

    assert first == log[: len(first)]
    # The subscriber gets the task as it stood when it subscribed (under way, the reply in
    # its history), then every later event: a suffix of the log, each event once, in order.
    opened, *after = followed
    assert opened.HasField("task")
    assert last_from_user(opened.task) == "yes"
    assert after, "the subscriber saw nothing after the task it opened with"
    assert after == log[len(log) - len(after) :], "the subscriber missed or reordered an event"
    # The replying client gets the task as it took the reply, then every later event.
    snapshot, *rest = replied
    assert snapshot.HasField("task")
    assert last_from_user(snapshot.task) == "yes"
    assert rest == log[len(first) :], "the replying client missed, repeated or reordered one"

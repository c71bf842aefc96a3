"""A task whose workflow Temporal ends outside the loop: every reader is told the truth.

An operator terminates a task's workflow with the Temporal client, on a real dev server.
GetTask, ListTasks, an open SubscribeToTask stream and the store all report the task
FAILED with a status message saying what happened, and a reply is refused as to any
final task.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from a2a.helpers import get_message_text
from a2a.types import GetTaskRequest, ListTasksRequest, SubscribeToTaskRequest, TaskState
from a2a.utils.errors import UnsupportedOperationError
from temporalio.client import Client

from tests.support import (
    ASKS_WHICH_SIZE,
    HeldLLM,
    collect,
    running_harness,
    send_request,
    states,
    stored_log,
)


async def test_a_terminated_parked_task_is_failed_for_an_open_stream_and_every_reader(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as harness:
        client = await harness.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
        stream = (await harness.client()).subscribe(SubscribeToTaskRequest(id=task_id))
        opened = await anext(stream)
        assert opened.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED

        await harness.temporal.get_workflow_handle(task_id).terminate(reason="operator cleanup")

        rest = [event async for event in stream]
        task = await client.get_task(GetTaskRequest(id=task_id))
        listed = await client.list_tasks(ListTasksRequest())
        record = await harness.store.get_task(task_id)
        log = await stored_log(harness.store, task_id)
        with pytest.raises(UnsupportedOperationError, match="final"):
            await collect(client.send_message(send_request("M", task_id=task_id)))

    said = "The task's workflow was terminated: operator cleanup."
    assert states(rest) == ["TASK_STATE_FAILED"]
    assert get_message_text(rest[0].status_update.status.message) == said
    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert get_message_text(task.status.message) == said
    assert [t.status.state for t in listed.tasks if t.id == task_id] == [
        TaskState.TASK_STATE_FAILED
    ]
    assert record is not None
    assert record.task.status.state == TaskState.TASK_STATE_FAILED
    # The end follows the task's own log, once: what the stream saw is what the store has.
    assert log[-1] == rest[0]
    assert states(log) == [*states(first), "TASK_STATE_FAILED"]


async def test_get_task_alone_notices_a_workflow_terminated_mid_model_call(
    temporal_client: Client, tmp_path: Path
) -> None:
    llm = HeldLLM("turns:\n  - text: never said\n")
    async with running_harness(temporal_client, tmp_path, "", llm=llm) as harness:
        client = await harness.client(streaming=False)
        request = send_request("think")
        request.configuration.return_immediately = True
        [started] = await collect(client.send_message(request))
        task_id = started.task.id
        await asyncio.wait_for(llm.holding.wait(), 30)

        await harness.temporal.get_workflow_handle(task_id).terminate()
        task = await client.get_task(GetTaskRequest(id=task_id))
        again = await client.get_task(GetTaskRequest(id=task_id))
        log = await stored_log(harness.store, task_id)
        llm.release.set()

    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert get_message_text(task.status.message).startswith("The task's workflow was terminated")
    assert again == task
    assert states(log).count("TASK_STATE_FAILED") == 1

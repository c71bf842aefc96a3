"""A worker that keeps no run in memory (`max_cached_workflows=0`, as a parked task past
the cache is) replays each task from its history at every step, and the task goes on as if
it had stayed: a question answered, an A2UI action taken, the answer the model gave.
Through the A2A server, a real worker and the dev server."""

from __future__ import annotations

from pathlib import Path

from a2a.types import GetTaskRequest, TaskState
from temporalio.client import Client

from tests.harness.a2ui.test_surfaces import PICK_A_SIZE, action
from tests.support import (
    ASKS_WHICH_SIZE,
    collect,
    llm_requests,
    running_harness,
    send_request,
    states,
)
from tiny_harness.harness.models.llm import UserItem


async def test_a_parked_task_replayed_from_history_takes_its_answer(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(
        temporal_client, tmp_path, ASKS_WHICH_SIZE, max_cached_workflows=0
    ) as h:
        client = await h.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        reply = await collect(client.send_message(send_request("M", task_id=task_id)))
        done = await client.get_task(GetTaskRequest(id=task_id))

    assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert states(reply)[-1] == "TASK_STATE_COMPLETED"
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert done.artifacts[-1].parts[0].text == "Size noted: the shirt is ordered."


async def test_an_action_on_an_evicted_task_reaches_the_model(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, PICK_A_SIZE, max_cached_workflows=0) as h:
        client = await h.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        quick = await h.client(streaming=False)
        await collect(quick.send_message(action("sizes", "make-me-admin", task_id=task_id)))
        await collect(quick.send_message(action("sizes", "pick", task_id=task_id)))
        await temporal_client.get_workflow_handle(task_id).result()
        done = await client.get_task(GetTaskRequest(id=task_id))
        requests = await llm_requests(temporal_client, task_id)

    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert done.artifacts[-1].parts[0].text == "Size chosen."
    seen = [i.text for r in requests for i in r.input if isinstance(i, UserItem)]
    assert any("UI action 'choose' on surface 'sizes', component 'pick'" in t for t in seen)
    assert not any("make-me-admin" in t for t in seen)

"""News of a sub-task sent as a message (R15.1): a status or artifact update envelope
about a remote sub-task reaches its stand-in as a doorbell, the stand-in looks at the
remote task itself, and an envelope about no sub-task of the task is refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from a2a.types import (
    Artifact,
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Role,
    SendMessageRequest,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from a2a.utils.errors import InvalidParamsError
from temporalio.client import Client

from tests.service.durable.test_delegation import (
    CANCELLED_PARENT,
    delegating,
    eventually_one,
    eventually_parked_turn,
)
from tests.support import (
    ASKS_WHICH_SIZE,
    as_participant,
    collect,
    llm_requests,
    running_harness,
    send_request,
    states,
)
from tiny_harness.harness.agents.turns import RemoteTurn
from tiny_harness.harness.models.llm import UserItem
from tiny_harness.harness.tasks.extension import EventEnvelope, envelope_part


def news(task_id: str, envelope: EventEnvelope) -> SendMessageRequest:
    """A message to `task_id` carrying `envelope` alone, answered as soon as it is taken."""
    message = Message(message_id=f"news-{envelope.kind}", role=Role.ROLE_USER, task_id=task_id)
    message.parts.append(envelope_part(envelope))
    request = SendMessageRequest(message=message)
    request.configuration.return_immediately = True
    return request


def status_of(remote_task_id: str, state: TaskState) -> EventEnvelope:
    return EventEnvelope.of_status_update(
        TaskStatusUpdateEvent(task_id=remote_task_id, status=TaskStatus(state=state))
    )


def artifact_of(remote_task_id: str) -> EventEnvelope:
    return EventEnvelope.of_artifact_update(
        TaskArtifactUpdateEvent(task_id=remote_task_id, artifact=Artifact(artifact_id="a1"))
    )


async def test_a_status_update_about_a_sub_task_wakes_its_unwatched_stand_in(
    temporal_client: Client, tmp_path: Path
) -> None:
    # "off": nothing watches the parked remote task; only the news tells the parent.
    async with delegating(temporal_client, tmp_path, "off", parent_script=CANCELLED_PARENT) as (
        parent,
        child,
    ):
        client = await parent.client()
        running = asyncio.create_task(collect(client.send_message(send_request("order a shirt"))))
        stand_in = await eventually_one(parent, ".sub-1")
        parked = await eventually_parked_turn(temporal_client, stand_in)
        parent_id = stand_in.removesuffix(".sub-1")
        await (await child.client()).cancel_task(
            CancelTaskRequest(id=parked.remote_task_id), context=as_participant(parent_id)
        )
        claim = status_of(parked.remote_task_id, TaskState.TASK_STATE_CANCELED)
        quick = await parent.client(streaming=False)
        await collect(quick.send_message(news(parent_id, claim)))
        events = await asyncio.wait_for(running, 30)
        final = await temporal_client.get_workflow_handle(stand_in, result_type=RemoteTurn).result()
        requests = await llm_requests(temporal_client, parent_id)
        task = await client.get_task(GetTaskRequest(id=parent_id))

    assert final.state == TaskState.TASK_STATE_CANCELED
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    notes = [i.text for i in requests[-1].input if i.text.startswith("[sub-task")]
    assert sum("CANCELED" in n for n in notes) == 1
    # The news is in the task's history; the model was never handed it as a message.
    assert "news-status_update" in [m.message_id for m in task.history]
    seen = {i.message_id for r in requests for i in r.input if isinstance(i, UserItem)}
    assert "news-status_update" not in seen


@pytest.mark.parametrize("kind", ["status_update", "artifact_update"])
async def test_news_about_no_sub_task_of_the_task_is_refused_and_changes_nothing(
    temporal_client: Client, tmp_path: Path, kind: str
) -> None:
    envelope = (
        status_of("elsewhere", TaskState.TASK_STATE_COMPLETED)
        if kind == "status_update"
        else artifact_of("elsewhere")
    )
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        client = await h.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        before = await client.get_task(GetTaskRequest(id=task_id))
        with pytest.raises(InvalidParamsError, match="none has the remote task id 'elsewhere'"):
            await collect(client.send_message(news(task_id, envelope)))
        after = await client.get_task(GetTaskRequest(id=task_id))

    assert after.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert after.history == before.history

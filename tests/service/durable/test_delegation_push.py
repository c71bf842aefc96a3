"""Delegation to a plain a2a-sdk agent (not a harness): the push watch.

The agent advertises push and runs the SDK's own push sender; the harness registers its
`/a2a/push/<stand-in id>` route with a fresh token. When the remote task changes on its own
side while parked, the push only wakes the stand-in, which reads the task with GetTask.
The token reaches the remote agent and nothing else: not the workflow history, not the
store, not the logs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_artifact_text
from a2a.types import CancelTaskRequest, SendMessageRequest, TaskState
from temporalio.client import Client

from tests.harness.agents.plain_agent import PlainAgent, plain_agent, plain_card
from tests.support import (
    RunningHarness,
    capture_debug,
    collect,
    delegating_to,
    harness_client,
    llm_requests,
    running_harness,
    send_request,
    states,
    user_message,
)
from tiny_harness.harness.agents.turns import RemoteTurn
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.service.a2a.app import create_app
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.a2a.doorbell import PushReceiver
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.http import HttpServer, free_port

PARENT = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: plain, name: pick, goal: ask}}]
  - when: "^start"
    text: "Waiting for the sub-task."
  - when: "INPUT_REQUIRED"
    text: "The sub-task waits for its user."
  - when: "CANCELED"
    text: "The sub-task was cancelled on its side."
"""


@asynccontextmanager
async def pushing(
    temporal: Client, tmp_path: Path, *, push: bool = True
) -> AsyncIterator[tuple[RunningHarness, PlainAgent]]:
    card: Callable[[str], object] = lambda url: plain_card(url, push=push)  # noqa: E731
    async with (
        plain_agent(push_store=push, push_sender=push, card=card) as remote,  # type: ignore[arg-type]
        running_harness(temporal, tmp_path, PARENT) as parent,
        delegating_to(parent, "plain", remote.url),
    ):
        yield parent, remote


async def until[T](probe: Callable[[], T | None], what: str) -> T:
    for _ in range(300):
        found = probe()
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"never saw {what}")


async def completed_activities(temporal: Client, workflow_id: str, *, at_least: int) -> None:
    handle = temporal.get_workflow_handle(workflow_id)
    for _ in range(300):
        history = await handle.fetch_history()
        done = [e for e in history.events if e.HasField("activity_task_completed_event_attributes")]
        if len(done) >= at_least:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{workflow_id} never completed {at_least} activities")


async def cancel_remotely(remote: PlainAgent, task_id: str) -> None:
    """Cancel the remote task on the agent's own side, as its own user would."""
    async with httpx.AsyncClient() as http:
        config = ClientConfig(streaming=False, httpx_client=http)
        client = await ClientFactory(config).create_from_url(remote.url)
        await client.cancel_task(CancelTaskRequest(id=task_id))


async def ring(parent: RunningHarness, stand_in: str, remote_task_id: str, *, token: str) -> int:
    """POST a push to the stand-in's route as a remote agent would; the status code."""
    body = {"statusUpdate": {"taskId": remote_task_id, "status": {"state": "TASK_STATE_CANCELED"}}}
    response = await parent.http.post(
        f"{parent.url}/a2a/push/{stand_in}",
        json=body,
        headers={"X-A2A-Notification-Token": token},
    )
    return response.status_code


def registered_token(remote: PlainAgent) -> str:
    calls = remote.rpc_calls("CreateTaskPushNotificationConfig")
    assert len(calls) == 1
    return str(json.loads(calls[0].body)["params"]["token"])


@pytest.mark.parametrize("push", [True, False], ids=["push", "follow"])
async def test_a_change_on_the_remote_side_reaches_the_parent_once(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture, push: bool
) -> None:
    capture_debug(caplog)
    async with pushing(temporal_client, tmp_path, push=push) as (parent, remote):
        client = await parent.client()
        running = asyncio.create_task(collect(client.send_message(send_request("start"))))
        await until(lambda: remote.rpc_calls("SendStreamingMessage"), "the brief")
        ids = await parent.workflow_ids()
        stand_in = next(i for i in ids if ".sub-" in i)
        # Parked and watched: push registered and reconciled once, or a follow stream open.
        watching = "CreateTaskPushNotificationConfig" if push else "SubscribeToTask"
        await until(lambda: remote.rpc_calls(watching), "the watch")
        await until(lambda: remote.rpc_calls("GetTask"), "the first read of the parked task")
        parked = await temporal_client.get_workflow_handle(stand_in).query(
            "turn", result_type=RemoteTurn
        )
        assert parked.state == TaskState.TASK_STATE_INPUT_REQUIRED
        if push:
            # The reconciling read is recorded (brief, registration, read: 3 activities).
            await completed_activities(temporal_client, stand_in, at_least=3)
        if push:
            real = registered_token(remote)
            parent_id = stand_in.removesuffix(".sub-1")
            refused = [
                await ring(parent, stand_in, parked.remote_task_id, token="not-the-token"),
                # The right token, for another remote task.
                await ring(parent, stand_in, "another-remote-task", token=real),
                # The right token, at a workflow that is not a stand-in (the parent).
                await ring(parent, parent_id, parked.remote_task_id, token=real),
            ]
            assert refused == [401, 401, 401]
        gets_before = len(remote.rpc_calls("GetTask"))
        await cancel_remotely(remote, parked.remote_task_id)
        events = await asyncio.wait_for(running, 30)
        final = await temporal_client.get_workflow_handle(stand_in, result_type=RemoteTurn).result()
        token = registered_token(remote) if push else None
        late = await ring(parent, stand_in, parked.remote_task_id, token=token or "x")
        history = await temporal_client.get_workflow_handle(stand_in).fetch_history()
        parent_history = await temporal_client.get_workflow_handle(
            events[0].task.id
        ).fetch_history()
        requests = await llm_requests(temporal_client, events[0].task.id)
        gets_after = len(remote.rpc_calls("GetTask"))
        store_bytes = parent.store.path.read_bytes()

    assert final.state == TaskState.TASK_STATE_CANCELED
    notes = [i.text for i in requests[-1].input if i.text.startswith("[sub-task")]
    assert sum("CANCELED" in n for n in notes) == 1
    history_json = history.to_json()
    assert late == 401  # an ended stand-in refuses even the right token
    accepted = history_json.count("workflowExecutionUpdateAccepted")
    if push:
        assert token is not None
        assert accepted == 1  # the doorbell; no refused push left an update behind
        assert "remote_push" not in parent_history.to_json()
        assert gets_after - gets_before == 1  # one GetTask per push, the state agreed
        assert token not in history_json
        assert token.encode() not in store_bytes
        assert not any(token in r.getMessage() for r in caplog.records)
        deletes = remote.rpc_calls("DeleteTaskPushNotificationConfig")
        assert len(deletes) == 1  # the ended stand-in removed its registration
    else:
        assert accepted == 0
        assert remote.rpc_calls("CreateTaskPushNotificationConfig") == []


@asynccontextmanager
async def another_server(parent: RunningHarness) -> AsyncIterator[str]:
    """A second A2A server of the parent's deployment (no worker, a Temporal client and
    store of its own on the same namespace and database): its URL."""
    store = SqliteStore(parent.store.path)
    temporal = harness_client(parent.temporal, store, large_payload_bytes=1 << 17)
    gateway = TaskGateway(temporal, task_queue=parent.task_queue, store=store)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    card = build_agent_card(url, model="scripted test model", push=False)
    app = create_app(gateway, card, max_request_bytes=1 << 20, push=PushReceiver(temporal))
    try:
        async with HttpServer(app, host="127.0.0.1", port=port):
            yield url
    finally:
        await store.close()


async def test_a_push_to_another_server_of_the_deployment_wakes_the_stand_in(
    temporal_client: Client, tmp_path: Path
) -> None:
    # The remote agent takes the registration (it names the first server) and sends
    # nothing itself: the one push is the test's, to the other server.
    card: Callable[[str], object] = lambda url: plain_card(url, push=True)  # noqa: E731
    async with (
        plain_agent(push_store=True, card=card) as remote,  # type: ignore[arg-type]
        running_harness(temporal_client, tmp_path, PARENT) as parent,
        delegating_to(parent, "plain", remote.url),
        another_server(parent) as other,
    ):
        client = await parent.client()
        running = asyncio.create_task(collect(client.send_message(send_request("start"))))
        await until(lambda: remote.rpc_calls("CreateTaskPushNotificationConfig"), "the watch")
        stand_in = next(i for i in await parent.workflow_ids() if ".sub-" in i)
        await completed_activities(temporal_client, stand_in, at_least=3)
        parked = await temporal_client.get_workflow_handle(stand_in).query(
            "turn", result_type=RemoteTurn
        )
        await cancel_remotely(remote, parked.remote_task_id)
        body = {
            "statusUpdate": {
                "taskId": parked.remote_task_id,
                "status": {"state": "TASK_STATE_CANCELED"},
            }
        }
        response = await parent.http.post(
            f"{other}/a2a/push/{stand_in}",
            json=body,
            headers={"X-A2A-Notification-Token": registered_token(remote)},
        )
        events = await asyncio.wait_for(running, 30)
        final = await temporal_client.get_workflow_handle(stand_in, result_type=RemoteTurn).result()

    assert parked.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert response.status_code == 204
    assert final.state == TaskState.TASK_STATE_CANCELED
    assert states(events)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    answer = next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
    assert get_artifact_text(answer) == "The sub-task was cancelled on its side."


RECHECK_PARENT = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: plain, name: pick, goal: ask}}]
  - when: "^start"
    text: "Waiting for the sub-task."
  - when: "INPUT_REQUIRED"
    text: "The sub-task waits for its user."
  - when: "COMPLETED"
    text: "The sub-task is done."
"""


async def test_a_push_ahead_of_the_remote_read_is_settled_by_the_rechecks(
    temporal_client: Client, tmp_path: Path
) -> None:
    """The push claims COMPLETED while GetTask still shows INPUT_REQUIRED (a remote that
    pushes before its own read model catches up): the stand-in reads again after 1, 2 and
    4 s and applies the state once a read shows it."""
    card: Callable[[str], object] = lambda url: plain_card(url, push=True)  # noqa: E731
    async with (
        # A push store but no sender: the only push is the one this test rings.
        plain_agent(push_store=True, card=card) as remote,  # type: ignore[arg-type]
        running_harness(temporal_client, tmp_path, RECHECK_PARENT) as parent,
        delegating_to(parent, "plain", remote.url),
    ):
        client = await parent.client()
        running = asyncio.create_task(collect(client.send_message(send_request("start"))))
        await until(lambda: remote.rpc_calls("CreateTaskPushNotificationConfig"), "push")
        stand_in = next(i for i in await parent.workflow_ids() if ".sub-" in i)
        await completed_activities(temporal_client, stand_in, at_least=3)
        parked = await temporal_client.get_workflow_handle(stand_in).query(
            "turn", result_type=RemoteTurn
        )
        body = {
            "statusUpdate": {
                "taskId": parked.remote_task_id,
                "status": {"state": "TASK_STATE_COMPLETED"},
            }
        }
        reads_before = len(remote.rpc_calls("GetTask"))
        rung = await parent.http.post(
            f"{parent.url}/a2a/push/{stand_in}",
            json=body,
            headers={"X-A2A-Notification-Token": registered_token(remote)},
        )
        await until(lambda: len(remote.rpc_calls("GetTask")) > reads_before, "the first read")
        await reply_remotely(remote, parked.remote_task_id, "blue")
        final = await asyncio.wait_for(
            temporal_client.get_workflow_handle(stand_in, result_type=RemoteTurn).result(),
            15,
        )
        events = await asyncio.wait_for(running, 15)
        reads = len(remote.rpc_calls("GetTask")) - reads_before

    assert rung.status_code == 204
    assert final.state == TaskState.TASK_STATE_COMPLETED
    assert final.text == "echo: blue"
    assert 2 <= reads <= 4  # the first read disagreed; a recheck agreed; never more than 4
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED


async def reply_remotely(remote: PlainAgent, task_id: str, text: str) -> None:
    """Answer the remote task's question on the agent's own side."""
    async with httpx.AsyncClient() as http:
        config = ClientConfig(streaming=False, httpx_client=http)
        client = await ClientFactory(config).create_from_url(remote.url)
        message = user_message(text, task_id=task_id)
        async for _ in client.send_message(SendMessageRequest(message=message)):
            pass


AUTH_PARENT = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: plain, name: login, goal: auth}}]
  - when: "^start"
    text: "Waiting for the sub-task."
  - when: "AUTH_REQUIRED"
    tool_calls: [{name: reply_subtask, arguments: {subtask_id: sub-1, text: consent}}]
  - when: "AUTH_REQUIRED"
    text: "Waiting for the sub-task."
  - when: "COMPLETED"
    text: "Signed in."
"""


async def test_a_sub_task_asking_for_authorisation_is_told_and_answered(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        plain_agent() as remote,
        running_harness(temporal_client, tmp_path, AUTH_PARENT) as parent,
        delegating_to(parent, "plain", remote.url),
    ):
        events = await collect((await parent.client()).send_message(send_request("start")))
        task_id = events[0].task.id
        final = await temporal_client.get_workflow_handle(
            f"{task_id}.sub-1", result_type=RemoteTurn
        ).result()
        requests = await llm_requests(temporal_client, task_id)

    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert (final.state, final.text) == (TaskState.TASK_STATE_COMPLETED, "echo: consent")
    notes = [i.text for i in requests[-1].input if i.text.startswith("[sub-task")]
    assert ["AUTH_REQUIRED" in n for n in notes] == [True, False]
    assert "COMPLETED" in notes[-1]

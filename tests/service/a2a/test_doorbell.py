"""The inbound push endpoint: one 401 for every refusal, nothing recorded, no token kept.

Pushes travel the real route (uvicorn on 127.0.0.1, httpx) to a real stand-in (`PushTarget`,
run by a real worker on the shared Temporal dev server, one task queue per test). Every
refusal is checked three ways: its status, no update event in the workflow's history, and
no push in the workflow's state. No test's token reaches a log record or the history.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from a2a.server.context import ServerCallContext
from a2a.server.tasks import BasePushNotificationSender, InMemoryPushNotificationConfigStore
from a2a.types import (
    Artifact,
    Message,
    Part,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from google.protobuf import json_format
from temporalio.client import Client, WorkflowHandle
from temporalio.service import RPCError
from temporalio.worker import Worker

from tests.service.a2a.push_target import Bystander, PushTarget, PushTargetStart
from tests.support import capture_debug
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.service.a2a.app import SDK_BODY_LOGGER, create_app
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.a2a.doorbell import (
    MAX_PUSH_BYTES,
    PUSH_TOKEN_HEADER,
    PushReceiver,
    push_url,
    token_digest,
)
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.remote_payloads import PushIn
from tiny_harness.service.http import HttpServer, free_port

TOKEN = "push-token-" + uuid.uuid4().hex
REMOTE_ID = "remote-task-1"
WORKING = TaskState.TASK_STATE_WORKING


def status_body(remote_task_id: str = REMOTE_ID, state: int = WORKING) -> bytes:
    event = TaskStatusUpdateEvent(
        task_id=remote_task_id, context_id="ctx", status=TaskStatus(state=cast(Any, state))
    )
    return json_format.MessageToJson(StreamResponse(status_update=event)).encode()


@dataclass
class PushRig:
    """An app with a push endpoint, served on 127.0.0.1, and a worker running the targets."""

    url: str
    port: int
    temporal: Client
    task_queue: str
    http: httpx.AsyncClient
    handles: list[WorkflowHandle[Any, Any]] = field(default_factory=list)

    async def target(
        self, *, remote_task_id: str = REMOTE_ID, workflow_id: str = ""
    ) -> WorkflowHandle[PushTarget, int]:
        handle = await self.temporal.start_workflow(
            PushTarget.run,
            PushTargetStart(token_digest=token_digest(TOKEN), remote_task_id=remote_task_id),
            id=workflow_id or f"push-target-{uuid.uuid4()}",
            task_queue=self.task_queue,
        )
        self.handles.append(handle)
        return handle

    async def push(
        self, task_id: str, body: bytes = b"", *, token: str | None = TOKEN
    ) -> httpx.Response:
        headers = {"content-type": "application/json"}
        if token is not None:
            headers[PUSH_TOKEN_HEADER] = token
        return await self.http.post(
            push_url(self.url, task_id), content=body or status_body(), headers=headers
        )


@pytest.fixture
async def rig(temporal_client: Client, tmp_path: Path) -> AsyncIterator[PushRig]:
    task_queue = f"push-{uuid.uuid4()}"
    store = SqliteStore(tmp_path / "store.sqlite3")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    app = create_app(
        TaskGateway(temporal_client, task_queue=task_queue, store=store),
        build_agent_card(url, model="push test", push=False),
        max_request_bytes=1_048_576,
        push=PushReceiver(temporal_client),
    )
    worker = Worker(temporal_client, task_queue=task_queue, workflows=[PushTarget, Bystander])
    try:
        async with (
            httpx.AsyncClient(timeout=30) as http,
            worker,
            HttpServer(app, host="127.0.0.1", port=port),
        ):
            rig = PushRig(url, port, temporal_client, task_queue, http)
            try:
                yield rig
            finally:
                await _terminate(rig.handles)
    finally:
        await store.close()


async def _terminate(handles: list[WorkflowHandle[Any, Any]]) -> None:
    for handle in handles:
        with contextlib.suppress(RPCError):  # it had ended already
            await handle.terminate("test over")


@pytest.fixture(autouse=True)
def no_token_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Every log record of every test, at every level, is free of the push token."""
    capture_debug(caplog)
    yield
    for record in caplog.records:
        assert TOKEN not in record.getMessage(), record.name
    assert TOKEN not in caplog.text


async def update_events(handle: WorkflowHandle[Any, Any]) -> list[str]:
    """The update events in the workflow's history (accepted, completed, ...), in order."""
    history = await handle.fetch_history()
    names = [event.WhichOneof("attributes") or "" for event in history.events]
    return [name for name in names if name.startswith("workflow_execution_update_")]


async def assert_untouched(handle: WorkflowHandle[PushTarget, int]) -> None:
    assert await update_events(handle) == []
    assert await handle.query(PushTarget.accepted) == []


# --- push_url and token_digest ---------------------------------------------------------


def test_push_url_appends_the_path_to_a_base_with_or_without_a_trailing_slash() -> None:
    assert push_url("http://h:1", "t-1") == "http://h:1/a2a/push/t-1"
    assert push_url("http://h:1/", "t-1") == "http://h:1/a2a/push/t-1"
    assert push_url("https://h/base/", "t-1") == "https://h/base/a2a/push/t-1"


@pytest.mark.parametrize(
    ("task_id", "segment"),
    [
        ("a/b", "a%2Fb"),
        ("../../admin", "..%2F..%2Fadmin"),
        ("a b?c#d", "a%20b%3Fc%23d"),
        ("%2F", "%252F"),
    ],
)
def test_push_url_encodes_the_id_as_one_path_segment(task_id: str, segment: str) -> None:
    assert push_url("http://h", task_id) == f"http://h/a2a/push/{segment}"


@pytest.mark.parametrize("task_id", ["", ".", ".."])
def test_push_url_refuses_an_id_that_would_be_a_dot_segment(task_id: str) -> None:
    with pytest.raises(ValueError, match="push URL"):
        push_url("http://h", task_id)


def test_token_digest_is_the_sha256_hex_of_the_token() -> None:
    assert token_digest("abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert token_digest(TOKEN) != token_digest(TOKEN + "x")


# --- the receiver's order of checks, without Temporal ----------------------------------


class NoTemporal:
    """A client stand-in that records any attempt to reach Temporal."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def get_workflow_handle(self, workflow_id: str) -> None:
        self.calls.append(workflow_id)


@pytest.mark.parametrize(
    ("token", "body", "status"),
    [
        (None, b"x" * (MAX_PUSH_BYTES + 1), 413),
        (TOKEN, status_body() + b" " * MAX_PUSH_BYTES, 413),
        (None, b"{not json", 401),
        ("", status_body(), 401),
        (TOKEN, b"{not json", 400),
        (TOKEN, b"\xff\xfe", 400),
        (TOKEN, b"[1]", 400),
        (TOKEN, b"{}", 400),
        (TOKEN, status_body(remote_task_id=""), 400),
    ],
)
async def test_receiver_refuses_in_order_before_reaching_temporal(
    token: str | None, body: bytes, status: int
) -> None:
    client = NoTemporal()
    receiver = PushReceiver(cast(Client, client))
    assert await receiver.receive("local-1", token, body) == status
    assert client.calls == []


async def test_a_stand_in_that_never_answers_is_refused_after_the_timeout(
    temporal_client: Client,
) -> None:
    # No worker polls this queue: the update is never taken.
    handle = await temporal_client.start_workflow(
        PushTarget.run,
        PushTargetStart(token_digest=token_digest(TOKEN), remote_task_id=REMOTE_ID),
        id=f"push-orphan-{uuid.uuid4()}",
        task_queue=f"push-nobody-{uuid.uuid4()}",
    )
    receiver = PushReceiver(temporal_client, update_timeout=timedelta(seconds=0.5))
    try:
        status = await asyncio.wait_for(receiver.receive(handle.id, TOKEN, status_body()), 10)
        assert status == 401
    finally:
        await handle.terminate("test over")


# --- refusals over HTTP -----------------------------------------------------------------


async def test_a_push_without_a_token_is_401(rig: PushRig) -> None:
    handle = await rig.target()
    response = await rig.push(handle.id, token=None)
    assert (response.status_code, response.content) == (401, b"")
    await assert_untouched(handle)


async def test_a_push_with_an_empty_token_is_401(rig: PushRig) -> None:
    handle = await rig.target()
    assert (await rig.push(handle.id, token="")).status_code == 401
    await assert_untouched(handle)


async def test_a_push_with_a_wrong_token_is_401_and_logged_without_it(
    rig: PushRig, caplog: pytest.LogCaptureFixture
) -> None:
    handle = await rig.target()
    wrong = TOKEN[:-1] + ("0" if TOKEN[-1] != "0" else "1")
    assert (await rig.push(handle.id, token=wrong)).status_code == 401
    await assert_untouched(handle)
    refusals = [
        r.getMessage()
        for r in caplog.records
        if r.name == "tiny_harness.service.a2a.doorbell" and r.levelno == logging.INFO
    ]
    assert len(refusals) == 1
    assert handle.id in refusals[0]
    assert "refused" in refusals[0]
    assert wrong not in caplog.text


async def test_a_valid_token_for_another_remote_task_is_401(rig: PushRig) -> None:
    handle = await rig.target()
    response = await rig.push(handle.id, status_body(remote_task_id="someone-else"))
    assert response.status_code == 401
    await assert_untouched(handle)


async def test_a_push_after_close_is_401(rig: PushRig) -> None:
    handle = await rig.target()
    await handle.signal(PushTarget.close)
    for _ in range(100):
        if await handle.query(PushTarget.closed):
            break
        await asyncio.sleep(0.02)
    assert (await rig.push(handle.id)).status_code == 401
    await assert_untouched(handle)


async def test_a_push_to_an_ended_workflow_is_401(rig: PushRig) -> None:
    handle = await rig.target()
    await handle.signal(PushTarget.end)
    assert await handle.result() == 0
    assert (await rig.push(handle.id)).status_code == 401
    assert await update_events(handle) == []


async def test_a_push_to_a_workflow_that_does_not_exist_is_401(rig: PushRig) -> None:
    response = await rig.push(f"no-such-workflow-{uuid.uuid4()}")
    assert response.status_code == 401


async def test_a_push_to_a_workflow_without_the_update_is_401(rig: PushRig) -> None:
    handle = await rig.temporal.start_workflow(
        Bystander.run, id=f"bystander-{uuid.uuid4()}", task_queue=rig.task_queue
    )
    rig.handles.append(handle)
    assert (await rig.push(handle.id)).status_code == 401
    assert await update_events(handle) == []


@pytest.mark.parametrize(
    "body",
    [b"{not json", b'{"statusUpdate": {"taskId": 5}}', b"\xff\xfe"],
    ids=["not-json", "wrong-type", "not-utf8"],
)
async def test_an_unparseable_body_is_400(rig: PushRig, body: bytes) -> None:
    handle = await rig.target()
    assert (await rig.push(handle.id, body)).status_code == 400
    await assert_untouched(handle)


@pytest.mark.parametrize(
    "event",
    [
        StreamResponse(),
        StreamResponse(task=Task(status=TaskStatus(state=WORKING))),
        StreamResponse(message=Message(message_id="m", role=Role.ROLE_AGENT)),
    ],
    ids=["empty", "task-without-id", "message-without-task"],
)
async def test_a_body_that_names_no_remote_task_is_400(rig: PushRig, event: StreamResponse) -> None:
    handle = await rig.target()
    body = (json_format.MessageToJson(event) or "{}").encode()
    assert (await rig.push(handle.id, body)).status_code == 400
    await assert_untouched(handle)


async def test_an_oversized_content_length_is_413_before_the_body_is_read(rig: PushRig) -> None:
    handle = await rig.target()
    # Declares more than the limit and sends 16 bytes: a server that waited for the body
    # would never answer.
    reader, writer = await asyncio.open_connection("127.0.0.1", rig.port)
    path = push_url("", handle.id)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"{PUSH_TOKEN_HEADER}: {TOKEN}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {MAX_PUSH_BYTES + 1}\r\n\r\n"
    )
    writer.write(head.encode() + b'{"task": {"id":')
    await writer.drain()
    try:
        status_line = await asyncio.wait_for(reader.readline(), timeout=5)
    finally:
        writer.close()
    assert status_line.split()[1] == b"413"
    await assert_untouched(handle)


async def test_an_oversized_body_is_413(rig: PushRig) -> None:
    handle = await rig.target()
    body = status_body() + b" " * MAX_PUSH_BYTES
    assert (await rig.push(handle.id, body)).status_code == 413
    await assert_untouched(handle)


async def test_an_oversized_chunked_body_is_413(rig: PushRig) -> None:
    handle = await rig.target()
    chunk = b" " * 16_384

    async def chunks() -> AsyncIterator[bytes]:
        yield status_body()
        for _ in range(MAX_PUSH_BYTES // len(chunk) + 1):
            yield chunk

    response = await rig.http.post(
        push_url(rig.url, handle.id), content=chunks(), headers={PUSH_TOKEN_HEADER: TOKEN}
    )
    assert response.status_code == 413
    assert "content-length" not in response.request.headers
    await assert_untouched(handle)


# --- accepted pushes --------------------------------------------------------------------


async def test_a_valid_push_is_204_and_one_accepted_update(rig: PushRig) -> None:
    handle = await rig.target()
    response = await rig.push(handle.id)
    assert (response.status_code, response.content) == (204, b"")
    assert await handle.query(PushTarget.accepted) == [
        PushIn(token_digest=token_digest(TOKEN), remote_task_id=REMOTE_ID, claimed_state=WORKING)
    ]
    events = await update_events(handle)
    assert events.count("workflow_execution_update_accepted_event_attributes") == 1
    assert events.count("workflow_execution_update_completed_event_attributes") == 1
    history = await handle.fetch_history()
    recorded = b"".join(event.SerializeToString() for event in history.events)
    assert token_digest(TOKEN).encode() in recorded  # the digest travelled, so we looked there
    assert TOKEN.encode() not in recorded
    assert TOKEN not in history.to_json()


async def test_a_push_of_exactly_the_limit_is_taken(rig: PushRig) -> None:
    handle = await rig.target()
    body = status_body()
    body += b" " * (MAX_PUSH_BYTES - len(body))
    assert (await rig.push(handle.id, body)).status_code == 204


@pytest.mark.parametrize(
    ("event", "claimed"),
    [
        (StreamResponse(task=Task(id=REMOTE_ID, status=TaskStatus(state=WORKING))), WORKING),
        (
            StreamResponse(
                artifact_update=TaskArtifactUpdateEvent(
                    task_id=REMOTE_ID, artifact=Artifact(artifact_id="a", parts=[Part(text="x")])
                )
            ),
            None,
        ),
        (
            StreamResponse(
                message=Message(message_id="m", task_id=REMOTE_ID, role=Role.ROLE_AGENT)
            ),
            None,
        ),
    ],
    ids=["task", "artifact-update", "message"],
)
async def test_every_payload_kind_names_its_remote_task(
    rig: PushRig, event: StreamResponse, claimed: int | None
) -> None:
    handle = await rig.target()
    body = json_format.MessageToJson(event).encode()
    assert (await rig.push(handle.id, body)).status_code == 204
    [push] = await handle.query(PushTarget.accepted)
    assert (push.remote_task_id, push.claimed_state) == (REMOTE_ID, claimed)


async def test_an_id_with_slashes_and_dots_reaches_its_own_workflow(rig: PushRig) -> None:
    handle = await rig.target(workflow_id=f"a/../b c?{uuid.uuid4()}")
    assert (await rig.push(handle.id)).status_code == 204
    assert len(await handle.query(PushTarget.accepted)) == 1


async def test_the_sdk_push_sender_is_taken(rig: PushRig) -> None:
    """A remote agent built on the A2A SDK pushes a status update the endpoint accepts."""
    handle = await rig.target()
    configs = InMemoryPushNotificationConfigStore()
    config = TaskPushNotificationConfig(
        id="cfg-1", task_id=REMOTE_ID, url=push_url(rig.url, handle.id), token=TOKEN
    )
    await configs.set_info(REMOTE_ID, config, ServerCallContext())
    sender = BasePushNotificationSender(rig.http, configs)
    completed = TaskStatusUpdateEvent(
        task_id=REMOTE_ID,
        context_id="ctx",
        status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED),
    )
    await sender.send_notification(REMOTE_ID, completed)
    [push] = await handle.query(PushTarget.accepted)
    assert push.claimed_state == TaskState.TASK_STATE_COMPLETED


# --- the SDK's request-body log ---------------------------------------------------------


async def test_the_sdk_request_body_log_never_carries_a_registered_token(
    rig: PushRig, caplog: pytest.LogCaptureFixture
) -> None:
    # Explicit, so logging set up by another test (the CLI's) cannot hide the SDK's line.
    caplog.set_level(logging.DEBUG, logger=SDK_BODY_LOGGER)
    secret = "registered-" + uuid.uuid4().hex
    params = {"taskId": "t-1", "url": "http://127.0.0.1:9/hook", "token": secret}
    body = {"jsonrpc": "2.0", "id": 1, "method": "CreateTaskPushNotificationConfig"}
    headers = {"A2A-Version": "1.0"}
    await rig.http.post(rig.url + "/", json={**body, "params": params}, headers=headers)
    assert secret not in caplog.text
    # The same request without the filter: the SDK does log the body, so the filter is what
    # kept the token out above.
    sdk_logger = logging.getLogger(SDK_BODY_LOGGER)
    installed = list(sdk_logger.filters)
    assert installed
    for installed_filter in installed:
        sdk_logger.removeFilter(installed_filter)
    try:
        await rig.http.post(rig.url + "/", json={**body, "params": params}, headers=headers)
    finally:
        for installed_filter in installed:
            sdk_logger.addFilter(installed_filter)
    assert [r.levelno for r in caplog.records if secret in r.getMessage()] == [logging.DEBUG]

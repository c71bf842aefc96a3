"""Each refusal is the A2A error the spec names; it starts no workflow and changes nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from a2a.helpers import get_message_text
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskState,
)
from a2a.utils.errors import (
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from temporalio.client import Client

from tests.support import (
    ASKS_WHICH_SIZE,
    RunningHarness,
    collect,
    running_harness,
    send_request,
    user_message,
)

ANSWER = "turns:\n  - text: answered\n"
JSONRPC_HEADERS = {"content-type": "application/json", "A2A-Version": "1.0"}


def rpc(method: str, params: object, request_id: int = 1) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


SEND_PARAMS = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


@pytest.fixture
async def harness(temporal_client: Client, tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_harness(temporal_client, tmp_path, ANSWER, max_request_bytes=4096) as h:
        yield h


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("{not json", -32700),
        (json.dumps({"id": 1, "method": "SendMessage", "params": SEND_PARAMS}), -32600),
        (json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "SendMessage"}]), -32600),
        (rpc("message/send", SEND_PARAMS), -32601),
        (rpc("SendMessage", {"message": {"parts": "not a list"}}), -32602),
    ],
)
async def test_malformed_jsonrpc_is_refused_and_starts_nothing(
    harness: RunningHarness, body: str, code: int
) -> None:
    response = await harness.http.post(harness.url + "/", content=body, headers=JSONRPC_HEADERS)
    assert response.json()["error"]["code"] == code
    control = await harness.control_task()
    assert await harness.workflows_once_visible({control}) == {control}


@pytest.mark.parametrize("version", [None, "", "0.3", "2.0"])
async def test_missing_or_wrong_a2a_version_is_refused_on_both_bindings(
    harness: RunningHarness, version: str | None
) -> None:
    headers = {"content-type": "application/json"}
    if version is not None:
        headers["A2A-Version"] = version
    rpc_answer = await harness.http.post(
        harness.url + "/", content=rpc("SendMessage", SEND_PARAMS), headers=headers
    )
    assert rpc_answer.json()["error"]["code"] == -32009
    rest_answer = await harness.http.post(
        harness.url + "/rest/message:send", content=json.dumps(SEND_PARAMS), headers=headers
    )
    assert rest_answer.status_code == 400
    control = await harness.control_task()
    assert await harness.workflows_once_visible({control}) == {control}


async def test_oversized_body_is_refused_before_any_route(harness: RunningHarness) -> None:
    big = {"message": {"messageId": "m-big", "role": "ROLE_USER", "parts": [{"text": "x" * 8192}]}}
    rpc_answer = await harness.http.post(
        harness.url + "/", content=rpc("SendMessage", big), headers=JSONRPC_HEADERS
    )
    assert rpc_answer.json()["error"]["code"] == -32600
    assert "too large" in rpc_answer.json()["error"]["message"]
    rest_answer = await harness.http.post(
        harness.url + "/rest/message:send", content=json.dumps(big), headers=JSONRPC_HEADERS
    )
    assert rest_answer.status_code == 413

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(4):
            yield b" " * 2048  # no content-length: the limit must hold for a chunked body too

    chunked = await harness.http.post(harness.url + "/", content=chunks(), headers=JSONRPC_HEADERS)
    assert chunked.json()["error"]["code"] == -32600
    control = await harness.control_task()
    assert await harness.workflows_once_visible({control}) == {control}


async def test_message_to_unknown_task_is_task_not_found_and_starts_nothing(
    harness: RunningHarness,
) -> None:
    client = await harness.client()
    with pytest.raises(TaskNotFoundError):
        await collect(client.send_message(send_request("hello?", task_id="no-such-task")))
    control = await harness.control_task()
    assert await harness.workflows_once_visible({control}) == {control}


async def test_reply_to_final_task_is_refused_and_history_unchanged(
    harness: RunningHarness,
) -> None:
    task_id = await harness.control_task()
    client = await harness.client()
    before = await client.get_task(GetTaskRequest(id=task_id))
    for binding in ("JSONRPC", "HTTP+JSON"):
        other = await harness.client(binding)
        with pytest.raises(UnsupportedOperationError):
            await collect(other.send_message(send_request("one more thing", task_id=task_id)))
    after = await client.get_task(GetTaskRequest(id=task_id))
    assert after == before
    assert "one more thing" not in [get_message_text(m) for m in after.history]
    assert await harness.workflows_once_visible({task_id}) == {task_id}


async def test_a_message_without_parts_is_invalid_params_and_starts_nothing(
    harness: RunningHarness,
) -> None:
    client = await harness.client()
    empty = SendMessageRequest(message=user_message("x"))
    del empty.message.parts[:]
    with pytest.raises(InvalidParamsError):
        await collect(client.send_message(empty))
    control = await harness.control_task()
    assert await harness.workflows_once_visible({control}) == {control}


async def test_a_reply_naming_another_context_is_invalid_params_and_the_task_still_waits(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        client = await h.client()
        events = await collect(client.send_message(send_request("order a shirt")))
        task_id = events[0].task.id
        wrong_context = send_request("M", task_id=task_id, context_id="another-context")
        with pytest.raises(InvalidParamsError, match="context"):
            await collect(client.send_message(wrong_context))
        after = await client.get_task(GetTaskRequest(id=task_id))

    assert after.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert "M" not in [get_message_text(m) for m in after.history]


async def test_operations_on_unknown_or_final_tasks_are_refused(harness: RunningHarness) -> None:
    client = await harness.client()
    with pytest.raises(TaskNotFoundError):
        await client.get_task(GetTaskRequest(id="missing"))
    with pytest.raises(TaskNotFoundError):
        await client.cancel_task(CancelTaskRequest(id="missing"))
    with pytest.raises(TaskNotFoundError):
        await collect(client.subscribe(SubscribeToTaskRequest(id="missing")))
    done = await harness.control_task()
    with pytest.raises(TaskNotCancelableError):
        await client.cancel_task(CancelTaskRequest(id=done))
    with pytest.raises(UnsupportedOperationError):
        await collect(client.subscribe(SubscribeToTaskRequest(id=done)))
    assert await harness.workflows_once_visible({done}) == {done}


async def test_unknown_rest_route_is_not_found(harness: RunningHarness) -> None:
    answer = await harness.http.get(harness.url + "/rest/tasks/missing", headers=JSONRPC_HEADERS)
    assert answer.status_code == 404

"""The task extension at the A2A boundary: a message may carry a task envelope, which is
validated before anything starts and folded into the task's metadata; a bad one, or an
extension the card does not offer, is refused and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from a2a.types import (
    GetTaskRequest,
    Message,
    SendMessageRequest,
    TaskState,
    TaskStatusUpdateEvent,
)
from a2a.utils.errors import InvalidParamsError
from google.protobuf import json_format
from temporalio.client import Client

from tests.support import (
    ASKS_WHICH_SIZE,
    BINDINGS,
    RunningHarness,
    collect,
    ext_as_set,
    running_harness,
    user_message,
)
from tiny_harness.harness.tasks.extension import (
    EVENT_MEDIA_TYPE,
    TASK_EXTENSION_URI,
    EventEnvelope,
    TaskExtensionData,
    envelope_part,
)

ASKS = ASKS_WHICH_SIZE


def with_envelope(message: Message, ext: TaskExtensionData) -> Message:
    message.parts.append(envelope_part(EventEnvelope.of_task(ext)))
    return message


def raw_envelope(message: Message, envelope: dict[str, object]) -> Message:
    part = envelope_part(EventEnvelope.of_task(TaskExtensionData()))
    part.data.Clear()
    json_format.ParseDict(envelope, part.data)
    message.parts.append(part)
    return message


async def send(h: RunningHarness, message: Message, binding: str = "JSONRPC") -> list[object]:
    client = await h.client(binding)
    return list(await collect(client.send_message(SendMessageRequest(message=message))))


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_task_envelope_is_kept_in_the_task_metadata_and_updated_by_a_later_one(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS) as h:
        first = with_envelope(
            user_message("order a shirt"), TaskExtensionData(name="shirt", goal="order one")
        )
        events = await send(h, first, binding)
        task_id = events[0].task.id  # type: ignore[attr-defined]
        later = with_envelope(
            user_message("M", task_id=task_id), TaskExtensionData(description="size M")
        )
        await send(h, later, binding)
        task = await (await h.client(binding)).get_task(GetTaskRequest(id=task_id))

    assert ext_as_set(task) == TaskExtensionData(
        name="shirt", goal="order one", description="size M"
    )


@pytest.mark.parametrize(
    ("envelope", "why"),
    [
        ({"kind": "task", "payload": {"name": "x", "colour": "red"}}, "Extra inputs"),
        ({"kind": "task", "payload": {"name": "x" * 201}}, "at most 200"),
        ({"kind": "weather", "payload": {}}, "kind"),
        (
            {
                "kind": "status_update",
                "payload": json_format.MessageToDict(TaskStatusUpdateEvent(task_id="t")),
            },
            "status_update envelope is news of a sub-task",
        ),
    ],
    ids=["extra-key", "too-long", "unknown-kind", "status-update"],
)
async def test_a_bad_envelope_on_a_new_task_is_invalid_params_and_starts_nothing(
    temporal_client: Client, tmp_path: Path, envelope: dict[str, object], why: str
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS) as h:
        with pytest.raises(InvalidParamsError, match=why):
            await send(h, raw_envelope(user_message("order"), envelope))
        control = await h.control_task()
        started = await h.workflows_once_visible({control})

    assert started == {control}


async def test_a_bad_envelope_in_a_reply_is_refused_and_the_task_still_waits(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS) as h:
        events = await send(h, user_message("order a shirt"))
        task_id = events[0].task.id  # type: ignore[attr-defined]
        client = await h.client()
        before = await client.get_task(GetTaskRequest(id=task_id))
        bad = raw_envelope(user_message("M", task_id=task_id), {"kind": "task", "payload": 3})
        with pytest.raises(InvalidParamsError):
            await send(h, bad)
        after = await client.get_task(GetTaskRequest(id=task_id))

    assert after.status.state == before.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert list(after.history) == list(before.history)


async def test_an_extension_the_card_does_not_offer_is_refused(
    temporal_client: Client, tmp_path: Path
) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
    }
    async with running_harness(temporal_client, tmp_path, ASKS) as h:
        headers = {"A2A-Version": "1.0", "content-type": "application/json"}
        offered = await h.http.post(
            h.url + "/",
            content=json.dumps(body),
            headers=headers | {"A2A-Extensions": TASK_EXTENSION_URI},
        )
        body["params"]["message"]["messageId"] = "m-2"  # type: ignore[index]
        unknown = await h.http.post(
            h.url + "/",
            content=json.dumps(body),
            headers=headers | {"A2A-Extensions": "https://example.org/ext/unknown/v1"},
        )

    assert "result" in offered.json()
    assert unknown.json()["error"]["code"] == -32004  # UnsupportedOperationError
    assert "https://example.org/ext/unknown/v1" in unknown.json()["error"]["message"]


def test_the_envelope_media_type_is_the_one_the_card_documents() -> None:
    assert EVENT_MEDIA_TYPE == "application/vnd.tiny-harness.event+json"

"""A2UI on a task: what the model draws is shown and recorded; a user's action on it
reaches the model; an action on anything the task never drew is discarded (abuse case 9).
Through the A2A server, a real worker and the dev server."""

from __future__ import annotations

from pathlib import Path

import pytest
from a2a.helpers import new_data_part
from a2a.types import GetTaskRequest, Message, Role, SendMessageRequest, TaskState
from a2a.utils.errors import InvalidParamsError
from google.protobuf import json_format
from pydantic import JsonValue
from temporalio.client import Client

from tests.support import collect, llm_requests, running_harness, send_request
from tiny_harness.errors import A2uiMessageError
from tiny_harness.harness.a2ui.messages import (
    A2UI_MEDIA_TYPE,
    Action,
    ServerMessage,
    action_part,
    actions_in,
)
from tiny_harness.harness.a2ui.surfaces import draw, knows, without_forged
from tiny_harness.harness.models.llm import UserItem

PICK_A_SIZE = """
turns:
  - tool_calls:
      - name: emit_ui
        arguments:
          text: "Pick a size"
          messages:
            - {version: v0.9.1, createSurface: {surfaceId: sizes,
               catalogId: "https://a2ui.org/specification/v0_9/basic_catalog.json"}}
            - {version: v0.9.1, updateComponents: {surfaceId: sizes, components: [
                {id: root, component: Column, children: [pick]},
                {id: pick, component: Button, child: label, action: {event: {name: choose}}},
                {id: label, component: Text, text: "M"}]}}
      - {name: ask_participant, arguments: {question: "Which size?"}}
  - when: "UI action 'choose'"
    text: "Size chosen."
"""


def action(
    surface: str, component: str, *, task_id: str, name: str = "choose"
) -> SendMessageRequest:
    """A renderer's action message on the task, answered as soon as it is taken."""
    body: dict[str, JsonValue] = {
        "version": "v0.9.1",
        "action": {
            "name": name,
            "surfaceId": surface,
            "sourceComponentId": component,
            "timestamp": "2026-12-01T10:00:00Z",
            "context": {"size": "M"},
        },
    }
    message = Message(message_id=f"{surface}-{component}", role=Role.ROLE_USER, task_id=task_id)
    message.parts.append(new_data_part(body, media_type=A2UI_MEDIA_TYPE))
    request = SendMessageRequest(message=message)
    request.configuration.return_immediately = True
    return request


async def test_an_action_on_a_drawn_control_reaches_the_model_and_a_forged_one_does_not(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, PICK_A_SIZE) as h:
        client = await h.client()
        quick = await h.client(streaming=False)
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        # A control the agent never offered, and a surface it never drew.
        await collect(quick.send_message(action("sizes", "make-me-admin", task_id=task_id)))
        await collect(quick.send_message(action("elsewhere", "pick", task_id=task_id)))
        waiting = await client.get_task(GetTaskRequest(id=task_id))
        await collect(quick.send_message(action("sizes", "pick", task_id=task_id)))
        await temporal_client.get_workflow_handle(task_id).result()
        done = await client.get_task(GetTaskRequest(id=task_id))
        requests = await llm_requests(temporal_client, task_id)

    shown = [
        json_format.MessageToDict(p.data)
        for e in first
        if e.HasField("status_update")
        for p in e.status_update.status.message.parts
        if p.media_type == A2UI_MEDIA_TYPE
    ]
    assert [next(k for k in m if k != "version") for m in shown] == [
        "createSurface",
        "updateComponents",
    ]
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert done.artifacts[-1].parts[0].text == "Size chosen."
    seen = [i.text for r in requests for i in r.input if isinstance(i, UserItem)]
    assert any("UI action 'choose' on surface 'sizes', component 'pick'" in t for t in seen)
    assert not any("make-me-admin" in t or "elsewhere" in t for t in seen)
    # The forged actions are kept in the task's history, never given to the model.
    ids = [m.message_id for m in done.history]
    assert {"sizes-make-me-admin", "elsewhere-pick", "sizes-pick"} <= set(ids)


async def test_an_a2ui_part_that_is_no_client_message_is_invalid_params(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, PICK_A_SIZE) as h:
        client = await h.client(streaming=False)
        request = send_request("order a shirt")
        request.message.parts.append(
            new_data_part({"action": {"name": "choose"}}, media_type=A2UI_MEDIA_TYPE)
        )
        with pytest.raises(InvalidParamsError, match="surfaceId"):
            await collect(client.send_message(request))
        control = await h.control_task()
        started = await h.workflows_once_visible({control})

    assert started == {control}


def test_a_surface_must_exist_before_its_components_and_only_once() -> None:
    surfaces: dict[str, list[str]] = {}
    create = ServerMessage.model_validate({"createSurface": {"surfaceId": "s"}})
    update = ServerMessage.model_validate(
        {"updateComponents": {"surfaceId": "s", "components": [{"id": "b", "component": "Button"}]}}
    )
    with pytest.raises(A2uiMessageError, match="no surface 's'"):
        draw(surfaces, update)

    draw(surfaces, create)
    draw(surfaces, update)
    with pytest.raises(A2uiMessageError, match="exists already"):
        draw(surfaces, create)

    assert knows(surfaces, Action(name="go", surfaceId="s", sourceComponentId="b"))
    assert not knows(surfaces, Action(name="go", surfaceId="s", sourceComponentId="x"))
    draw(surfaces, ServerMessage.model_validate({"deleteSurface": {"surfaceId": "s"}}))
    assert not knows(surfaces, Action(name="go", surfaceId="s", sourceComponentId="b"))


def test_a_server_message_has_exactly_one_kind() -> None:
    with pytest.raises(ValueError, match="exactly one of"):
        ServerMessage.model_validate(
            {"createSurface": {"surfaceId": "s"}, "deleteSurface": {"surfaceId": "s"}}
        )


def test_without_forged_keeps_the_text_and_the_known_actions() -> None:
    message = Message(message_id="m", role=Role.ROLE_USER)
    message.parts.add(text="here")
    for component in ("b", "forged"):
        body: dict[str, JsonValue] = {
            "action": {"name": "go", "surfaceId": "s", "sourceComponentId": component}
        }
        message.parts.append(new_data_part(body, media_type=A2UI_MEDIA_TYPE))

    kept, forged = without_forged(message, {"s": ["b"]})

    assert [a.sourceComponentId for a in forged] == ["forged"]
    assert kept is not None
    assert [a.sourceComponentId for _, a in actions_in(kept)] == ["b"]
    assert kept.parts[0].text == "here"


def test_an_action_part_reads_back_as_the_action_it_carries() -> None:
    action = Action(
        name="pick",
        surfaceId="shirt",
        sourceComponentId="m",
        timestamp="2026-12-05T18:00:00Z",
        context={"size": "M"},
    )
    message = Message(message_id="m-1", role=Role.ROLE_USER, parts=[action_part(action)])
    assert actions_in(message) == [(0, action)]
    assert json_format.MessageToDict(message.parts[0].data)["version"] == "v0.9.1"

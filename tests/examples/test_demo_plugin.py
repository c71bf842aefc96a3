"""`examples/demo-plugin` run as its README says, by `tiny-harness serve`, and played through
by a real A2A client: a plan, a skill and its reference read, a catalogue lookup, an order
the plugin's hook vetoes and the model recovers from, a question, an A2UI form whose button
the person presses, and exactly one order placed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import httpx
import pytest
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.types import GetTaskRequest, Message, Role, SendMessageRequest, StreamResponse
from google.protobuf.json_format import MessageToDict
from temporalio.testing import WorkflowEnvironment

from tests.service.serve_process import ServeProcess
from tests.support import call_events, collect, send_request, states, streamed_messages
from tiny_harness.harness.a2ui.messages import A2UI_MEDIA_TYPE, Action, action_part
from tiny_harness.harness.tasks.calls import CallEvent
from tiny_harness.harness.tasks.extension import ext_of
from tiny_harness.harness.tasks.plan import PLAN_MEDIA_TYPE, Plan
from tiny_harness.service.http import free_port

pytestmark = pytest.mark.timeout(120)

EXAMPLE = Path(__file__).parents[2] / "examples" / "demo-plugin"


def demo_serve(
    temporal_env: WorkflowEnvironment,
    tmp_path: Path,
    name: str = "demo",
    port: int | None = None,
    **extra: str,
) -> ServeProcess:
    """`serve` with the README's two variables (and `extra`), on the shared dev server, on
    `port` (None: a free one)."""
    env = {
        "TINY_HARNESS_PLUGINS": str(EXAMPLE),
        "TINY_HARNESS_MODEL__SCRIPT": str(EXAMPLE / "script.yaml"),
        "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"{name}-{tmp_path.name}",
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        # As the README's PATH: the plugin's servers run `python` with `mcp` installed.
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        **extra,
    }
    return ServeProcess(tmp_path / name, port or free_port(), env)


def ended(calls: list[CallEvent]) -> dict[str, list[CallEvent]]:
    """The calls that ended, by name."""
    found: dict[str, list[CallEvent]] = {}
    for call in calls:
        if call.state != "started":
            found.setdefault(call.name, []).append(call)
    return found


def has_surface(events: list[StreamResponse]) -> bool:
    """Whether the agent sent an A2UI message on the stream."""
    return any(
        part.media_type.startswith(A2UI_MEDIA_TYPE)
        for message in streamed_messages(events)
        for part in message.parts
    )


async def demo_client(http: httpx.AsyncClient, url: str) -> Client:
    """An a2a-sdk streaming client of the agent at `url`, over `http`."""
    return await ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create_from_url(url)


def pressed(task_id: str, size: str) -> SendMessageRequest:
    """The message the web UI sends when the person presses the form's `size` button."""
    action = Action(
        name="size", surfaceId="size", sourceComponentId=size.lower(), context={"size": size}
    )
    message = Message(
        message_id=f"press-{size}",
        task_id=task_id,
        role=Role.ROLE_USER,
        parts=[action_part(action)],
    )
    return SendMessageRequest(message=message)


async def test_the_demo_orders_ten_shirts_once_after_the_hook_vetoes_forty(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    serve = demo_serve(temporal_env, tmp_path)
    await serve.start()
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            client = await demo_client(http, serve.url)
            asked = await collect(
                client.send_message(send_request("Order team shirts for the offsite, 40 people."))
            )
            task_id = asked[0].task.id
            form = await collect(client.send_message(send_request("Order 10 now", task_id=task_id)))
            done = await collect(client.send_message(pressed(task_id, "L")))
            task = await client.get_task(GetTaskRequest(id=task_id))
    finally:
        assert await serve.stop() == 0

    assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
    first = ended(call_events(streamed_messages(asked)))
    assert [c.state for c in first["shop.store.find_items"]] == ["completed"]
    assert "TS-100" in str(first["shop.store.find_items"][0].result)
    assert [c.state for c in first["load_skill_resource"]] == ["completed"]
    (vetoed,) = first["shop.store.place_order"]
    assert vetoed.state == "vetoed"
    assert "manager's approval" in str(vetoed.result)
    assert states(form)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert has_surface(form)
    assert states(done)[-1] == "TASK_STATE_COMPLETED"
    # The reply's stream opens with the whole task: both orders, the vetoed one first.
    orders = ended(call_events(streamed_messages(done)))["shop.store.place_order"]
    assert [(c.state, c.arguments) for c in orders] == [
        ("vetoed", {"sku": "TS-100", "quantity": 40, "size": "M"}),
        ("completed", {"sku": "TS-100", "quantity": 10, "size": "L"}),
    ]
    (answer,) = [e.artifact_update.artifact for e in done if e.HasField("artifact_update")]
    assert "in size L" in answer.parts[0].text
    # Each change of the plan is a plan part in the task's history, and GetTask's
    # extension data shows the plan as it stands: both say every step is done.
    plans = [
        Plan.model_validate(MessageToDict(part.data))
        for message in task.history
        for part in message.parts
        if part.media_type == PLAN_MEDIA_TYPE
    ]
    ext = ext_of(task)
    assert ext is not None
    assert ext.plan == plans[-1]
    assert [(step.id, step.state) for step in plans[-1].steps] == [
        ("find", "done"),
        ("size", "done"),
        ("order", "done"),
    ]
    # The store wrote down one order: the vetoed one never reached it.
    (written,) = (tmp_path / "demo").rglob("orders.jsonl")
    lines = [json.loads(line) for line in written.read_text().splitlines()]
    assert lines == [{"order": "A-0001", "sku": "TS-100", "quantity": 10, "size": "L"}]


async def test_the_demo_delegates_to_the_shop_agent_as_make_demo_runs_it(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """`make demo`'s second harness (examples/two-harnesses/child.toml) as the agent `shop`:
    the demo's delegation turns hand it the work and relay its question."""
    child_config = ("--config", str(EXAMPLE.parent / "two-harnesses" / "child.toml"))
    address = temporal_env.client.service_client.config.target_host
    shop = ServeProcess(
        tmp_path / "shop",
        free_port(),
        {
            "TINY_HARNESS_TEMPORAL__ADDRESS": address,
            "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"shop-{tmp_path.name}",
            "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        },
        args=child_config,
    )
    await shop.start()
    port = free_port()
    demo = demo_serve(
        temporal_env,
        tmp_path,
        port=port,
        TINY_HARNESS_AGENTS=json.dumps([{"id": "shop", "url": shop.url}]),
        TINY_HARNESS_SERVER__BASE_URL=f"http://127.0.0.1:{port}",
    )
    await demo.start()
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            client = await demo_client(http, demo.url)
            asked = await collect(
                client.send_message(send_request("Ask the shop agent for one shirt"))
            )
            task_id = asked[0].task.id
            done = await collect(client.send_message(send_request("M", task_id=task_id)))
    finally:
        assert await demo.stop() == 0
        assert await shop.stop() == 0

    assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
    question = [p.text for m in streamed_messages(asked) for p in m.parts if p.text]
    assert "The shop agent asks: which size?" in question
    assert states(done)[-1] == "TASK_STATE_COMPLETED"
    (answer,) = [e.artifact_update.artifact for e in done if e.HasField("artifact_update")]
    assert answer.parts[0].text == "Done: the shop agent ordered your shirt."

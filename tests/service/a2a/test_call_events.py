"""Every model and tool call of a task is told on its stream, as it starts and as it ends.

A real harness on 127.0.0.1, the SDK client on both bindings, a plugin hook that vetoes one
call. The script makes a plan (its step name holds a credential), completes step a, has
step b vetoed, calls a tool that does not exist, and then asks a question: the task waits,
so a late subscriber can join before the reply completes it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from a2a.types import (
    GetTaskRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)
from google.protobuf.json_format import MessageToJson
from temporalio.client import Client

from tests.service.durable.test_extension_points import NAMESPACE, write_plugin
from tests.support import (
    BINDINGS,
    call_events,
    collect,
    running_harness,
    send_request,
    states,
    streamed_messages,
)
from tiny_harness.harness.tasks.calls import CallEvent, CallKind, CallState, calls_in

CREDENTIAL = "ghp_" + "CaLlEvEnTsCrEdEnTiAl0123456789abcdef"

SCRIPT = f"""
turns:
  - tool_calls:
      - name: create_plan
        arguments: {{steps: [{{id: a, name: "first {CREDENTIAL}"}}, {{id: b, name: second}}]}}
  - tool_calls:
      - {{name: complete_step, arguments: {{step_id: a, output: done a}}}}
      - {{name: complete_step, arguments: {{step_id: b, output: done b}}}}
      - {{name: no_such_tool, arguments: {{note: "Bearer {CREDENTIAL}"}}}}
  - tool_calls: [{{name: ask_participant, arguments: {{question: "Anything else?"}}}}]
  - text: "All done."
"""

VETO_B = [{"name": "veto", "import_path": "tests.service.durable.plugin_hooks:veto_step_b"}]

pytestmark = pytest.mark.timeout(120)


def told(events: list[CallEvent]) -> list[tuple[str, str, str]]:
    return [(e.kind.value, e.name, e.state.value) for e in events if e.kind is CallKind.TOOL]


EXPECTED_TOOLS = [
    ("tool", "create_plan", "started"),
    ("tool", "create_plan", "completed"),
    ("tool", "complete_step", "started"),
    ("tool", "complete_step", "completed"),
    ("tool", "complete_step", "started"),
    ("tool", "complete_step", "vetoed"),
    ("tool", "no_such_tool", "started"),
    ("tool", "no_such_tool", "failed"),
    ("tool", "ask_participant", "started"),
    ("tool", "ask_participant", "completed"),
]


def check_calls(events: list[CallEvent]) -> None:
    """Each call starts once, then ends once, in the order the model made them; its end
    says how long it took and what it gave."""
    assert told(events) == EXPECTED_TOOLS
    starts = [e.call_id for e in events if e.state is CallState.STARTED]
    ends = [e.call_id for e in events if e.state is not CallState.STARTED]
    assert len(starts) == len(set(starts))
    assert sorted(starts) == sorted(ends)
    for event in events:
        if event.state is CallState.STARTED:
            assert event.duration_ms is None
            assert event.result is None
        else:
            assert event.duration_ms is not None
            assert event.duration_ms >= 0
    ended = {e.call_id: e for e in events if e.state is not CallState.STARTED}
    vetoed = next(e for e in ended.values() if e.state is CallState.VETOED)
    assert vetoed.arguments == {"step_id": "b", "output": "done b"}
    assert vetoed.result is not None
    assert "step b needs a human" in vetoed.result
    failed = next(e for e in ended.values() if e.state is CallState.FAILED)
    assert failed.result is not None
    assert "no_such_tool" in failed.result
    assert failed.result_chars == len(failed.result)
    models = [e for e in ended.values() if e.kind is CallKind.MODEL]
    assert [m.call_id for m in models] == ["model-1", "model-2", "model-3"]
    assert all(m.name == "test" and m.state is CallState.COMPLETED for m in models)
    assert all(m.input_tokens and m.output_tokens is not None for m in models)


@pytest.mark.parametrize("binding", BINDINGS)
async def test_each_call_is_told_once_as_it_starts_and_ends_and_a_late_subscriber_sees_them(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    plugin = write_plugin(tmp_path, "veto", {f"{NAMESPACE}/hooks.json": json.dumps(VETO_B)})
    async with running_harness(temporal_client, tmp_path, SCRIPT, plugins=[plugin]) as h:
        client = await h.client(binding)
        sent = await collect(client.send_message(send_request("go")))
        assert states(sent)[-1] == "TASK_STATE_INPUT_REQUIRED"
        task_id = sent[0].task.id
        late = client.subscribe(SubscribeToTaskRequest(id=task_id))
        opening = await anext(late)
        reply = send_request("no, thanks", task_id=task_id, context_id=sent[0].task.context_id)
        await collect(client.send_message(reply))
        rest = await asyncio.wait_for(collect(late), timeout=60)
        task = await client.get_task(GetTaskRequest(id=task_id))

    streamed = call_events(streamed_messages(sent))
    check_calls(streamed)
    for event in sent:
        if event.HasField("status_update") and calls_in(event.status_update.status.message):
            # A call is news in the task's current state, never a change of it.
            assert event.status_update.status.state == TaskState.TASK_STATE_WORKING
    # The late subscriber reads every call the stream told in the task's history.
    assert call_events(list(opening.task.history)) == streamed
    after = call_events(streamed_messages(rest))
    assert [(e.call_id, e.state.value) for e in after] == [
        ("model-4", "started"),
        ("model-4", "completed"),
    ]
    # GetTask keeps them too, in order.
    assert call_events(list(task.history)) == streamed + after
    assert_no_credential(sent, task)


def assert_no_credential(events: list[StreamResponse], task: Task) -> None:
    wire = [MessageToJson(e) for e in events] + [MessageToJson(task)]
    assert not any(CREDENTIAL in text for text in wire)
    plan = next(e for e in call_events(streamed_messages(events)) if e.name == "create_plan")
    assert "[redacted:" in json.dumps(plan.arguments)
    ended = [e for e in call_events(list(task.history)) if e.name == "create_plan"][-1]
    assert ended.result is not None
    assert "[redacted:" in ended.result


async def test_a_deployment_may_show_only_the_names_and_outcomes_of_calls(
    temporal_client: Client, tmp_path: Path
) -> None:
    plugin = write_plugin(tmp_path, "veto", {f"{NAMESPACE}/hooks.json": json.dumps(VETO_B)})
    async with running_harness(
        temporal_client, tmp_path, SCRIPT, plugins=[plugin], show_call_details=False
    ) as h:
        sent = await collect((await h.client()).send_message(send_request("go")))
    events = call_events(streamed_messages(sent))
    assert told(events) == EXPECTED_TOOLS
    assert all(e.arguments is None and e.result is None for e in events)
    assert all(e.result_chars is None for e in events)

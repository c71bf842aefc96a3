"""A plugin folder changes what the agent does, on a real Temporal dev server.

Each test writes a plugin into tmp_path, starts a harness with it, runs a scripted task and
reads what the model was actually sent from the workflow's history.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from a2a.helpers import get_message_text
from a2a.types import GetTaskRequest, TaskState
from temporalio.client import Client

from tests.service.durable import plugin_hooks
from tests.support import (
    collect,
    llm_requests,
    offered_tools,
    running_harness,
    send_request,
    states,
    tool_output,
)
from tiny_harness.harness.models.llm import ToolResultItem
from tiny_harness.harness.persistence.records import RecordKind
from tiny_harness.harness.tools.intrinsics import intrinsic_definitions
from tiny_harness.service.http import free_port

CALCULATOR = Path(__file__).parents[2] / "fixtures" / "mcp_servers" / "calculator.py"
NAMESPACE = "io.github.madarauchiha-314.tiny-harness"


def write_plugin(root: Path, name: str, files: dict[str, str]) -> Path:
    plugin = root / name
    (plugin / NAMESPACE).mkdir(parents=True)
    (plugin / "plugin.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    for relative, text in files.items():
        path = plugin / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return plugin


def tool_results(request_input: tuple[object, ...]) -> list[ToolResultItem]:
    return [item for item in request_input if isinstance(item, ToolResultItem)]


async def test_plugin_system_prompt_replaces_the_default_and_the_model_sees_it(
    temporal_client: Client, tmp_path: Path
) -> None:
    plugin = write_plugin(
        tmp_path,
        "pirate",
        {f"{NAMESPACE}/systemprompt.md": "## role\nYou are a pirate.\n\n## rules\nSay arr.\n"},
    )
    script = "turns:\n  - text: arr\n"
    async with running_harness(temporal_client, tmp_path, script, plugins=[plugin]) as harness:
        events = await collect((await harness.client()).send_message(send_request("hi")))
        requests = await llm_requests(temporal_client, events[0].task.id)
    assert requests[0].instructions.startswith("## role\nYou are a pirate.")
    assert "You are tiny-harness" not in requests[0].instructions


async def test_plugin_prompt_extends_one_section_of_the_default(
    temporal_client: Client, tmp_path: Path
) -> None:
    plugin = write_plugin(
        tmp_path,
        "polite",
        {f"{NAMESPACE}/prompts/please.md": "---\nextends: rules\n---\nAlways say please.\n"},
    )
    async with running_harness(
        temporal_client, tmp_path, "turns:\n  - text: ok\n", plugins=[plugin]
    ) as harness:
        events = await collect((await harness.client()).send_message(send_request("hi")))
        requests = await llm_requests(temporal_client, events[0].task.id)
    rules = requests[0].instructions.split("## rules", 1)[1]
    assert "Always say please." in rules
    assert "You are tiny-harness" in requests[0].instructions


VETO_SCRIPT = """
turns:
  - tool_calls:
      - name: create_plan
        arguments: {steps: [{id: a, name: first}, {id: b, name: second, depends_on: [a]}]}
  - tool_calls:
      - {name: complete_step, arguments: {step_id: a, output: done a}}
      - {name: complete_step, arguments: {step_id: b, output: done b}}
  - text: finished
"""


async def test_pre_hook_vetoes_one_tool_call_and_the_model_reads_the_refusal(
    temporal_client: Client, tmp_path: Path
) -> None:
    hooks = [{"name": "veto", "import_path": "tests.service.durable.plugin_hooks:veto_step_b"}]
    plugin = write_plugin(tmp_path, "veto", {f"{NAMESPACE}/hooks.json": json.dumps(hooks)})
    async with running_harness(temporal_client, tmp_path, VETO_SCRIPT, plugins=[plugin]) as h:
        events = await collect((await h.client()).send_message(send_request("go")))
        requests = await llm_requests(temporal_client, events[0].task.id)
        task = await (await h.client()).get_task(GetTaskRequest(id=events[0].task.id))
    results = tool_results(requests[-1].input)
    by_step = {r.call_id: r for r in results}
    refused = [r for r in results if r.is_error]
    assert len(refused) == 1
    assert "refused by hook: policy: step b needs a human" in refused[0].text
    assert any(not r.is_error and tool_output(r.text) == "Step a done." for r in by_step.values())
    assert task.status.state == TaskState.TASK_STATE_COMPLETED


async def test_in_hook_at_lower_priority_replaces_the_default_body(
    temporal_client: Client, tmp_path: Path
) -> None:
    hooks = [
        {
            "name": "skip-store",
            "priority": 10,
            "import_path": "tests.service.durable.plugin_hooks:skip_store",
        }
    ]
    plugin = write_plugin(tmp_path, "nostore", {f"{NAMESPACE}/hooks.json": json.dumps(hooks)})
    async with running_harness(
        temporal_client, tmp_path, "turns:\n  - text: ok\n", plugins=[plugin]
    ) as harness:
        events = await collect((await harness.client()).send_message(send_request("hi")))
        task_id = events[0].task.id
        await temporal_client.get_workflow_handle(task_id).result()
        stored = await harness.store.get_task(task_id)
        audits = await harness.store.records(RecordKind.INBOX_AUDIT, task_id)
        states_kept = await harness.store.records(RecordKind.STATE, task_id)
    # The hook took over every record's write: the store has none of them.
    assert task_id in plugin_hooks.SKIPPED_WRITES
    assert audits == ()
    assert states_kept == ()
    # The task's log is not a record a hook routes: every reader reads it from the store.
    assert stored is not None
    assert stored.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert states(events)[-1] == "TASK_STATE_COMPLETED"


SKILL_SCRIPT = """
turns:
  - tool_calls: [{name: calc.add, arguments: {a: 2, b: 3}}]
  - tool_calls: [{name: load_skill, arguments: {name: calc}}]
  - tool_calls: [{name: calc.add, arguments: {a: 2, b: 3}}]
  - text: five
"""


def _calc_plugin(tmp_path: Path) -> Path:
    """A plugin with one skill, `calc`, whose MCP server (the calculator) adds numbers."""
    launcher = f'#!/bin/sh\nexec "$TEST_PYTHON" "{CALCULATOR}"\n'
    mcp = {
        "mcpServers": {
            "calculator": {"command": "./serve.sh", "env": {"TEST_PYTHON": sys.executable}}
        }
    }
    skill_md = "---\nname: calc\ndescription: Adds numbers with a calculator.\n---\nUse calc.add.\n"
    plugin = write_plugin(
        tmp_path,
        "calc-plugin",
        {
            "skills/calc/SKILL.md": skill_md,
            "skills/calc/mcp.json": json.dumps(mcp),
            "skills/calc/serve.sh": launcher,
        },
    )
    (plugin / "skills/calc/serve.sh").chmod(0o755)
    return plugin


async def test_skill_mcp_tool_is_callable_after_load_skill_and_not_before(
    temporal_client: Client, tmp_path: Path
) -> None:
    plugin = _calc_plugin(tmp_path)
    async with running_harness(temporal_client, tmp_path, SKILL_SCRIPT, plugins=[plugin]) as h:
        events = await collect((await h.client()).send_message(send_request("add 2 and 3")))
        requests = await llm_requests(temporal_client, events[0].task.id)
        offered = await offered_tools(temporal_client, events[0].task.id)
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    first_tools = offered[0]
    assert "load_skill" in first_tools
    assert "calc.add" not in first_tools
    assert "- calc: Adds numbers with a calculator." in requests[0].instructions
    before, loaded, after = tool_results(requests[-1].input)
    assert before.is_error
    assert "load_skill it first" in before.text
    assert "Skill 'calc' loaded" in loaded.text
    assert not after.is_error
    assert tool_output(after.text) == '{"total": 5}'
    assert "calc.add" in offered[-1]
    assert "## skill:calc\nUse calc.add." in requests[-1].instructions


UNLOAD_SCRIPT = """
turns:
  - tool_calls: [{name: load_skill, arguments: {name: calc}}]
  - tool_calls: [{name: unload_skill, arguments: {name: calc}}]
  - tool_calls: [{name: calc.add, arguments: {a: 2, b: 3}}]
  - text: done
"""


async def test_unload_skill_takes_its_section_and_tools_out_of_what_the_model_is_sent_next(
    temporal_client: Client, tmp_path: Path
) -> None:
    plugin = _calc_plugin(tmp_path)
    async with running_harness(temporal_client, tmp_path, UNLOAD_SCRIPT, plugins=[plugin]) as h:
        events = await collect((await h.client()).send_message(send_request("add 2 and 3")))
        requests = await llm_requests(temporal_client, events[0].task.id)
        offered = await offered_tools(temporal_client, events[0].task.id)
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    loaded, unloaded, after = requests[1], requests[2], requests[3]
    assert "calc.add" in offered[1]
    assert "## skill:calc\nUse calc.add." in loaded.instructions
    assert "calc.add" not in offered[2]
    assert "## skill:calc" not in unloaded.instructions
    assert "- calc: Adds numbers with a calculator." in unloaded.instructions  # still listed
    *_, removed, refused = tool_results(after.input)
    assert "Skill 'calc' unloaded" in removed.text
    assert refused.is_error
    assert "load_skill it first" in refused.text


@pytest.mark.timeout(90)
async def test_unreachable_remote_hook_fails_the_operation_closed(
    temporal_client: Client, tmp_path: Path
) -> None:
    """Nothing passes a hook that cannot be asked: the call never runs and the task fails
    after the activity's retries."""
    url = f"http://127.0.0.1:{free_port()}/hook"
    hooks = [{"name": "gatekeeper", "points": ["tool.invoked.pre"], "url": url}]
    plugin = write_plugin(tmp_path, "gate", {f"{NAMESPACE}/hooks.json": json.dumps(hooks)})
    async with running_harness(temporal_client, tmp_path, VETO_SCRIPT, plugins=[plugin]) as h:
        events = await collect((await h.client()).send_message(send_request("go")))
    assert states(events)[-1] == "TASK_STATE_FAILED"
    texts = [
        get_message_text(e.status_update.status.message)
        for e in events
        if e.HasField("status_update") and e.status_update.status.HasField("message")
    ]
    assert not any(text.startswith("Plan:") for text in texts)
    assert "HookTransportError" in texts[-1]
    assert "gatekeeper" in texts[-1]


async def test_a_credential_a_persistence_hook_puts_in_a_record_is_masked_before_it_is_stored(
    temporal_client: Client, tmp_path: Path
) -> None:
    hooks = [
        {
            "name": "inject-credential",
            "priority": 10,
            "import_path": "tests.service.durable.plugin_hooks:inject_credential",
        }
    ]
    plugin = write_plugin(tmp_path, "careless", {f"{NAMESPACE}/hooks.json": json.dumps(hooks)})
    async with running_harness(
        temporal_client, tmp_path, "turns:\n  - text: ok\n", plugins=[plugin]
    ) as harness:
        events = await collect((await harness.client()).send_message(send_request("hi")))
        task_id = events[0].task.id
        await temporal_client.get_workflow_handle(task_id).result()
        kept = await harness.store.records(RecordKind.STATE, task_id)
        stored = harness.store.path.read_bytes()
        wal = harness.store.path.with_name(harness.store.path.name + "-wal")
        stored += wal.read_bytes() if wal.exists() else b""

    secret = plugin_hooks.INJECTED_CREDENTIAL.removeprefix("ghp_")
    assert kept  # the hook's record was written
    summaries = [getattr(record, "summary", "") or "" for record in kept]
    assert all(summary.startswith("deploy ") for summary in summaries)
    assert not any(secret in summary for summary in summaries)
    assert secret.encode() not in stored


async def test_llm_invoked_pre_sees_each_offered_tool_whole_while_history_only_names_them(
    temporal_client: Client, tmp_path: Path
) -> None:
    hooks = [{"name": "seen", "import_path": "tests.service.durable.plugin_hooks:offered_tools"}]
    plugin = write_plugin(tmp_path, "seen", {f"{NAMESPACE}/hooks.json": json.dumps(hooks)})
    script = (
        "turns:\n"
        "  - tool_calls: [{name: create_plan, arguments: {steps: [{id: a, name: a}]}}]\n"
        "  - text: planned\n"
    )
    async with running_harness(temporal_client, tmp_path, script, plugins=[plugin]) as h:
        events = await collect((await h.client()).send_message(send_request("go")))
        task_id = events[0].task.id
        history = await temporal_client.get_workflow_handle(task_id).fetch_history()
        offered = await offered_tools(temporal_client, task_id)
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    seen = plugin_hooks.OFFERED[task_id]
    assert len(seen) == len(offered) == 2
    # The plugin sees the tools the model is offered, whole, on every call...
    for tools in seen:
        assert {tool.name for tool in tools} >= {t.name for t in intrinsic_definitions()}
        assert all(definition in tools for definition in intrinsic_definitions())
    # ...as history names them, without carrying their definitions turn after turn.
    assert offered == [{tool.name for tool in tools} for tools in seen]
    description = intrinsic_definitions()[0].description
    assert all(description[:40] not in str(event) for event in history.events)

"""The workflow retries activities itself: hooks between attempts, and a tool that is not
idempotent never runs twice. On a real Temporal dev server."""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client

from tests.service.durable import plugin_hooks
from tests.service.durable.test_extension_points import CALCULATOR, NAMESPACE, write_plugin
from tests.support import (
    call_events,
    collect,
    llm_requests,
    running_harness,
    send_request,
    states,
    streamed_messages,
    tool_output,
)
from tiny_harness.harness.models.llm import ToolResultItem
from tiny_harness.harness.settings.retry import RetryPolicies, RetryPolicySpec

FAST = RetryPolicies(
    default=RetryPolicySpec(initial_interval=timedelta(milliseconds=50), maximum_attempts=3)
)

PLAN = """
turns:
  - tool_calls: [{name: create_plan, arguments: {steps: [{id: a, name: only}]}}]
  - text: planned
"""


def hooks_plugin(tmp_path: Path, *import_paths: str) -> Path:
    hooks = [{"name": path.rsplit(":", 1)[1], "import_path": path} for path in import_paths]
    return write_plugin(tmp_path, "retry-hooks", {f"{NAMESPACE}/hooks.json": json.dumps(hooks)})


def tool_results(items: tuple[object, ...]) -> list[ToolResultItem]:
    return [item for item in items if isinstance(item, ToolResultItem)]


async def test_failed_attempt_is_retried_with_hooks_between_attempts(
    temporal_client: Client, tmp_path: Path
) -> None:
    plugin = hooks_plugin(
        tmp_path,
        "tests.service.durable.plugin_hooks:flaky_first_attempt",
        "tests.service.durable.plugin_hooks:retry_observer",
    )
    plugin_hooks.RETRIES_SEEN.clear()
    async with running_harness(
        temporal_client, tmp_path, PLAN, plugins=[plugin], retries=FAST
    ) as harness:
        events = await collect((await harness.client()).send_message(send_request("plan")))
        requests = await llm_requests(temporal_client, events[0].task.id)
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    [result] = tool_results(requests[-1].input)
    assert not result.is_error
    assert tool_output(result.text).startswith("Plan created")
    assert plugin_hooks.RETRIES_SEEN == [
        ("activity.failed.pre", "invoke_tool", 1),
        ("activity.retried.pre", "invoke_tool", 1),
    ]


DIVIDE = """
turns:
  - tool_calls: [{name: load_skill, arguments: {name: calc}}]
  - tool_calls: [{name: calc.divide, arguments: {a: 1, b: 2}}]
  - text: done
"""


async def test_non_idempotent_tool_is_not_retried_and_the_model_hears_why(
    temporal_client: Client, tmp_path: Path
) -> None:
    launcher = f'#!/bin/sh\nexec "$TEST_PYTHON" "{CALCULATOR}"\n'
    mcp = {
        "mcpServers": {
            "calculator": {"command": "./serve.sh", "env": {"TEST_PYTHON": sys.executable}}
        }
    }
    skill = "---\nname: calc\ndescription: A calculator.\n---\nUse calc tools.\n"
    hooks = [
        {"name": "flaky", "import_path": "tests.service.durable.plugin_hooks:flaky_first_attempt"}
    ]
    plugin = write_plugin(
        tmp_path,
        "calc-flaky",
        {
            "skills/calc/SKILL.md": skill,
            "skills/calc/mcp.json": json.dumps(mcp),
            "skills/calc/serve.sh": launcher,
            f"{NAMESPACE}/hooks.json": json.dumps(hooks),
        },
    )
    (plugin / "skills/calc/serve.sh").chmod(0o755)
    async with running_harness(
        temporal_client, tmp_path, DIVIDE, plugins=[plugin], retries=FAST
    ) as harness:
        events = await collect((await harness.client()).send_message(send_request("divide")))
        requests = await llm_requests(temporal_client, events[0].task.id)
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    results = {r.name: r for r in tool_results(requests[-1].input)}
    # load_skill is idempotent: its failed first attempt was retried and it succeeded.
    assert not results["load_skill"].is_error
    divide = results["calc.divide"]
    assert divide.is_error
    expected = "tool_not_retried: calc.divide failed and is not retried"
    assert tool_output(divide.text).startswith(expected)
    # The stream tells each call once, however many attempts it took, and how it ended.
    ended = [e for e in call_events(streamed_messages(events)) if e.state != "started"]
    tools = [(e.name, e.state.value) for e in ended if e.kind == "tool"]
    assert tools == [("load_skill", "completed"), ("calc.divide", "not_retried")]
    told = next(e for e in ended if e.name == "calc.divide")
    assert told.result is not None
    assert told.result.startswith(expected)

"""What one turn of the loop costs in Temporal: history events and activities per LLM turn,
with and without a tool call, and the wall time of a 20-turn task.

Run with: `.venv/bin/python bench/turns.py [--turns 20]`

It starts the harness in-process on an embedded Temporal dev server (as `tiny-harness
serve` does), runs scripted tasks through the real A2A client, then reads each task's
workflow history. A task of k tool turns plus the final answer is run for k = 0 and k = 1:
the difference is the cost of one turn with a tool call; k = 0 is the cost of a task whose
only turn answers. Activities are counted as Temporal sees them: ordinary activities
(scheduled events, one server round trip each) and local activities (marker events, run
inside a workflow task).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import new_text_message
from a2a.types import Role, SendMessageRequest
from temporalio.client import Client

from tiny_harness.config import load_settings
from tiny_harness.service.http import free_port
from tiny_harness.service.runtime import open_harness


@dataclass(frozen=True)
class TaskCost:
    """One task's history, counted."""

    seconds: float
    events: int
    activities: Counter[str]
    local_activities: int
    workflow_tasks: int


def script(tool_turns: int) -> str:
    """`tool_turns` turns that each complete one step, then the answer."""
    steps = ", ".join(f"{{id: s{i}, name: step {i}}}" for i in range(max(tool_turns, 1)))
    turns = []
    if tool_turns:
        turns.append(f"  - tool_calls: [{{name: create_plan, arguments: {{steps: [{steps}]}}}}]")
    for i in range(1, tool_turns):
        call = f"{{name: complete_step, arguments: {{step_id: s{i - 1}, output: ok}}}}"
        turns.append(f"  - tool_calls: [{call}]")
    turns.append("  - text: done")
    return "turns:\n" + "\n".join(turns) + "\n"


async def run_task(url: str, temporal: Client, http: httpx.AsyncClient) -> TaskCost:
    config = ClientConfig(
        streaming=True, supported_protocol_bindings=["JSONRPC"], httpx_client=http
    )
    client = await ClientFactory(config).create_from_url(url)
    message = new_text_message("go", role=Role.ROLE_USER)
    started = time.perf_counter()
    task_id = ""
    async for event in client.send_message(SendMessageRequest(message=message)):
        if event.HasField("task"):
            task_id = event.task.id
    seconds = time.perf_counter() - started
    handle = temporal.get_workflow_handle(task_id)
    await asyncio.wait_for(handle.result(), timeout=60)
    history = await handle.fetch_history()
    kinds = Counter(e.WhichOneof("attributes") for e in history.events)
    activities = Counter(
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    )
    return TaskCost(
        seconds=seconds,
        events=len(history.events),
        activities=activities,
        local_activities=kinds["marker_recorded_event_attributes"],
        workflow_tasks=kinds["workflow_task_completed_event_attributes"],
    )


async def cost_of(tool_turns: int, data_dir: Path) -> TaskCost:
    script_file = data_dir / f"script-{tool_turns}.yaml"
    script_file.write_text(script(tool_turns))
    settings = load_settings(
        overrides={
            "data_dir": data_dir / f"run-{tool_turns}",
            "server.port": free_port(),
            "temporal.embedded_port": 0,
            "model.script": script_file,
        },
        environ={},
    )
    async with AsyncExitStack() as stack, httpx.AsyncClient(timeout=60, trust_env=False) as http:
        harness = await open_harness(settings, stack)
        await run_task(harness.url, harness.temporal.client, http)  # warm-up, not counted
        return await run_task(harness.url, harness.temporal.client, http)


def describe(name: str, cost: TaskCost) -> str:
    ordinary = sum(cost.activities.values())
    parts = ", ".join(f"{k} {v}" for k, v in sorted(cost.activities.items()))
    return (
        f"{name:<28} {cost.seconds * 1000:8.1f} ms  {cost.events:4d} events  "
        f"{cost.workflow_tasks:3d} workflow tasks  {ordinary:3d} activities ({parts})  "
        f"{cost.local_activities:3d} local"
    )


async def main(turns: int) -> None:
    print(f"tiny-harness turn cost; python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="th-turns-") as tmp:
        root = Path(tmp)
        answer_only = await cost_of(0, root)
        one_tool = await cost_of(1, root)
        long_task = await cost_of(turns - 1, root)
    print(describe("1 turn (answer only)", answer_only))
    print(describe("2 turns (1 tool call)", one_tool))
    print(describe(f"{turns} turns ({turns - 1} tool calls)", long_task))
    per_turn_events = (long_task.events - answer_only.events) / (turns - 1)
    per_turn_ordinary = (
        sum(long_task.activities.values()) - sum(answer_only.activities.values())
    ) / (turns - 1)
    per_turn_local = (long_task.local_activities - answer_only.local_activities) / (turns - 1)
    print(
        f"per tool-call turn: {per_turn_events:.1f} history events, "
        f"{per_turn_ordinary:.1f} activities, {per_turn_local:.1f} local activities"
    )
    print(f"{turns}-turn task: {long_task.seconds:.2f} s end to end")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=20)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.turns))

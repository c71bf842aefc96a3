"""`examples/demo-run/run.py`, run as its README says on the session's Temporal dev server:
the demo across two worker crashes (one during a tool call, one while the task waits for
an answer) completes, and what it reports holds when checked here from the store's files
and the task's Temporal history on their own."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

pytestmark = pytest.mark.timeout(240)

RUN = Path(__file__).parents[2] / "examples" / "demo-run" / "run.py"


async def test_the_demo_survives_two_worker_crashes_and_nothing_runs_twice(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    address = temporal_env.client.service_client.config.target_host
    data = tmp_path / "run"
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, str(RUN), "--temporal", address, "--data-dir", str(data)),
        *("--screenshots", str(tmp_path / "images")),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    printed = output.decode()

    assert process.returncode == 0, printed
    lines = printed.splitlines()
    assert "crash: worker 1 killed during the catalogue lookup" in lines
    assert "crash: worker 2 killed while the task waits for an answer" in lines
    assert "verdict      no model call and no tool call ran twice" in lines
    (task_id,) = re.findall(r"^task (\S+): completed", printed, flags=re.MULTILINE)
    # The terminal UI's pictures of the finished task (the web UI's needs chromium).
    images = tmp_path / "images"
    conversation = (images / "demo-tui.svg").read_text().replace("&#160;", " ")
    assert "Ordered 10 navy team" in conversation
    timeline = (images / "demo-tui-timeline.svg").read_text().replace("&#160;", " ")
    assert "shop.store.find_items" in timeline
    assert "vetoed" in timeline
    # The store's own files: the lookup killed mid-call started twice and finished once;
    # the one order was placed once.
    shop = data / "plugins" / "demo-plugin"
    calls = Counter(
        " ".join(line.split()[:2]) for line in (shop / "calls.log").read_text().splitlines()
    )
    assert calls["start find_items"] == 2
    assert calls["end find_items"] == 1
    assert calls["start place_order"] == calls["end place_order"] == 1
    orders = [json.loads(line) for line in (shop / "orders.jsonl").read_text().splitlines()]
    assert [(o["quantity"], o["size"]) for o in orders] == [(10, "L")]
    # The history: every model call scheduled once and completed; one tool call lost.
    history = await temporal_env.client.get_workflow_handle(task_id).fetch_history()
    kinds = {
        e.event_id: e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    }
    ended: Counter[tuple[str, str]] = Counter()
    for event in history.events:
        field = event.WhichOneof("attributes") or ""
        outcome = field.removeprefix("activity_task_").removesuffix("_event_attributes")
        if outcome in ("completed", "timed_out", "failed"):
            ended[(kinds[getattr(event, field).scheduled_event_id], outcome)] += 1
    scheduled = Counter(kinds.values())
    assert ended[("invoke_llm", "completed")] == scheduled["invoke_llm"] > 0
    assert ended[("invoke_llm", "timed_out")] + ended[("invoke_llm", "failed")] == 0
    assert ended[("invoke_tool", "timed_out")] + ended[("invoke_tool", "failed")] == 1

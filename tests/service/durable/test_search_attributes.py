"""An operator finds tasks in Temporal by their A2A fields: each task workflow carries
`A2AContextId`, `A2ATaskState` and `TinyHarnessAgent` (its harness's task queue), kept
current as the task moves, through the real dev server's visibility."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from temporalio.client import Client

from tests.support import collect, running_harness, send_request, states
from tiny_harness.service.durable.client.searchable import register_search_attributes

ASK = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Which colour?"}}]
  - text: painted
"""


async def found(temporal: Client, query: str, expected: set[str]) -> set[str]:
    """The ids `query` lists once every one of `expected` is among them (visibility lags
    its workflows a little); fails after 30 s saying what it saw."""
    seen: set[str] = set()
    for _ in range(600):
        seen = {wf.id async for wf in temporal.list_workflows(query)}
        if expected <= seen:
            return seen
        await asyncio.sleep(0.05)
    raise AssertionError(f"{query!r} listed {sorted(seen)}, not all of {sorted(expected)}")


async def test_a_waiting_task_is_found_by_its_state_context_and_harness_then_by_its_end(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK) as h:
        client = await h.client()
        asked = await collect(client.send_message(send_request("paint the fence")))
        task = asked[0].task
        here = f"TinyHarnessAgent='{h.task_queue}'"
        waiting = await found(
            temporal_client,
            f"{here} AND A2ATaskState='TASK_STATE_INPUT_REQUIRED'",
            {task.id},
        )
        in_context = await found(temporal_client, f"A2AContextId='{task.context_id}'", {task.id})
        answered = await collect(client.send_message(send_request("blue", task_id=task.id)))
        done = await found(
            temporal_client, f"{here} AND A2ATaskState='TASK_STATE_COMPLETED'", {task.id}
        )
        still_waiting = {
            wf.id
            async for wf in temporal_client.list_workflows(
                f"{here} AND A2ATaskState='TASK_STATE_INPUT_REQUIRED'"
            )
        }

    assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert states(answered)[-1] == "TASK_STATE_COMPLETED"
    assert waiting == in_context == done == {task.id}
    assert still_waiting == set()


async def test_a_namespace_that_refuses_them_leaves_tasks_unsearchable_and_says_how(
    temporal_client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)

    registered = await register_search_attributes(temporal_client, "no-such-namespace")

    assert registered is False
    warned = [r.getMessage() for r in caplog.records if "not searchable" in r.getMessage()]
    assert len(warned) == 1
    assert "temporal operator search-attribute create --name A2AContextId" in warned[0]

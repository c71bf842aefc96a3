"""Delegation to another harness over A2A, on one Temporal dev server: the parent's
`spawn_subtask` starts a stand-in that drives the child harness's task, hears it park,
carries the reply to the same remote task, and the parent completes after the child.

Two harnesses, each with its own task queue and its own 127.0.0.1 port; every call between
them is real HTTP through the a2a-sdk client.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from a2a.types import CancelTaskRequest, GetTaskRequest, TaskState
from temporalio.client import Client, WorkflowExecutionStatus

from tests.support import (
    RunningHarness,
    collect,
    delegating_to,
    llm_requests,
    running_harness,
    send_request,
    states,
)
from tiny_harness.harness.agents.turns import RemoteTurn
from tiny_harness.harness.models.llm import ToolResultItem

CHILD = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Which size?"}}]
  - text: "Size noted: the shirt is ordered."
"""

PARENT = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: child, name: shirt, goal: order a shirt}}]
  - when: "^order"
    text: "Waiting for the sub-task."
  - when: "INPUT_REQUIRED"
    tool_calls: [{name: ask_participant, arguments: {question: "The shop asks: which size?"}}]
  - tool_calls: [{name: reply_subtask, arguments: {subtask_id: sub-1, text: "M"}}]
  - when: "^M$"
    text: "Waiting for the sub-task."
  - when: "COMPLETED"
    text: "All done: the shirt is ordered."
"""


@asynccontextmanager
async def delegating(
    temporal: Client, tmp_path: Path, updates: str, *, parent_script: str = PARENT
) -> AsyncIterator[tuple[RunningHarness, RunningHarness]]:
    """A child harness, and a parent harness that knows it as agent `child`."""
    async with (
        running_harness(temporal, tmp_path / "child", CHILD) as child,
        running_harness(temporal, tmp_path / "parent", parent_script) as parent,
        delegating_to(parent, "child", child.url, updates=updates),
    ):
        yield parent, child


async def eventually_parked(parent: RunningHarness, task_id: str) -> None:
    client = await parent.client()
    for _ in range(200):
        task = await client.get_task(GetTaskRequest(id=task_id))
        if task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the parent never asked for input")


@pytest.mark.parametrize("updates", ["follow", "off"])
async def test_a_question_of_the_child_is_answered_through_the_parent(
    temporal_client: Client, tmp_path: Path, updates: str
) -> None:
    async with delegating(temporal_client, tmp_path, updates) as (parent, child):
        client = await parent.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        await eventually_parked(parent, task_id)
        rest = await collect(client.send_message(send_request("M", task_id=task_id)))
        await temporal_client.get_workflow_handle(task_id).result()

        stand_in = temporal_client.get_workflow_handle(f"{task_id}.sub-1", result_type=RemoteTurn)
        final = await stand_in.result()
        remote = await (await child.client()).get_task(GetTaskRequest(id=final.remote_task_id))
        child_tasks = await child.workflow_ids()
        requests = await llm_requests(temporal_client, task_id)

    assert states(rest)[-1] == "TASK_STATE_COMPLETED"
    assert final.state == TaskState.TASK_STATE_COMPLETED
    # One remote task: the reply continued it rather than opening another.
    assert child_tasks == [final.remote_task_id]
    assert remote.status.state == TaskState.TASK_STATE_COMPLETED
    assert [m.parts[0].text for m in remote.history if m.role == 1] == [
        "Task: shirt\nGoal: order a shirt",
        "M",
    ]
    # The parent's model heard of the question and of the end, never of WORKING.
    notes = [i.text for r in requests[-1:] for i in r.input if "[sub-task" in i.text]
    assert [("INPUT_REQUIRED" in n, "COMPLETED" in n) for n in notes] == [
        (True, False),
        (False, True),
    ]
    assert not any("WORKING" in n for n in notes)
    # The model was shown whom it can delegate to, never where they are.
    assert "child" in requests[0].instructions
    assert child.url not in requests[0].instructions


async def test_spawning_on_an_unknown_agent_creates_nothing(
    temporal_client: Client, tmp_path: Path
) -> None:
    script = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: nobody, name: x, goal: y}}]
  - text: "Could not delegate."
"""
    async with delegating(temporal_client, tmp_path, "follow", parent_script=script) as (
        parent,
        _,
    ):
        events = await collect((await parent.client()).send_message(send_request("go")))
        task_id = events[0].task.id
        await temporal_client.get_workflow_handle(task_id).result()
        requests = await llm_requests(temporal_client, task_id)
        workflows = await parent.workflow_ids()

    refusal = [i for i in requests[1].input if isinstance(i, ToolResultItem)]
    assert refusal[0].is_error
    assert "agent.unknown" in refusal[0].text
    assert "child" in refusal[0].text
    assert workflows == [task_id]


async def test_cancelling_the_parent_cancels_the_parked_child(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with delegating(temporal_client, tmp_path, "follow") as (parent, child):
        client = await parent.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        await eventually_parked(parent, task_id)
        await client.cancel_task(CancelTaskRequest(id=task_id))
        await temporal_client.get_workflow_handle(task_id).result()
        final = await temporal_client.get_workflow_handle(
            f"{task_id}.sub-1", result_type=RemoteTurn
        ).result()
        remote = await (await child.client()).get_task(GetTaskRequest(id=final.remote_task_id))
        parent_task = await client.get_task(GetTaskRequest(id=task_id))
        described = await temporal_client.get_workflow_handle(f"{task_id}.sub-1").describe()

    assert parent_task.status.state == TaskState.TASK_STATE_CANCELED
    assert final.state == TaskState.TASK_STATE_CANCELED
    assert remote.status.state == TaskState.TASK_STATE_CANCELED
    assert described.status == WorkflowExecutionStatus.COMPLETED


QUESTIONS = 8


async def test_a_long_delegation_rolls_the_stand_in_over_and_loses_nothing(
    temporal_client: Client, tmp_path: Path
) -> None:
    child_script = "turns:\n" + "".join(
        f'  - tool_calls: [{{name: ask_participant, arguments: {{question: "Question {k}?"}}}}]\n'
        for k in range(1, QUESTIONS + 1)
    )
    child_script += "  - text: all answered\n"
    parent_script = (
        "turns:\n"
        "  - tool_calls: [{name: spawn_subtask,\n"
        "                  arguments: {agent: child, name: quiz, goal: answer}}]\n"
        '  - when: "^quiz"\n    text: Waiting.\n'
        + "".join(
            f'  - when: "Question {k}\\\\?"\n'
            f"    tool_calls: [{{name: reply_subtask,\n"
            f"                  arguments: {{subtask_id: sub-1, text: a{k}}}}}]\n"
            f'  - when: "Question {k}\\\\?"\n    text: Waiting.\n'
            for k in range(1, QUESTIONS + 1)
        )
        + '  - when: "COMPLETED"\n    text: done\n'
    )
    async with (
        running_harness(temporal_client, tmp_path / "child", child_script) as child,
        running_harness(
            temporal_client, tmp_path / "parent", parent_script, history_event_bound=100
        ) as parent,
        delegating_to(parent, "child", child.url, updates="follow"),
    ):
        events = await collect((await parent.client()).send_message(send_request("quiz")))
        task_id = events[0].task.id
        stand_in = f"{task_id}.sub-1"
        final = await temporal_client.get_workflow_handle(stand_in, result_type=RemoteTurn).result()
        runs = [
            wf.run_id async for wf in temporal_client.list_workflows(f'WorkflowId="{stand_in}"')
        ]
        remote = await (await child.client()).get_task(GetTaskRequest(id=final.remote_task_id))
        child_tasks = await child.workflow_ids()

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    assert final.state == TaskState.TASK_STATE_COMPLETED
    assert len(runs) > 1  # the stand-in continued as new at least once
    assert child_tasks == [final.remote_task_id]  # one remote task all along
    replies = [m.parts[0].text for m in remote.history if m.role == 1][1:]
    assert replies == [f"a{k}" for k in range(1, QUESTIONS + 1)]  # each once, in order

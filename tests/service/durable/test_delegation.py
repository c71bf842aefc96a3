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
    ASKS_WHICH_SIZE,
    BUYS_FROM_SELF,
    RunningHarness,
    as_participant,
    capture_debug,
    collect,
    delegating_to,
    ext_as_set,
    llm_requests,
    running_harness,
    send_request,
    serving_self,
    states,
    sub_task_end,
)
from tiny_harness.harness.agents.turns import RemoteTurn
from tiny_harness.harness.models.llm import ToolResultItem
from tiny_harness.harness.tasks.extension import (
    AcceptanceCriterion,
    Participant,
    ParticipantRole,
    TaskExtensionData,
    TaskRef,
    ext_of,
)

CHILD = ASKS_WHICH_SIZE

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


async def registered_push(child: RunningHarness, remote_task_id: str) -> int:
    """How many push configs the child holds for the task once it holds any (or 0)."""
    for _ in range(100):
        configs = await child.push_configs.list(remote_task_id)
        if configs:
            return len(configs)
        await asyncio.sleep(0.05)
    return 0


@pytest.mark.parametrize("updates", ["auto", "follow", "off"], ids=["push", "follow", "off"])
async def test_a_question_of_the_child_is_answered_through_the_parent(
    temporal_client: Client, tmp_path: Path, updates: str
) -> None:
    async with delegating(temporal_client, tmp_path, updates) as (parent, child):
        client = await parent.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        await eventually_parked(parent, task_id)
        parked = await temporal_client.get_workflow_handle(f"{task_id}.sub-1").query(
            "turn", result_type=RemoteTurn
        )
        # "auto" with a harness child that offers push: the stand-in registered its route.
        registered = await registered_push(child, parked.remote_task_id) if updates == "auto" else 0
        rest = await collect(client.send_message(send_request("M", task_id=task_id)))
        await temporal_client.get_workflow_handle(task_id).result()

        stand_in = temporal_client.get_workflow_handle(f"{task_id}.sub-1", result_type=RemoteTurn)
        final = await stand_in.result()
        remote = await (await child.client()).get_task(
            GetTaskRequest(id=final.remote_task_id), context=as_participant(task_id)
        )
        child_tasks = await child.workflow_ids()
        requests = await llm_requests(temporal_client, task_id)
        left = await child.push_configs.list(final.remote_task_id)
        parent_task = await client.get_task(GetTaskRequest(id=task_id))

    assert states(rest)[-1] == "TASK_STATE_COMPLETED"
    assert registered == (1 if updates == "auto" else 0)
    assert left == []  # an ended stand-in deletes its registration
    assert final.state == TaskState.TASK_STATE_COMPLETED
    # One remote task: the reply continued it rather than opening another (beside it, only
    # the courier of the stand-in's push registration).
    assert [i for i in child_tasks if ".push." not in i] == [final.remote_task_id]
    assert remote.status.state == TaskState.TASK_STATE_COMPLETED
    # The parent lists its sub-task: the remote task's id on the agent that runs it.
    parent_ext = ext_of(parent_task)
    assert parent_ext is not None
    assert parent_ext.sub_tasks == (
        TaskRef(task_id=final.remote_task_id, agent="child", state="TASK_STATE_COMPLETED"),
    )
    assert [m.parts[0].text for m in remote.history if m.role == 1] == [
        "Task: shirt\nGoal: order a shirt",
        "M",
    ]
    # The child harness advertises the task extension: the brief's fields reached its task
    # apart, and as a brief to another agent (not `self`), without the parent's details.
    assert ext_as_set(remote) == TaskExtensionData(
        name="shirt",
        goal="order a shirt",
        # The remote task belongs to the participant the stand-in delegated as.
        participants=(
            Participant(id=task_id, kind="human", role=ParticipantRole.ADMIN, display_name=task_id),
        ),
    )
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


@pytest.mark.parametrize("updates", ["auto", "follow"], ids=["push", "follow"])
async def test_cancelling_the_parent_cancels_the_parked_child(
    temporal_client: Client, tmp_path: Path, updates: str
) -> None:
    async with delegating(temporal_client, tmp_path, updates) as (parent, child):
        client = await parent.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        await eventually_parked(parent, task_id)
        await client.cancel_task(CancelTaskRequest(id=task_id))
        await temporal_client.get_workflow_handle(task_id).result()
        final = await temporal_client.get_workflow_handle(
            f"{task_id}.sub-1", result_type=RemoteTurn
        ).result()
        remote = await (await child.client()).get_task(
            GetTaskRequest(id=final.remote_task_id), context=as_participant(task_id)
        )
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
        remote = await (await child.client()).get_task(
            GetTaskRequest(id=final.remote_task_id), context=as_participant(task_id)
        )
        child_tasks = await child.workflow_ids()

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    assert final.state == TaskState.TASK_STATE_COMPLETED
    assert len(runs) > 1  # the stand-in continued as new at least once
    assert child_tasks == [final.remote_task_id]  # one remote task all along
    replies = [m.parts[0].text for m in remote.history if m.role == 1][1:]
    assert replies == [f"a{k}" for k in range(1, QUESTIONS + 1)]  # each once, in order


CANCELLED_PARENT = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: child, name: shirt, goal: order a shirt}}]
  - when: "^order"
    text: "Waiting for the sub-task."
  - when: "INPUT_REQUIRED"
    text: "The shop waits for its user."
  - when: "CANCELED"
    text: "The shop cancelled the order."
"""


async def test_a_child_harness_cancelled_on_its_own_side_reaches_the_parent_by_push(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    capture_debug(caplog)
    async with delegating(temporal_client, tmp_path, "auto", parent_script=CANCELLED_PARENT) as (
        parent,
        child,
    ):
        running = asyncio.create_task(
            collect((await parent.client()).send_message(send_request("order a shirt")))
        )
        stand_in = await eventually_one(parent, ".sub-1")
        parked = await eventually_parked_turn(temporal_client, stand_in)
        assert await registered_push(child, parked.remote_task_id) == 1
        config = (await child.push_configs.list(parked.remote_task_id))[0]
        opened = await child.push_configs.for_dispatch(parked.remote_task_id, config.id)
        assert opened is not None
        assert len(opened.token) >= 32
        token = opened.token
        # The child task's owner (the parent task, as it delegated) cancels it on the child.
        await (await child.client()).cancel_task(
            CancelTaskRequest(id=parked.remote_task_id),
            context=as_participant(stand_in.removesuffix(".sub-1")),
        )
        events = await asyncio.wait_for(running, 30)
        final = await temporal_client.get_workflow_handle(stand_in, result_type=RemoteTurn).result()
        requests = await llm_requests(temporal_client, events[0].task.id)
        stand_in_history = await temporal_client.get_workflow_handle(stand_in).fetch_history()
        histories = [
            await temporal_client.get_workflow_handle(wf).fetch_history()
            for wf in [*await parent.workflow_ids(), *await child.workflow_ids()]
        ]
        left = await child.push_configs.list(parked.remote_task_id)

    assert final.state == TaskState.TASK_STATE_CANCELED
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    # Heard through the push route: the doorbell is an update the stand-in accepted.
    assert stand_in_history.to_json().count("workflowExecutionUpdateAccepted") >= 1
    notes = [i.text for i in requests[-1].input if i.text.startswith("[sub-task")]
    assert sum("CANCELED" in n for n in notes) == 1
    assert left == []
    # The token went to the child's push store, sealed, and nowhere else.
    assert token not in "".join(h.to_json() for h in histories)
    assert token not in caplog.text
    assert token.encode() not in sqlite_bytes(tmp_path)


def sqlite_bytes(folder: Path) -> bytes:
    """Every byte of every SQLite file (WAL included) under `folder`."""
    return b"".join(p.read_bytes() for p in folder.rglob("*.sqlite3*"))


async def eventually_one(running: RunningHarness, marker: str) -> str:
    for _ in range(200):
        found = [i for i in await running.workflow_ids() if i.endswith(marker)]
        if found:
            return found[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no workflow ending in {marker}")


async def eventually_parked_turn(temporal: Client, stand_in: str) -> RemoteTurn:
    handle = temporal.get_workflow_handle(stand_in)
    for _ in range(200):
        turn = await handle.query("turn", result_type=RemoteTurn)
        if isinstance(turn, RemoteTurn) and turn.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            return turn
        await asyncio.sleep(0.05)
    raise AssertionError("the stand-in never saw its task parked")


async def test_a_sub_task_for_self_carries_the_full_brief_in_its_task_envelope(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        running_harness(temporal_client, tmp_path, BUYS_FROM_SELF) as h,
        serving_self(h),
    ):
        events = await collect((await h.client()).send_message(send_request("buy a shirt")))
        parent_id = events[0].task.id
        final = await sub_task_end(temporal_client, parent_id)
        child = await (await h.client()).get_task(
            GetTaskRequest(id=final.remote_task_id), context=as_participant(parent_id)
        )
        model = (await h.harness.llm()).info.model

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    assert (final.state, final.text) == (TaskState.TASK_STATE_COMPLETED, "Ordered: #42")
    assert ext_as_set(child) == TaskExtensionData(
        name="shirt",
        goal="order a shirt",
        description="size M, blue",
        acceptance_criteria=(AcceptanceCriterion(text="an order number"),),
        parent_tasks=(TaskRef(task_id=parent_id),),
        participants=(
            Participant(
                id=parent_id,
                kind="agent",
                role=ParticipantRole.ADMIN,
                display_name=f"task {parent_id}",
            ),
        ),
        lifecycle="delegated",
        model=model,
    )

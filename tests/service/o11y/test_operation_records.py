"""Every operation of a task leaves one structured log record, on a real Temporal dev
server: the workflow's moments (a plan made, each step done, a question asked and
answered, a sub-task spawned and ended) and the activities' work (each store write, each
compaction, each help decision), with the task id, the correlation id, the operation, the
phase and the outcome, and none of the task's content. A replay marks nothing again."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from a2a.types import TaskState
from temporalio.client import Client
from temporalio.worker import Replayer

from tests.service.durable.test_compaction_loop import (
    PADDING,
    STEPS,
    run_task,
    tight_budget,
)
from tests.service.durable.test_compaction_loop import SCRIPT as SIX_STEPS
from tests.service.durable.test_help_decisions import ASK_ANYONE, BOB, shop_task
from tests.service.durable.test_participant_tasks import ALICE, ended, until
from tests.support import collect, llm_responses, log_fields, running_harness, send_request
from tiny_harness.harness.context.compaction import CompactionRecord
from tiny_harness.harness.persistence.records import RecordKind
from tiny_harness.harness.tasks.extension import ext_of
from tiny_harness.service.durable.client.worker import workflow_runner
from tiny_harness.service.durable.workflows.remote import RemoteTaskWorkflow
from tiny_harness.service.durable.workflows.task import TaskWorkflow

pytestmark = pytest.mark.timeout(120)

LOGGERS = ("temporalio.workflow", "tiny_harness.service.o11y.operations")
"""Where the workflow's moments and the activities' operations are logged."""

type Fields = tuple[str, str, str, str]
"""A record's operation, phase, correlation id and outcome."""


def capture(caplog: pytest.LogCaptureFixture) -> None:
    for name in LOGGERS:
        caplog.set_level(logging.INFO, logger=name)


def operations_of(caplog: pytest.LogCaptureFixture, task_id: str) -> list[Fields]:
    """The operation records of task `task_id`, in the order they were written."""
    found: list[Fields] = []
    for record in caplog.records:
        fields = log_fields(record)
        if fields["task_id"] == task_id and fields["operation"] is not None:
            assert record.levelno == logging.INFO
            found.append(
                (
                    str(fields["operation"]),
                    str(fields["phase"]),
                    str(fields["correlation_id"]),
                    str(fields["outcome"]),
                )
            )
    return found


def named(found: list[Fields], operation: str) -> list[Fields]:
    return [f for f in found if f[0] == operation]


async def call_ids(temporal: Client, task_id: str, tool: str) -> list[str]:
    """The ids of the task's calls of `tool`, in the order the model made them."""
    responses = await llm_responses(temporal, task_id)
    return [c.call_id for r in responses for c in r.tool_calls if c.name == tool]


async def test_a_long_task_leaves_a_record_per_plan_step_compaction_and_store_write(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    capture(caplog)
    async with running_harness(temporal_client, tmp_path, SIX_STEPS) as running:
        await tight_budget(running)
        task_id, final = await run_task(running)
        stored = await running.store.records(RecordKind.COMPACTION, task_id)

    found = operations_of(caplog, task_id)
    plans = await call_ids(temporal_client, task_id, "create_plan")
    steps = await call_ids(temporal_client, task_id, "complete_step")
    assert final == "TASK_STATE_COMPLETED"
    assert named(found, "plan.created") == [("plan.created", "post", plans[0], "ok")]
    assert named(found, "step.finished") == [("step.finished", "post", c, "done") for c in steps]
    assert len(steps) == STEPS
    folded = [f for f in named(found, "compaction.summarise") if f[3] == "folded"]
    assert len(folded) == len([r for r in stored if isinstance(r, CompactionRecord)]) > 0
    writes = named(found, "persistence.write")
    assert writes
    assert {(phase, outcome) for _, phase, _, outcome in writes} == {("post", "stored")}
    versions = [int(correlation) for _, _, correlation, _ in writes]
    assert versions == sorted(versions)
    ours = [r.getMessage() for r in caplog.records if r.__dict__.get("task_id") == task_id]
    assert not any(PADDING.strip() in message for message in ours)  # no step output quoted


QUESTION = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Which size?"}}]
  - when: "^M$"
    text: Size noted.
"""


async def test_a_question_is_marked_asked_and_answered_and_a_replay_marks_nothing_again(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    capture(caplog)
    async with running_harness(temporal_client, tmp_path, QUESTION) as running:
        client = await running.client()
        asked = await collect(client.send_message(send_request("a shirt")))
        task_id = asked[0].task.id
        await collect(client.send_message(send_request("M", task_id=task_id)))
        await ended(temporal_client, task_id)
    history = await temporal_client.get_workflow_handle(task_id).fetch_history()
    (question,) = await call_ids(temporal_client, task_id, "ask_participant")

    assert named(operations_of(caplog, task_id), "help.requested") == [
        ("help.requested", "pre", question, "asked"),
        ("help.requested", "post", question, "answered"),
    ]
    caplog.clear()
    replayer = Replayer(
        workflows=[TaskWorkflow, RemoteTaskWorkflow],
        workflow_runner=workflow_runner(),
        data_converter=temporal_client.data_converter,
    )
    await replayer.replay_workflow(history)  # raises on a nondeterministic mark
    assert operations_of(caplog, task_id) == []


async def test_a_help_decision_and_the_participant_task_it_made_leave_their_records(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The decision is asked for twice (the first is refused) and is one operation; the
    task it creates for Bob is a sub-task spawned and ended, whose own work is asked of
    Bob and answered."""
    capture(caplog)
    async with running_harness(temporal_client, tmp_path, ASK_ANYONE) as running:
        client = await running.client(streaming=False)
        events = client.send_message(shop_task("restock"), context=ALICE)
        parent_id = (await events.__anext__()).task.id
        parent = await until(temporal_client, parent_id, TaskState.TASK_STATE_WORKING, sub_tasks=1)
        parent_ext = ext_of(parent)
        assert parent_ext is not None
        child_id = parent_ext.sub_tasks[0].task_id
        await until(temporal_client, child_id, TaskState.TASK_STATE_INPUT_REQUIRED)
        await collect(client.send_message(send_request("12", task_id=child_id), context=BOB))
        await ended(temporal_client, parent_id)
    (ask,) = await call_ids(temporal_client, parent_id, "ask_participant")

    found = operations_of(caplog, parent_id)
    assert named(found, "help.decided") == [("help.decided", "post", ask, "create_task")]
    assert named(found, "subtask.spawned") == [
        ("subtask.spawned", "pre", child_id, "started"),
        ("subtask.spawned", "post", child_id, "completed"),
    ]
    child = named(operations_of(caplog, child_id), "help.requested")
    assert [(phase, outcome) for _, phase, _, outcome in child] == [
        ("pre", "asked"),
        ("post", "answered"),
    ]

"""Work handed to a participant (`create_task_for_participant`) and role changes
(`set_participant_role`), through the A2A server, a real worker and the dev server.

An assigned task is a task of its own on this harness: its assignee sees it, answers it
(their answer is its result), or declines it by cancelling; its parent waits for it and
hears how it ended. A role changes only at an admin's request."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import TaskNotFoundError
from temporalio import client, workflow
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import (
    Interceptor,
    StartChildWorkflowInput,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)
from temporalio.workflow import ChildWorkflowHandle

from tests.support import (
    RunningHarness,
    as_participant,
    collect,
    llm_requests,
    running_harness,
    send_request,
    watchers,
    with_task_envelope,
)
from tests.support import states as event_states
from tiny_harness.harness.channels.extension import channel_messages_in
from tiny_harness.harness.models.llm import ToolResultItem, UserItem
from tiny_harness.harness.tasks.extension import (
    ParticipantRole,
    TaskExtensionData,
    ext_of,
)
from tiny_harness.service.durable.payloads import TaskSnapshot
from tiny_harness.service.durable.workflows.task import TaskWorkflow

ALICE = as_participant("alice")
BOB = as_participant("bob")
CAROL = as_participant("carol")

HAND_TO_BOB = """
turns:
  - tool_calls: [{name: create_task_for_participant,
                  arguments: {participant_id: bob, name: "Count shirts",
                              goal: "Count the shirts in stock",
                              acceptance_criteria: ["one number"]}}]
  - when: "is now TASK_STATE_(COMPLETED|CANCELED)"
    text: "Bob's count is in."
"""


def started_with_bob(text: str) -> SendMessageRequest:
    """Alice's first message, making Bob a watcher of the new task."""
    request = send_request(text)
    with_task_envelope(request, TaskExtensionData(participants=watchers("bob")))
    request.configuration.return_immediately = True
    return request


async def until(temporal: Client, task_id: str, state: TaskState, *, sub_tasks: int = 0) -> Task:
    """The task once its workflow reports `state` (and as many sub-tasks); fails after
    30 s naming the state it is in. A sub-task is listed on its parent a moment before its
    workflow starts: a workflow not found yet is waited for like a state."""
    handle = temporal.get_workflow_handle(task_id)
    task = Task()
    for _ in range(600):
        try:
            task = (await handle.query(TaskWorkflow.task)).task
        except RPCError as error:
            if error.status != RPCStatusCode.NOT_FOUND:
                raise
            await asyncio.sleep(0.05)
            continue
        ext = ext_of(task)
        linked = len(ext.sub_tasks) if ext else 0
        if task.status.state == state and linked >= sub_tasks:
            return task
        await asyncio.sleep(0.05)
    raise AssertionError(f"task {task_id} stayed {TaskState.Name(task.status.state)}")


async def assigned_task(temporal: Client, parent_id: str) -> Task:
    """The parent's first sub-task once it waits for its assignee."""
    parent = await until(temporal, parent_id, TaskState.TASK_STATE_WORKING, sub_tasks=1)
    ext = ext_of(parent)
    assert ext is not None
    return await until(temporal, ext.sub_tasks[0].task_id, TaskState.TASK_STATE_INPUT_REQUIRED)


async def ended(temporal: Client, task_id: str) -> TaskSnapshot:
    """The task as its workflow ended."""
    handle = temporal.get_workflow_handle(task_id, result_type=TaskSnapshot)
    return TaskSnapshot.model_validate(await handle.result())


async def start_parent(h: RunningHarness) -> str:
    """Alice's task, answered as soon as it is accepted (it waits for its sub-task)."""
    client = await h.client(streaming=False)
    events = await collect(client.send_message(started_with_bob("count shirts"), context=ALICE))
    return events[0].task.id


async def test_the_assignee_answers_the_task_and_the_parent_hears_the_result(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, HAND_TO_BOB) as h:
        client = await h.client()
        parent_id = await start_parent(h)
        child = await assigned_task(temporal_client, parent_id)
        bobs_list = await client.list_tasks(ListTasksRequest(), context=BOB)
        seen_by_alice = await client.get_task(GetTaskRequest(id=child.id), context=ALICE)
        with pytest.raises(TaskNotFoundError, match=f"no task {child.id}"):
            await client.get_task(GetTaskRequest(id=child.id), context=CAROL)
        # Alice's message does not answer Bob's task: it waits behind his answer.
        alice_says = await collect(
            client.send_message(send_request("13", task_id=child.id), context=ALICE)
        )
        bob_says = await collect(
            client.send_message(send_request("12", task_id=child.id), context=BOB)
        )
        child_snap = await ended(temporal_client, child.id)
        parent_snap = await ended(temporal_client, parent_id)
        requests = await llm_requests(temporal_client, parent_id)
        child_calls = await llm_requests(temporal_client, child.id)

    ext = ext_of(child)
    assert ext is not None
    assert (ext.name, ext.goal, ext.lifecycle) == (
        "Count shirts",
        "Count the shirts in stock",
        "delegated",
    )
    assert [c.text for c in ext.acceptance_criteria] == ["one number"]
    assert [(p.id, p.role) for p in ext.participants] == [
        ("alice", ParticipantRole.ADMIN),
        ("bob", ParticipantRole.ASSIGNEE),
    ]
    assert [r.task_id for r in ext.parent_tasks] == [parent_id]
    asked = channel_messages_in(child.status.message)
    assert [(m.kind, m.to) for m in asked] == [("help_request", "bob")]
    assert "Goal: Count the shirts in stock" in asked[0].text
    assert {t.id for t in bobs_list.tasks} == {parent_id, child.id}
    assert seen_by_alice.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert [e.task.status.state for e in alice_says] == [TaskState.TASK_STATE_INPUT_REQUIRED]
    assert event_states(bob_says)[-1] == "TASK_STATE_COMPLETED"
    assert child_snap.task.artifacts[0].parts[0].text == "12"
    assert child_calls == []  # the assignee did the work, not the model
    assert parent_snap.task.status.state == TaskState.TASK_STATE_COMPLETED
    notes = [i.text for i in requests[-1].input if isinstance(i, UserItem)]
    assert (
        "[sub-task sub-1 ('Count shirts' assigned to bob) is now TASK_STATE_COMPLETED: 12]" in notes
    )


async def test_the_assignee_declining_by_cancel_is_told_to_the_parent(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, HAND_TO_BOB) as h:
        client = await h.client()
        parent_id = await start_parent(h)
        child = await assigned_task(temporal_client, parent_id)
        await client.cancel_task(CancelTaskRequest(id=child.id), context=BOB)
        child_snap = await ended(temporal_client, child.id)
        parent_snap = await ended(temporal_client, parent_id)
        requests = await llm_requests(temporal_client, parent_id)

    assert child_snap.task.status.state == TaskState.TASK_STATE_CANCELED
    assert parent_snap.task.status.state == TaskState.TASK_STATE_COMPLETED
    notes = [i.text for i in requests[-1].input if isinstance(i, UserItem)]
    assert any("sub-task sub-1" in n and "is now TASK_STATE_CANCELED" in n for n in notes)


async def test_cancelling_the_parent_cancels_the_assigned_task(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, HAND_TO_BOB) as h:
        client = await h.client()
        parent_id = await start_parent(h)
        child = await assigned_task(temporal_client, parent_id)
        await client.cancel_task(CancelTaskRequest(id=parent_id), context=ALICE)
        child_snap = await ended(temporal_client, child.id)
        parent_snap = await ended(temporal_client, parent_id)

    assert parent_snap.task.status.state == TaskState.TASK_STATE_CANCELED
    assert child_snap.task.status.state == TaskState.TASK_STATE_CANCELED
    assert f"its parent task {parent_id} ended" in child_snap.task.status.message.parts[0].text


class _CancelDuringStart(WorkflowOutboundInterceptor):
    """Has the task's cancel arrive while the task waits for its sub-task to start, as a
    cancel signal taken in the window between the start asked and the start done does."""

    async def start_child_workflow(
        self, input: StartChildWorkflowInput
    ) -> ChildWorkflowHandle[Any, Any]:
        # The cancel signal's handler, run now: its cancel of the loop lands on the start.
        workflow.instance().cancel("canceled by request")
        return await super().start_child_workflow(input)


class CancelsDuringSubTaskStart(client.Interceptor, Interceptor):
    """On a client, so the worker built on it takes it."""

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        return _Inbound


class _Inbound(WorkflowInboundInterceptor):
    def init(self, outbound: WorkflowOutboundInterceptor) -> None:
        super().init(_CancelDuringStart(outbound))


async def test_a_cancel_that_comes_while_the_sub_task_starts_ends_the_task_canceled(
    temporal_client: Client, tmp_path: Path
) -> None:
    config = temporal_client.config()
    config["interceptors"] = [CancelsDuringSubTaskStart()]
    async with running_harness(Client(**config), tmp_path, HAND_TO_BOB) as h:
        parent_id = await start_parent(h)
        parent_snap = await ended(temporal_client, parent_id)
        started = await h.workflows_once_visible({parent_id})

    assert parent_snap.task.status.state == TaskState.TASK_STATE_CANCELED
    assert "canceled by request" in parent_snap.task.status.message.parts[0].text
    # The cancel came before the start was asked of the server: no sub-task was left.
    assert started == {parent_id}


async def test_a_task_for_someone_not_on_the_task_is_an_error_result(
    temporal_client: Client, tmp_path: Path
) -> None:
    script = """
turns:
  - tool_calls: [{name: create_task_for_participant,
                  arguments: {participant_id: carol, name: "x", goal: "y"}}]
  - text: "I will do it myself."
"""
    async with running_harness(temporal_client, tmp_path, script) as h:
        client = await h.client()
        events = await collect(client.send_message(send_request("go"), context=ALICE))
        task_id = events[0].task.id
        requests = await llm_requests(temporal_client, task_id)
        started = await h.workflow_ids()

    assert event_states(events)[-1] == "TASK_STATE_COMPLETED"
    refusal = [i for i in requests[1].input if isinstance(i, ToolResultItem)]
    assert refusal[0].is_error
    assert "carol is not a participant of this task (participants: alice)" in refusal[0].text
    assert started == [task_id]


ROLE_CHANGE = """
turns:
  - when: "make bob"
    tool_calls: [{name: set_participant_role, arguments: {participant_id: bob, role: admin}}]
  - text: "Done."
"""


async def test_an_admins_request_changes_a_role(temporal_client: Client, tmp_path: Path) -> None:
    async with running_harness(temporal_client, tmp_path, ROLE_CHANGE) as h:
        client = await h.client()
        request = started_with_bob("make bob an admin")
        request.configuration.return_immediately = False
        events = await collect(client.send_message(request, context=ALICE))
        task_id = events[0].task.id
        # Bob, an admin now, may change the participants himself.
        task = await client.get_task(GetTaskRequest(id=task_id), context=BOB)
        listed = await h.store.get_task(task_id)

    assert event_states(events)[-1] == "TASK_STATE_COMPLETED"
    ext = ext_of(task)
    assert ext is not None
    assert {(p.id, p.role) for p in ext.participants} == {
        ("alice", ParticipantRole.ADMIN),
        ("bob", ParticipantRole.ADMIN),
    }
    assert listed is not None
    stored = ext_of(listed.task)
    assert stored is not None
    assert stored.participants == ext.participants


async def test_a_role_change_asked_by_a_non_admin_is_refused(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    script = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Anything else?",
                                                     participant_id: bob}}]
  - when: "make bob"
    tool_calls: [{name: set_participant_role, arguments: {participant_id: bob, role: admin}}]
  - text: "I cannot do that."
"""
    async with running_harness(temporal_client, tmp_path, script) as h:
        client = await h.client()
        request = started_with_bob("start")
        request.configuration.return_immediately = False
        first = await collect(client.send_message(request, context=ALICE))
        task_id = first[0].task.id
        await collect(
            client.send_message(send_request("make bob an admin", task_id=task_id), context=BOB)
        )
        snap = await ended(temporal_client, task_id)
        requests = await llm_requests(temporal_client, task_id)

    ext = ext_of(snap.task)
    assert ext is not None
    assert {(p.id, p.role) for p in ext.participants} == {
        ("alice", ParticipantRole.ADMIN),
        ("bob", ParticipantRole.WATCHER),
    }
    refusal = [i for i in requests[-1].input if isinstance(i, ToolResultItem) and i.is_error]
    assert [r.name for r in refusal] == ["set_participant_role"]
    assert "only an admin may change roles; the request came from 'bob'" in refusal[0].text
    denials = [r for r in caplog.records if "only an admin may change roles" in r.getMessage()]
    assert denials, "the refused role change was not recorded"


async def test_an_assigned_task_stays_the_assignees_across_a_rollover(
    temporal_client: Client, tmp_path: Path
) -> None:
    """While Bob takes his time, Alice's messages queue up behind his answer until the task's
    history passes its bound and it continues as new; it is still Bob's to answer, and the
    model never works on it."""
    async with running_harness(
        temporal_client, tmp_path, HAND_TO_BOB, history_event_bound=100
    ) as h:
        client = await h.client(streaming=False)
        parent_id = await start_parent(h)
        child = await assigned_task(temporal_client, parent_id)
        handle = temporal_client.get_workflow_handle(child.id)
        first_run = (await handle.describe()).run_id
        for i in range(40):
            await collect(
                client.send_message(
                    send_request(f"any news? ({i})", task_id=child.id), context=ALICE
                )
            )
            if (await handle.describe()).run_id != first_run:
                break
        rolled_over = (await handle.describe()).run_id != first_run
        waiting = await until(temporal_client, child.id, TaskState.TASK_STATE_INPUT_REQUIRED)
        bob_says = await collect(
            (await h.client()).send_message(send_request("12", task_id=child.id), context=BOB)
        )
        child_snap = await ended(temporal_client, child.id)
        child_calls = await llm_requests(temporal_client, child.id)

    assert rolled_over
    assert ext_of(waiting) == ext_of(child)  # the same brief and participants after it
    assert event_states(bob_says)[-1] == "TASK_STATE_COMPLETED"
    assert child_snap.task.artifacts[0].parts[0].text == "12"
    assert child_calls == []  # the assignee did the work, not the model

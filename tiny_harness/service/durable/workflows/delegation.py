"""`Delegation`: the parent task's side of its sub-tasks.

Workflow-side code, deterministic. `spawn_subtask` starts a `RemoteTaskWorkflow` child
(the stand-in; parent close policy ABANDON, because a continue-as-new must not cancel it:
cancelling is explicit, `cancel_all`), `reply_subtask` signals one;
`create_task_for_participant` starts a `TaskWorkflow` child assigned to a participant
(`assignment`), which reports its ending the same way. Every change a stand-in
reports updates the sub-task's row; the model is told only of an ending or of a new
question (INPUT_REQUIRED / AUTH_REQUIRED), never of WORKING, through a note the loop adds
to the conversation before the next model call. The task cannot complete while a row is
unresolved: the loop waits for the next note instead.

The rows and notes are the workflow's (its `LoopState`): the delegation reads them and
returns what changed (`SubtaskChange`), or hands a new row to the workflow (`Listing`)
before it starts the sub-task, so the sub-task's first report finds it listed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from temporalio import workflow
from temporalio.exceptions import ApplicationError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from a2a.types import Task, TaskState

    from tiny_harness.errors import TaskExtensionError
    from tiny_harness.harness.agents.turns import RemoteTurn
    from tiny_harness.harness.hooks import Operation, Phase
    from tiny_harness.harness.models.llm import UserItem
    from tiny_harness.harness.tasks.extension import (
        EventEnvelope,
        ParticipantRole,
        StatusUpdateEnvelope,
        TaskEnvelope,
        TaskRef,
    )
    from tiny_harness.harness.tasks.participants import not_on_task, participants_of
    from tiny_harness.harness.tasks.states import FINAL, PAUSED
    from tiny_harness.harness.tools.definition import ToolResult, WorkflowCommand
    from tiny_harness.service.durable import search_attributes
    from tiny_harness.service.durable.payloads import (
        LoopState,
        SubtaskRow,
        TaskSnapshot,
        TaskStart,
    )
    from tiny_harness.service.durable.remote_payloads import (
        Assignment,
        RemoteStart,
        SubtaskBrief,
        SubtaskUpdate,
    )
    from tiny_harness.service.durable.workflows.commands import error_result
    from tiny_harness.service.durable.workflows.milestones import Milestones
    from tiny_harness.service.durable.workflows.remote import RemoteTaskWorkflow

_TOLD = FINAL | PAUSED
"""States the parent's model hears about."""


type Listing = Callable[[SubtaskRow, TaskRef | None], None]
"""The workflow's: list a new sub-task's row, and the task's reference to it if any."""


@dataclass(frozen=True)
class SubtaskChange:
    """What a stand-in's report changed: the loop's state with the row (and a note for the
    model, if it is news), the reference the task now lists for a remote task whose id the
    report first told, and the state to note on the task's reference to it (`listed`, the
    id it is listed under; "" for none)."""

    loop: LoopState
    link: TaskRef | None
    listed: str
    state_name: str
    line: str
    """What the task's readers are told when the listed state changes."""


def unresolved(loop: LoopState) -> list[SubtaskRow]:
    """Sub-tasks not in a final state (parked ones included)."""
    return [row for row in loop.subtasks if row.state not in FINAL]


class Delegation:
    """The sub-tasks of one task run."""

    COMMANDS: ClassVar = frozenset({"spawn_subtask", "reply_subtask", "create_participant_task"})
    """Commands the delegation applies (they start or signal stand-in workflows)."""

    def __init__(
        self, start: TaskStart, milestones: Milestones, *, stopping: Callable[[], bool]
    ) -> None:
        """`stopping`: whether the task was cancelled (or a hook vetoed it)."""
        self._start = start
        self._milestones = milestones
        self._stopping = stopping

    async def apply(
        self, command: WorkflowCommand, loop: LoopState, task: Task, listing: Listing
    ) -> ToolResult:
        """Start or answer a sub-task; the result the model reads. A started sub-task's
        row goes to `listing` before it starts.

        Raises `CancelledError` when the task was stopped meanwhile. The SDK takes a cancel
        of the loop that lands while a sub-task starts or is signalled as a cancel of that
        operation alone: it asks the server to cancel it and then waits on, or raises the
        operation's own error. The loop would go on as if never cancelled (and wait for a
        sub-task nobody cancels)."""
        try:
            result = await self._apply(command, loop, task, listing)
        except Exception:
            if self._stopping():
                raise asyncio.CancelledError from None
            raise
        if self._stopping():
            raise asyncio.CancelledError
        return result

    async def _apply(
        self, command: WorkflowCommand, loop: LoopState, task: Task, listing: Listing
    ) -> ToolResult:
        if command.kind == "spawn_subtask":
            return await self._spawn(command, loop, listing)
        if command.kind == "create_participant_task":
            return await self._assign(command, loop, task, listing)
        return await self._reply(command, loop)

    async def _assign(
        self, command: WorkflowCommand, loop: LoopState, task: Task, listing: Listing
    ) -> ToolResult:
        """Start a task of this harness assigned to a participant of this task."""
        assignee = str(command.payload["participant_id"])
        people = participants_of(task)
        refusal = not_on_task(assignee, {p.id for p in people})
        if refusal is not None:
            return error_result(command, refusal)
        brief = SubtaskBrief.of(command.payload)
        subtask_id = f"sub-{len(loop.subtasks) + 1}"
        task_id = str(workflow.uuid4())
        admins = tuple(p for p in people if p.role == ParticipantRole.ADMIN and p.id != assignee)
        worker = next(p for p in people if p.id == assignee)
        role = ParticipantRole.ADMIN if not admins else ParticipantRole.ASSIGNEE
        start = TaskStart(
            task_id=task_id,
            context_id=str(workflow.uuid4()),
            history_event_bound=self._start.history_event_bound,
            retries=self._start.retries,
            assignment=Assignment(
                parent_id=task.id,
                assignee=assignee,
                brief=brief,
                participants=(*admins, worker.model_copy(update={"role": role})),
            ),
        )
        row = SubtaskRow(
            id=subtask_id, local_id=task_id, agent="", name=brief.name, assignee=assignee
        )
        listing(row, TaskRef(task_id=task_id))
        self._mark(row, "started", Phase.PRE)
        child = await workflow.start_child_workflow(
            "TaskWorkflow",
            start,
            id=task_id,
            result_type=TaskSnapshot,
            parent_close_policy=ParentClosePolicy.ABANDON,
            search_attributes=search_attributes.for_sub_task(start.context_id),
        )
        child.add_done_callback(_outcome_heard_by_signal)
        text = (
            f"Task {task_id} ({brief.name!r}) created for {assignee} as sub-task {subtask_id}. "
            "You will be told when it ends; this task cannot complete before it does."
        )
        return command.result.model_copy(update={"text": text})

    async def _spawn(
        self, command: WorkflowCommand, loop: LoopState, listing: Listing
    ) -> ToolResult:
        payload = command.payload
        subtask_id = f"sub-{len(loop.subtasks) + 1}"
        local_id = f"{self._start.task_id}.{subtask_id}"
        brief = SubtaskBrief.of(payload)
        agent = str(payload["agent"])
        updates = str(payload.get("updates", "auto"))
        start = RemoteStart(
            parent_id=self._start.task_id,
            agent=agent,
            brief=brief,
            participant=self._start.task_id,
            updates="off" if updates == "off" else "follow" if updates == "follow" else "auto",
            heartbeat_seconds=self._start.retries.heartbeat_timeout.total_seconds(),
            history_event_bound=self._start.history_event_bound,
        )
        row = SubtaskRow(id=subtask_id, local_id=local_id, agent=agent, name=brief.name)
        listing(row, None)
        self._mark(row, "started", Phase.PRE)
        child = await workflow.start_child_workflow(
            RemoteTaskWorkflow.run,
            start,
            id=local_id,
            parent_close_policy=ParentClosePolicy.ABANDON,
        )
        # Its outcome arrives by signal (subtask_changed), not through this handle.
        child.add_done_callback(_outcome_heard_by_signal)
        text = (
            f"Sub-task {subtask_id} started on agent {agent}. You will be told when it needs "
            "input (answer with reply_subtask) or ends."
        )
        return command.result.model_copy(update={"text": text})

    async def _reply(self, command: WorkflowCommand, loop: LoopState) -> ToolResult:
        asked = str(command.payload["subtask_id"])
        row = next((r for r in loop.subtasks if asked in (r.id, r.local_id)), None)
        if row is None:
            known = ", ".join(r.id for r in loop.subtasks) or "none"
            return error_result(command, f"no sub-task {asked!r}; sub-tasks: {known}")
        if row.assignee is not None:
            return error_result(
                command, f"sub-task {row.id} is assigned to {row.assignee}; they answer it"
            )
        if row.state not in PAUSED:
            state = TaskState.Name(row.state)
            return error_result(command, f"sub-task {row.id} is not waiting for input ({state})")
        handle = workflow.get_external_workflow_handle(row.local_id)
        await handle.signal(RemoteTaskWorkflow.reply, str(command.payload["text"]))
        return command.result

    def changed(self, update: SubtaskUpdate, loop: LoopState) -> SubtaskChange | None:
        """A stand-in's report: what it changes (see `SubtaskChange`); None for a report
        from no sub-task of this task."""
        row = next((r for r in loop.subtasks if r.local_id == update.local_id), None)
        if row is None:
            workflow.logger.warning("report from unknown sub-task %s ignored", update.local_id)
            return None
        turn = update.turn
        told, before = row.told_state, row.state
        link = None
        if turn.remote_task_id and not row.remote_task_id and row.assignee is None:
            # The remote task's id is known from its first report: the task now lists it.
            link = TaskRef(task_id=turn.remote_task_id, agent=row.agent)
        row = row.model_copy(
            update={
                "state": turn.state,
                "text": turn.text,
                "remote_task_id": turn.remote_task_id,
                "usage": turn.usage or row.usage,
            }
        )
        notes = loop.notes
        if turn.state in _TOLD and (turn.state != told or turn.state in PAUSED):
            row = row.model_copy(update={"told_state": turn.state})
            note = UserItem(
                message_id=f"{row.local_id}:note-{len(notes) + 1}",
                text=_note(row, turn.state_name, turn.text),
            )
            notes = (*notes, note)
        rows = tuple(row if r.local_id == row.local_id else r for r in loop.subtasks)
        if turn.state in FINAL and before not in FINAL:
            # TASK_STATE_COMPLETED -> completed: the outcome reads like the others'.
            self._mark(row, turn.state_name.removeprefix("TASK_STATE_").lower())
        where = f"assigned to {row.assignee}" if row.assignee else f"on agent {row.agent}"
        return SubtaskChange(
            loop=loop.model_copy(update={"subtasks": rows, "notes": notes}),
            link=link,
            listed=row.remote_task_id if row.assignee is None else row.local_id,
            state_name=turn.state_name,
            line=f"Sub-task {row.id} ({row.name!r} {where}) is now {turn.state_name}.",
        )

    def _mark(self, row: SubtaskRow, outcome: str, phase: Phase = Phase.POST) -> None:
        """subtask.spawned: pre when it starts, post (its final state) when it ends."""
        agent = row.agent or "participant"
        self._milestones.mark(
            Operation.SUBTASK_SPAWNED,
            row.local_id,
            outcome=outcome,
            detail=f"{row.id} on {agent}",
            phase=phase,
            attributes={"tiny_harness.subtask.id": row.id, "tiny_harness.subtask.agent": agent},
        )

    def check_news(self, envelope: EventEnvelope, loop: LoopState) -> None:
        """Refuse (`TaskExtensionError`) an event envelope about no sub-task of this task
        on another agent."""
        remote_task_id = _event_task_id(envelope)
        if _news_target(loop, remote_task_id) is None:
            raise TaskExtensionError(
                f"a {envelope.kind} envelope must be about a sub-task of this task on another "
                f"agent; none has the remote task id {remote_task_id!r}"
            )

    async def ring(self, envelope: EventEnvelope, loop: LoopState) -> None:
        """An event about a sub-task's remote task: its stand-in is told to look at the
        task (GetTask), as on a push. The event itself is never taken as the truth."""
        row = _news_target(loop, _event_task_id(envelope))
        if row is None or row.state in FINAL:
            return
        root = envelope.root
        claimed = root.event().status.state if isinstance(root, StatusUpdateEnvelope) else None
        handle = workflow.get_external_workflow_handle(row.local_id)
        try:
            await handle.signal(RemoteTaskWorkflow.news, claimed)
        except ApplicationError as error:
            workflow.logger.info("stand-in %s not told: %s", row.local_id, error.message)

    async def cancel_all(self, loop: LoopState) -> None:
        """Ask every unresolved stand-in to cancel its remote task, and every unresolved
        assigned task to end."""
        for row in unresolved(loop):
            handle = workflow.get_external_workflow_handle(row.local_id)
            try:
                if row.assignee is None:
                    await handle.signal(RemoteTaskWorkflow.cancel)
                else:
                    await handle.signal("cancel", f"its parent task {self._start.task_id} ended")
            except ApplicationError as error:
                # Ended before its report reached this task, or never started (its start
                # cancelled with this task): nothing is left to cancel.
                workflow.logger.info("sub-task %s not cancelled: %s", row.local_id, error.message)


def _news_target(loop: LoopState, remote_task_id: str) -> SubtaskRow | None:
    return next(
        (
            r
            for r in loop.subtasks
            if r.assignee is None and r.remote_task_id and r.remote_task_id == remote_task_id
        ),
        None,
    )


def _event_task_id(envelope: EventEnvelope) -> str:
    root = envelope.root
    if isinstance(root, TaskEnvelope):
        return ""
    return root.event().task_id


def _outcome_heard_by_signal(child: asyncio.Future[RemoteTurn]) -> None:
    if not child.cancelled() and child.exception() is not None:
        workflow.logger.warning("sub-task stand-in failed: %s", child.exception())


def _note(row: SubtaskRow, state: str, text: str) -> str:
    said = f": {text}" if text else ""
    where = f"assigned to {row.assignee}" if row.assignee else f"on agent {row.agent}"
    return f"[sub-task {row.id} ({row.name!r} {where}) is now {state}{said}]"

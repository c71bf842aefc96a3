"""A task assigned to a participant: the child task `create_task_for_participant` starts.

The assignee does the work, not the model. The task opens with the brief (its extension
data and an agent message), goes INPUT_REQUIRED with a help request addressed to the
assignee, and takes their reply as its result (COMPLETED, the reply as its artifact);
a CancelTask by the assignee or an admin declines it. The parent hears of the ending by
its `subtask_changed` signal, as it hears of a remote sub-task's.

Workflow-side code, deterministic.
"""

from __future__ import annotations

from typing import Final

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from a2a.helpers import get_artifact_text, get_message_text
    from a2a.types import Message, Task

    from tiny_harness.harness.agents.turns import RemoteTurn
    from tiny_harness.harness.tasks.extension import TaskExtensionData, TaskRef
    from tiny_harness.service.durable.payloads import PendingQuestion
    from tiny_harness.service.durable.remote_payloads import Assignment, SubtaskUpdate
    from tiny_harness.service.durable.workflows import events

ASSIGNMENT_CALL: Final = "assignment"
"""The call id of the open question an assigned task waits on: the work itself."""


def assigned_ext(assignment: Assignment) -> TaskExtensionData:
    """The new task's extension data: the brief, its participants, its parent."""
    return assignment.brief.extension().model_copy(
        update={
            "participants": assignment.participants,
            "parent_tasks": (TaskRef(task_id=assignment.parent_id),),
            "lifecycle": "delegated",
        }
    )


def brief_message(assignment: Assignment, task: Task, message_id: str) -> Message:
    """The new task's first message: the brief, said by the agent."""
    return events.agent_message(task, message_id, assignment.brief.text())


def the_work(assignment: Assignment) -> PendingQuestion:
    """The open question an assigned task waits on: the work, addressed to the assignee."""
    return PendingQuestion(
        call_id=ASSIGNMENT_CALL,
        question=assignment.brief.text(),
        participant_id=assignment.assignee,
    )


async def report_end(assignment: Assignment, task: Task) -> None:
    """Tell the parent how the task ended (the answer, or why not); a parent that has
    closed is only logged."""
    turn = RemoteTurn(remote_task_id=task.id, state=task.status.state, text=ending_text(task))
    handle = workflow.get_external_workflow_handle(assignment.parent_id)
    try:
        await handle.signal("subtask_changed", SubtaskUpdate(local_id=task.id, turn=turn))
    except Exception as error:  # noqa: BLE001 - the parent may be gone; the task is not
        workflow.logger.warning(
            "task %s: parent %s not told of its end: %s", task.id, assignment.parent_id, error
        )


def ending_text(task: Task) -> str:
    """What an ended task says: its last artifact's text, else its status message's."""
    if task.artifacts:
        return get_artifact_text(task.artifacts[-1])
    return get_message_text(task.status.message) if task.status.HasField("message") else ""

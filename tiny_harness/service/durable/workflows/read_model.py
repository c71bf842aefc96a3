"""The task-scoped store records the workflow writes, built from its state.

Workflow-side code, deterministic: `recorded_at` is the workflow's clock. The records go
to the store with the next write of the log (`LogWriter.add`).
"""

from __future__ import annotations

from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from a2a.types import Message, Role, Task

    from tiny_harness.harness.models.llm import UserItem
    from tiny_harness.harness.persistence.records import (
        InboxAuditRecord,
        PlanRecord,
        StateRecord,
    )
    from tiny_harness.service.durable.payloads import LoopState


def plan_record(task: Task, loop: LoopState, now: datetime) -> PlanRecord | None:
    """The plan as of its newest change, or None when the task has no plan."""
    if loop.plan is None or loop.plan_revision < 1:
        return None
    return PlanRecord(
        task_id=task.id,
        context_id=task.context_id,
        revision=loop.plan_revision,
        recorded_at=now,
        plan=loop.plan,
    )


def state_record(task: Task, loop: LoopState, now: datetime) -> StateRecord:
    """What the loop knows after its newest model call."""
    return StateRecord(
        task_id=task.id,
        context_id=task.context_id,
        iteration=loop.llm_calls,
        recorded_at=now,
        loaded_skills=tuple(skill.name for skill in loop.loaded_skills),
        summary=loop.summary,
        compactions=loop.compactions,
        usage=loop.usage_mark.usage if loop.usage_mark is not None else None,
        pending_question=loop.pending_question.question if loop.pending_question else None,
    )


def inbox_audit_record(
    task: Task, message: Message, item: UserItem, now: datetime
) -> InboxAuditRecord:
    """That `message` was taken in as `item`: its shape, not its content."""
    return InboxAuditRecord(
        task_id=task.id,
        context_id=task.context_id,
        message_id=message.message_id,
        role=Role.Name(message.role),
        parts=len(message.parts),
        text_chars=len(item.text),
        reply_to=item.reply_to,
        recorded_at=now,
    )

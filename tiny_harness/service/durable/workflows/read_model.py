"""The task-scoped store records the workflow writes, built from its state.

Workflow-side code, deterministic: `recorded_at` is the workflow's clock. The records go
to the store with the next write of the log (`LogWriter.add`).
"""

from __future__ import annotations

from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from a2a.types import Message, Role

    from tiny_harness.harness.models.llm import UserItem
    from tiny_harness.harness.persistence.records import (
        InboxAuditRecord,
        PlanRecord,
        StateRecord,
    )
    from tiny_harness.service.durable.payloads import TaskRun


def plan_record(run: TaskRun, now: datetime) -> PlanRecord | None:
    """The plan as of its newest change, or None when the task has no plan."""
    if run.plan is None or run.plan_revision < 1:
        return None
    task = run.task
    return PlanRecord(
        task_id=task.id,
        context_id=task.context_id,
        revision=run.plan_revision,
        recorded_at=now,
        plan=run.plan,
    )


def state_record(run: TaskRun, now: datetime) -> StateRecord:
    """What the loop knows after its newest model call."""
    task = run.task
    newest = run.compactions[-1] if run.compactions else None
    return StateRecord(
        task_id=task.id,
        context_id=task.context_id,
        iteration=run.llm_calls,
        recorded_at=now,
        loaded_skills=tuple(skill.name for skill in run.loaded_skills),
        summary=newest.summary if newest is not None else None,
        compactions=len(run.compactions),
        usage=run.usage_mark.usage if run.usage_mark is not None else None,
        pending_question=run.pending_question.question if run.pending_question else None,
    )


def inbox_audit_record(
    run: TaskRun, message: Message, item: UserItem, now: datetime
) -> InboxAuditRecord:
    """That `message` was taken in as `item`: its shape, not its content."""
    return InboxAuditRecord(
        task_id=run.task.id,
        context_id=run.task.context_id,
        message_id=message.message_id,
        role=Role.Name(message.role),
        parts=len(message.parts),
        text_chars=len(item.text),
        reply_to=item.reply_to,
        recorded_at=now,
    )

"""The bodies of context assembly and compaction, run by the task's activities.

    window ─ compaction.trigger.in ─► over budget?           (in assemble_context)
    conversation ─ compaction.keep.in ─► items to fold        (in compact)
    items ─ compaction.summarise.in ─► summary text           (in compact)
    apply_summary ─► new conversation + CompactionRecord

Each decision is an `in` hook point whose default body is the pure function in
`harness.core`, so a plugin can replace the policy and the summariser without touching
the loop. The fold a hook chooses is checked by `core.compaction.split` before any model
is asked, and a fold that would break the conversation is declined, never applied.
"""

from __future__ import annotations

import logging

from pydantic import BaseModel

from tiny_harness.errors import CompactionError
from tiny_harness.harness.context.compaction import (
    CompactionRecord,
    apply_summary,
    item_ids,
    plan_compaction,
    split,
    summary_request,
)
from tiny_harness.harness.context.window import (
    ContextWindow,
    ContextWindowManager,
    UsageMark,
    leading_summary,
)
from tiny_harness.harness.hooks import (
    CompactionKeepIn,
    CompactionSummariseIn,
    CompactionTriggerIn,
    HookPoint,
    Operation,
    Phase,
)
from tiny_harness.harness.models.llm import InputItem
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.harness.tasks.plan import Plan
from tiny_harness.service.durable.activities.beats import heartbeating
from tiny_harness.service.durable.payloads import (
    AssembleInput,
    CompactInput,
    CompactOutcome,
    LoadedSkill,
)

logger = logging.getLogger(__name__)

WINDOWS = ContextWindowManager()
"""Stateless: one manager serves every task of the worker."""


class Assembly(BaseModel, frozen=True):
    """What a turn's window is built from, its conversation read from the store."""

    task_id: str
    conversation: tuple[InputItem, ...]
    plan: Plan | None = None
    loaded_skills: tuple[LoadedSkill, ...] = ()
    previous: UsageMark | None = None


async def assembly_of(
    store: Store, data: AssembleInput, taken: tuple[InputItem, ...] = ()
) -> Assembly:
    """`data` with its conversation read from `store`, and the items just `taken` in after
    it (not written yet)."""
    stored: tuple[InputItem, ...] = ()
    if data.conversation_head or data.conversation_start < data.conversation_end:
        # A new task's first turn has nothing stored to read.
        stored = await store.conversation(
            data.task_id,
            data.conversation_start,
            data.conversation_end,
            picked=data.conversation_head,
        )
    return Assembly(
        task_id=data.task_id,
        conversation=(*stored, *taken),
        plan=data.plan,
        loaded_skills=data.loaded_skills,
        previous=data.previous,
    )


async def window_of(harness: Harness, data: Assembly) -> ContextWindow:
    """The turn's window: system prompt, skills, plan, conversation, every offered tool."""
    tools = await harness.base_tools()
    skill_tools = tuple(t for skill in data.loaded_skills for t in skill.tools)
    return WINDOWS.assemble(
        system_prompt=harness.system_prompt,
        agents=harness.roster,
        skills_index=harness.skills.index(),
        loaded_skills=[(skill.name, skill.body) for skill in data.loaded_skills],
        plan=data.plan.render() if data.plan is not None else "",
        conversation=data.conversation,
        tools=tools + skill_tools,
        previous=data.previous,
    )


async def needs_compaction(harness: Harness, task_id: str, window: ContextWindow) -> bool:
    """compaction.trigger.in around the budget rule (`ContextWindowManager.needs_compaction`)."""
    model = (await harness.llm()).info

    async def default(ctx: CompactionTriggerIn) -> CompactionTriggerIn:
        over = WINDOWS.needs_compaction(ctx.window, ctx.model, ctx.budget)
        return ctx.model_copy(update={"result": over})

    ctx = CompactionTriggerIn(
        task_id=task_id,
        correlation_id=f"{task_id}:trigger",
        window=window,
        model=model,
        budget=harness.budget,
    )
    point = HookPoint(Operation.COMPACTION_TRIGGER, Phase.IN)
    return bool((await harness.hooks.run_body(point, ctx, default)).result)


async def compact(harness: Harness, data: CompactInput) -> CompactOutcome:
    """Fold the oldest conversation into a summary; `skipped` says why nothing was folded."""
    context = await assembly_of(await harness.store(), data.context)
    window = await window_of(harness, context)
    conversation = context.conversation
    removed = await _choose(harness, data, context, window)
    try:
        removed, _ = split(conversation, removed)
    except CompactionError as error:
        logger.warning("task %s: compaction declined: %s", context.task_id, error.message)
        return CompactOutcome(skipped=f"{error.code}: {error.message}")
    if not removed:
        return CompactOutcome(skipped="nothing old enough to fold")
    summary = await _summarise(harness, data, window, removed)
    try:
        compacted = apply_summary(conversation, summary, removed)
    except CompactionError as error:
        logger.warning("task %s: compaction declined: %s", context.task_id, error.message)
        return CompactOutcome(skipped=f"{error.code}: {error.message}")
    after = await window_of(harness, context.model_copy(update={"conversation": compacted}))
    opening = leading_summary(compacted)
    if opening is None:  # apply_summary opens what it returns with the summary
        return CompactOutcome(skipped="the compacted conversation has no summary")
    ordinal = int(opening.message_id.rsplit(":", 1)[1])
    record = CompactionRecord(
        task_id=context.task_id,
        context_id=data.context_id,
        ordinal=ordinal,
        recorded_at=harness.providers.clock(),
        removed_ids=item_ids(removed),
        summary=summary,
        tokens_before=window.estimated_tokens,
        tokens_after=after.estimated_tokens,
    )
    logger.info(
        "task %s: compacted %d items, ~%d -> ~%d tokens",
        context.task_id,
        len(removed),
        record.tokens_before,
        record.tokens_after,
    )
    kept = _kept_numbers(context_numbers(data.context), conversation, removed)
    return CompactOutcome(summary=opening, kept=kept, record=record)


def _kept_numbers(
    numbers: tuple[int, ...], conversation: tuple[InputItem, ...], removed: tuple[InputItem, ...]
) -> tuple[int, ...]:
    """The store's numbers of the items a fold keeps: `removed` matched in order, earliest
    match first, as `split` matched it."""
    left = list(removed)
    kept: list[int] = []
    for number, item in zip(numbers, conversation, strict=True):
        if left and item == left[0]:
            left.pop(0)
        else:
            kept.append(number)
    return tuple(kept)


def context_numbers(data: AssembleInput) -> tuple[int, ...]:
    """The store's number of each item of the conversation `data` names, in order."""
    return (*data.conversation_head, *range(data.conversation_start, data.conversation_end))


async def _choose(
    harness: Harness, data: CompactInput, context: Assembly, window: ContextWindow
) -> tuple[InputItem, ...]:
    """compaction.keep.in: the items to fold (default: all but the newest few)."""

    async def default(ctx: CompactionKeepIn) -> CompactionKeepIn:
        removed, _ = plan_compaction(ctx.conversation)
        return ctx.model_copy(update={"result": removed})

    ctx = CompactionKeepIn(
        task_id=data.context.task_id,
        correlation_id=f"{data.context.task_id}:keep",
        attempt=data.attempt,
        window=window,
        conversation=context.conversation,
    )
    point = HookPoint(Operation.COMPACTION_KEEP, Phase.IN)
    return (await harness.hooks.run_body(point, ctx, default)).result or ()


async def _summarise(
    harness: Harness, data: CompactInput, window: ContextWindow, removed: tuple[InputItem, ...]
) -> str:
    """compaction.summarise.in: the summary (default: the task's model, no tools offered)."""

    async def default(ctx: CompactionSummariseIn) -> CompactionSummariseIn:
        request = summary_request(
            ctx.removed, ctx.window.instructions(), cache_key=data.context.task_id
        )
        llm = await harness.llm()
        async with heartbeating():
            response = await llm.invoke(request)
        return ctx.model_copy(update={"result": response.output_text})

    ctx = CompactionSummariseIn(
        task_id=data.context.task_id,
        correlation_id=f"{data.context.task_id}:summarise",
        attempt=data.attempt,
        window=window,
        removed=removed,
    )
    point = HookPoint(Operation.COMPACTION_SUMMARISE, Phase.IN)
    return (await harness.hooks.run_body(point, ctx, default)).result or ""

"""Compaction in the loop, on a real Temporal dev server: the context is measured before
every model call and folded into a summary when it would pass the budget; the three
policies are hook points; the store keeps every compaction, the plan, the state and the
inbox audit."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from temporalio.client import Client

from tests.support import RunningHarness, collect, llm_requests, running_harness, send_request
from tests.support import states as state_names
from tiny_harness.harness.context.compaction import CompactionRecord
from tiny_harness.harness.context.window import ContextBudget, leading_summary
from tiny_harness.harness.hooks import (
    CompactionKeepIn,
    CompactionTriggerIn,
    HookContext,
    HookPoint,
)
from tiny_harness.harness.models.llm import AssistantItem, InputItem, LLMRequest, UserItem
from tiny_harness.harness.persistence.records import (
    InboxAuditRecord,
    PlanRecord,
    RecordKind,
    StateRecord,
)
from tiny_harness.harness.tasks.plan import StepState
from tiny_harness.service.durable.activities.context import WINDOWS

STEPS = 6
PADDING = "The measured figure was recorded with its unit and its source. " * 3

SCRIPT = (
    "turns:\n  - tool_calls: [{name: create_plan, arguments: {steps: ["
    + ", ".join(f"{{id: s{n}, name: step {n}}}" for n in range(1, STEPS + 1))
    + "]}}]\n"
    + "".join(
        f"  - tool_calls: [{{name: complete_step, arguments: {{step_id: s{n}, "
        f"output: 'step {n}: {PADDING}'}}}}]\n"
        for n in range(1, STEPS + 1)
    )
    + "  - text: all steps done\n"
)


async def prefix_tokens(running: RunningHarness) -> int:
    """The estimate of a turn with no conversation: system prompt, skills, tools."""
    harness = running.harness
    window = WINDOWS.assemble(
        system_prompt=harness.system_prompt,
        skills_index=harness.skills.index(),
        tools=await harness.base_tools(),
    )
    return window.estimated_tokens


async def run_task(running: RunningHarness, text: str = "do the six steps") -> tuple[str, str]:
    events = await collect((await running.client()).send_message(send_request(text)))
    task_id = events[0].task.id
    await running.temporal.get_workflow_handle(task_id).result()
    return task_id, state_names(events)[-1]


async def activity_count(temporal: Client, task_id: str, name: str) -> int:
    history = await temporal.get_workflow_handle(task_id).fetch_history()
    return sum(
        1
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
        and event.activity_task_scheduled_event_attributes.activity_type.name == name
    )


def summaries(requests: list[LLMRequest]) -> list[UserItem | None]:
    return [leading_summary(request.input) for request in requests]


async def tight_budget(running: RunningHarness, room: int = 260) -> None:
    """A budget that the prefix fits, with room for a few turns of conversation."""
    budget = ContextBudget(turn_budget_tokens=await prefix_tokens(running) + room)
    running.harness.budget = budget.model_copy(update={"compaction_fraction": 1.0})


async def test_a_long_task_is_compacted_and_still_completes(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, SCRIPT) as running:
        await tight_budget(running)
        task_id, final = await run_task(running)
        requests = await llm_requests(temporal_client, task_id)
        compactions = await running.store.records(RecordKind.COMPACTION, task_id)
        compact_runs = await activity_count(temporal_client, task_id, "compact")

    assert final == "TASK_STATE_COMPLETED"
    assert len(requests) == STEPS + 2  # the script ran once through: nothing re-asked
    assert compactions
    assert compact_runs >= len(compactions)
    first_summarised = next(n for n, s in enumerate(summaries(requests)) if s is not None)
    before, after = requests[first_summarised - 1], requests[first_summarised]
    assert len(after.input) < len(before.input) + 2  # an item pair was added, more went
    summary = leading_summary(after.input)
    assert summary is not None
    assert "Scripted summary" in summary.text
    # The plan is never compacted: every request after create_plan carries all of it.
    assert all(f"s{STEPS}: step {STEPS}" in r.instructions for r in requests[1:])
    records = [r for r in compactions if isinstance(r, CompactionRecord)]
    assert [r.ordinal for r in records] == list(range(1, len(records) + 1))
    assert all(r.removed_ids for r in records)
    assert all(r.tokens_after < r.tokens_before for r in records)


async def test_compacted_requests_never_part_a_call_from_its_result(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, SCRIPT) as running:
        await tight_budget(running)
        task_id, _ = await run_task(running)
        requests = await llm_requests(temporal_client, task_id)

    for request in requests:
        calls = {
            call.call_id
            for item in request.input
            if isinstance(item, AssistantItem)
            for call in item.tool_calls
        }
        results = {getattr(item, "call_id", None) for item in request.input} - {None}
        assert results <= calls, "a tool result whose call was folded away"
        assert calls <= results | _open_calls(request.input)


def _open_calls(items: tuple[InputItem, ...]) -> set[str]:
    """Calls of the newest answer, which have no results yet only if it is last."""
    last = items[-1] if items else None
    return {c.call_id for c in last.tool_calls} if isinstance(last, AssistantItem) else set()


async def test_the_store_keeps_plan_state_and_inbox_audit(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, SCRIPT) as running:
        task_id, _ = await run_task(running, "do the six steps, please")
        store = running.store
        plans = await store.records(RecordKind.PLAN, task_id)
        state = await store.records(RecordKind.STATE, task_id)
        audit = await store.records(RecordKind.INBOX_AUDIT, task_id)

    assert len(plans) == 1
    assert isinstance(plans[0], PlanRecord)
    assert plans[0].revision == STEPS + 1  # attached, then each step done
    assert all(step.state is StepState.DONE for step in plans[0].plan.steps)
    assert len(state) == 1
    assert isinstance(state[0], StateRecord)
    assert (state[0].iteration, state[0].compactions) == (STEPS + 2, 0)
    assert state[0].usage is not None
    assert state[0].usage.input_tokens > 0
    assert len(audit) == 1
    assert isinstance(audit[0], InboxAuditRecord)
    assert (audit[0].role, audit[0].parts) == ("ROLE_USER", 1)
    assert audit[0].text_chars == len("do the six steps, please")


@dataclass
class Hook:
    """An in-process executor of one `in` point, answering with `answer(ctx)`."""

    name: str
    point: str
    answer: object
    priority: int = 10

    @property
    def points(self) -> frozenset[HookPoint]:
        return frozenset({HookPoint.parse(self.point)})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        return ctx.model_copy(update={"result": self.answer})


class FoldEverything:
    """A keep policy that folds the whole conversation: it would fold away the newest user
    message, so the harness must decline it."""

    name = "fold-everything"
    priority = 10
    points = frozenset({HookPoint.parse("compaction.keep.in")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if isinstance(ctx, CompactionKeepIn):
            return ctx.model_copy(update={"result": ctx.conversation})
        return None


class TriggerOnceLong:
    """A trigger policy: compact once, when the history has grown past nine items."""

    name = "trigger-once-long"
    priority = 10
    points = frozenset({HookPoint.parse("compaction.trigger.in")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if isinstance(ctx, CompactionTriggerIn):
            history = ctx.window.section("history")
            long = history is not None and history.content.count("\nassistant: ") >= 4
            fire = long and ctx.window.section("state_summary") is None
            return ctx.model_copy(update={"result": fire})
        return None


async def test_trigger_and_summarise_hooks_replace_the_defaults(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, SCRIPT) as running:
        running.harness.hooks.register(TriggerOnceLong())
        running.harness.hooks.register(
            Hook("fixed", "compaction.summarise.in", "Steps so far: all went well.")
        )
        task_id, final = await run_task(running)
        compactions = await running.store.records(RecordKind.COMPACTION, task_id)
        requests = await llm_requests(temporal_client, task_id)

    assert final == "TASK_STATE_COMPLETED"
    # The default budget is never near: only the trigger hook made this one happen, and
    # the summary is the hook's, not the model's.
    assert [r.summary for r in compactions if isinstance(r, CompactionRecord)] == [
        "Steps so far: all went well."
    ]
    opening = [s.text for s in summaries(requests) if s is not None]
    assert opening
    assert all(text.endswith("Steps so far: all went well.") for text in opening)


async def test_a_fold_that_breaks_the_conversation_is_declined_and_nothing_is_lost(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, SCRIPT) as running:
        running.harness.hooks.register(Hook("always", "compaction.trigger.in", True))
        running.harness.hooks.register(FoldEverything())
        task_id, final = await run_task(running)
        requests = await llm_requests(temporal_client, task_id)
        compactions = await running.store.records(RecordKind.COMPACTION, task_id)

    assert final == "TASK_STATE_COMPLETED"
    assert compactions == ()
    assert all(s is None for s in summaries(requests))
    assert len(requests[-1].input) == 1 + 2 * (STEPS + 1)  # every item still there

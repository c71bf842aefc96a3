"""`HookManager`: ordering, replacement, pass-through, aborts, and `in` bodies."""

from __future__ import annotations

import pytest

from tiny_harness.errors import (
    EntityNotFoundError,
    HookContractError,
    RegistryConflictError,
    UnknownHookPointError,
)
from tiny_harness.harness.hooks import (
    DEFAULT_PRIORITY,
    AbortReason,
    HookAbort,
    HookContext,
    HookManager,
    HookPoint,
    PlanCreatedIn,
    ShutdownPre,
    ToolInvokedPost,
    ToolInvokedPre,
)
from tiny_harness.harness.tasks.plan import Plan
from tiny_harness.harness.tools.definition import ToolResult

from .samples import IDS, PLAN_IN, TOOL_PRE, Action, ScriptedExecutor, plan_in, steps, tool_pre


def executor(
    name: str,
    priority: int,
    action: Action = lambda _ctx: None,
    *,
    trail: list[str] | None = None,
    points: frozenset[HookPoint] = frozenset({TOOL_PRE}),
) -> ScriptedExecutor:
    return ScriptedExecutor(name, priority, points, action, trail if trail is not None else [])


def rewrite_query(query: str) -> Action:
    def action(ctx: HookContext) -> HookContext:
        assert isinstance(ctx, ToolInvokedPre)
        call = ctx.call.model_copy(update={"arguments": {"q": query}})
        return ctx.model_copy(update={"call": call})

    return action


def abort(code: str) -> Action:
    def action(_ctx: HookContext) -> HookContext:
        raise HookAbort(AbortReason(code=code, message="not today"))

    return action


def manager_of(*executors: ScriptedExecutor) -> HookManager:
    manager = HookManager()
    for each in executors:
        manager.register(each)
    return manager


async def test_executors_run_by_priority_then_registration_order() -> None:
    trail: list[str] = []
    manager = manager_of(
        executor("late", 2000, trail=trail),
        executor("first-at-10", 10, trail=trail),
        executor("default", DEFAULT_PRIORITY, trail=trail),
        executor("second-at-10", 10, trail=trail),
    )

    await manager.run(TOOL_PRE, tool_pre())

    assert trail == ["first-at-10", "second-at-10", "default", "late"]
    assert [e.name for e in manager.subscribers(TOOL_PRE)] == trail


async def test_only_subscribed_executors_run() -> None:
    trail: list[str] = []
    shutdown = HookPoint.parse("shutdown.pre")
    manager = manager_of(
        executor("tools", 10, trail=trail),
        executor("shutdown", 10, trail=trail, points=frozenset({shutdown})),
    )

    await manager.run(shutdown, ShutdownPre(**IDS, reason="SIGTERM"))

    assert trail == ["shutdown"]


async def test_returned_context_replaces_the_input_for_the_next_executor() -> None:
    second = executor("second", 20)
    manager = manager_of(executor("rewriter", 10, rewrite_query("rewritten")), second)

    out = await manager.run(TOOL_PRE, tool_pre())

    assert out.call.arguments == {"q": "rewritten"}
    assert second.seen[0].model_dump() == out.model_dump()


async def test_none_passes_the_context_on_unchanged() -> None:
    ctx = tool_pre()
    second = executor("second", 20)
    manager = manager_of(executor("quiet", 10), second)

    out = await manager.run(TOOL_PRE, ctx)

    assert out is ctx
    assert second.seen == [ctx]


async def test_no_executors_return_the_context_itself() -> None:
    ctx = tool_pre()

    assert await HookManager().run(TOOL_PRE, ctx) is ctx


async def test_abort_stops_the_chain_with_its_reason() -> None:
    trail: list[str] = []
    manager = manager_of(
        executor("guard", 10, abort("tool_denied"), trail=trail),
        executor("after", 20, trail=trail),
    )

    with pytest.raises(HookAbort) as raised:
        await manager.run(TOOL_PRE, tool_pre())

    assert raised.value.reason == AbortReason(code="tool_denied", message="not today")
    assert trail == ["guard"]


async def test_a_replacement_of_another_type_breaks_the_contract() -> None:
    post = ToolInvokedPost(
        **IDS, call=tool_pre().call, result=ToolResult(call_id="call-1", name="search", text="x")
    )
    manager = manager_of(executor("confused", 10, lambda _ctx: post))

    with pytest.raises(HookContractError, match="ToolInvokedPost"):
        await manager.run(TOOL_PRE, tool_pre())


async def test_a_replacement_for_another_task_breaks_the_contract() -> None:
    manager = manager_of(
        executor("hijack", 10, lambda ctx: ctx.model_copy(update={"task_id": "other"}))
    )

    with pytest.raises(HookContractError, match="task or correlation id"):
        await manager.run(TOOL_PRE, tool_pre())


async def test_context_must_be_the_points_type() -> None:
    with pytest.raises(HookContractError, match="ToolInvokedPre"):
        await HookManager().run(TOOL_PRE, ShutdownPre(**IDS, reason="x"))


async def test_a_point_without_a_context_is_refused() -> None:
    with pytest.raises(UnknownHookPointError):
        await HookManager().run(HookPoint.parse("agent.invoked.pre"), tool_pre())


async def test_registration_needs_a_unique_name_and_can_be_undone() -> None:
    trail: list[str] = []
    manager = manager_of(executor("guard", 10, trail=trail))

    with pytest.raises(RegistryConflictError):
        manager.register(executor("guard", 5))
    manager.unregister("guard")
    await manager.run(TOOL_PRE, tool_pre())

    assert trail == []
    with pytest.raises(EntityNotFoundError):
        manager.unregister("guard")


async def default_plan(ctx: PlanCreatedIn) -> PlanCreatedIn:
    return ctx.model_copy(update={"result": Plan(steps=ctx.steps)})


def custom_plan(ctx: HookContext) -> HookContext:
    return ctx.model_copy(update={"result": Plan(steps=steps()[:1])})


async def test_run_body_uses_the_default_body_when_no_executor_sets_result() -> None:
    manager = manager_of(executor("watcher", 10, points=frozenset({PLAN_IN})))

    out = await manager.run_body(PLAN_IN, plan_in(), default_plan)

    assert out.result == Plan(steps=steps())


async def test_run_body_lets_a_lower_priority_number_result_win_over_the_default() -> None:
    calls: list[PlanCreatedIn] = []

    async def body(ctx: PlanCreatedIn) -> PlanCreatedIn:
        calls.append(ctx)
        return await default_plan(ctx)

    manager = manager_of(executor("planner", 10, custom_plan, points=frozenset({PLAN_IN})))

    out = await manager.run_body(PLAN_IN, plan_in(), body)

    assert out.result == Plan(steps=steps()[:1])
    assert calls == []


async def test_executors_from_the_default_priority_on_see_the_bodys_result() -> None:
    late = executor("reviewer", DEFAULT_PRIORITY, points=frozenset({PLAN_IN}))
    manager = manager_of(late)

    out = await manager.run_body(PLAN_IN, plan_in(), default_plan)

    seen = late.seen[0]
    assert isinstance(seen, PlanCreatedIn)
    assert seen.result == Plan(steps=steps())
    assert out.result == Plan(steps=steps())


async def test_run_body_refuses_a_body_that_produces_no_result() -> None:
    async def lazy(ctx: PlanCreatedIn) -> PlanCreatedIn:
        return ctx

    with pytest.raises(HookContractError, match="without a result"):
        await HookManager().run_body(PLAN_IN, plan_in(), lazy)


async def test_run_and_run_body_keep_to_their_phases() -> None:
    with pytest.raises(HookContractError, match="run_body"):
        await HookManager().run(PLAN_IN, plan_in())
    with pytest.raises(HookContractError, match="no body"):
        await HookManager().run_body(TOOL_PRE, plan_in(), default_plan)

"""Metering: a task's calls, tokens and cost, and whether it is past its budget.

Pure functions over `TaskUsage`: the task workflow asks for the usage after each model
call it made, each tool call it ran and each report of its sub-tasks' totals, and keeps
what they return (in its loop state, carried across continue-as-new, and mirrored into the
task extension so GetTask shows it and the store keeps it with the task). Deterministic:
no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from tiny_harness.harness.models.llm import LLMResponse
    from tiny_harness.harness.models.prices import ModelPrice, price_of
    from tiny_harness.harness.tasks.usage import TaskUsage, UsageTotals


def after_model_call(
    usage: TaskUsage, response: LLMResponse, prices: Mapping[str, ModelPrice]
) -> TaskUsage:
    """`usage` with one answered model call, priced by the model that answered it."""
    cost = cost_of(response, prices)
    return usage.model_copy(update={"own": usage.own.plus_call(response.usage, cost)})


def cost_of(response: LLMResponse, prices: Mapping[str, ModelPrice]) -> float | None:
    """What the call that gave `response` cost; None when its model has no price."""
    price = price_of(prices, response.model)
    return price.cost(response.usage) if price is not None else None


def after_tool_call(usage: TaskUsage) -> TaskUsage:
    """`usage` with one tool call run."""
    return usage.model_copy(update={"own": usage.own.plus_tool_call()})


def with_sub_tasks(usage: TaskUsage, totals: Iterable[UsageTotals]) -> TaskUsage:
    """`usage` with the totals the task's sub-tasks reported (each one's latest)."""
    summed = UsageTotals()
    for each in totals:
        summed = summed.plus(each)
    return usage if summed == usage.sub_tasks else usage.model_copy(update={"sub_tasks": summed})


def out_of_calls(calls: int, limit: int) -> str | None:
    """Why the task must stop, when its model was called `loop.max_model_calls` times
    without finishing it; else None."""
    if calls < limit:
        return None
    return (
        f"The model was called {calls} times without finishing the task "
        f"(the limit is loop.max_model_calls = {limit})."
    )


def over_budget(usage: TaskUsage, limit: int | None) -> str | None:
    """Why the task must stop, when its tokens passed `loop.max_task_tokens`; else None."""
    used = usage.total.tokens
    if limit is None or used <= limit:
        return None
    counted = "its own and its sub-tasks'" if usage.sub_tasks.tokens else "its own"
    return (
        f"The task used {used} tokens ({counted}), more than its budget "
        f"(loop.max_task_tokens = {limit})."
    )

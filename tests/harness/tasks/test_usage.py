"""Usage totals: calls and tokens add up, and a cost is known only for priced calls."""

from __future__ import annotations

import pytest

from tiny_harness.harness.models.llm import Usage
from tiny_harness.harness.tasks.usage import TaskUsage, UsageTotals


def test_calls_add_their_tokens_and_costs() -> None:
    totals = (
        UsageTotals()
        .plus_call(Usage(input_tokens=100, cached_tokens=30, output_tokens=7), 0.25)
        .plus_tool_call()
        .plus_call(Usage(input_tokens=50, output_tokens=3), 0.5)
    )
    assert totals.model_dump() == {
        "modelCalls": 2,
        "toolCalls": 1,
        "inputTokens": 150,
        "cachedTokens": 30,
        "outputTokens": 10,
        "costUsd": pytest.approx(0.75),
        "unpricedCalls": 0,
    }
    assert totals.tokens == 160


def test_an_unpriced_call_is_counted_apart_and_leaves_the_known_cost_as_it_was() -> None:
    priced = UsageTotals().plus_call(Usage(input_tokens=10), 0.1)
    both = priced.plus_call(Usage(input_tokens=10), None)
    assert both.cost_usd == pytest.approx(0.1)
    assert both.unpriced_calls == 1
    assert UsageTotals().plus_call(Usage(input_tokens=10), None).cost_usd is None


def test_a_task_total_holds_its_own_and_its_sub_tasks_usage() -> None:
    own = UsageTotals().plus_call(Usage(input_tokens=100, output_tokens=10), None)
    child = UsageTotals().plus_call(Usage(input_tokens=40, output_tokens=4), 0.01)
    total = TaskUsage(own=own, sub_tasks=child).total
    assert (total.model_calls, total.tokens) == (2, 154)
    assert total.cost_usd == pytest.approx(0.01)
    assert total.unpriced_calls == 1

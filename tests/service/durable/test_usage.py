"""A task's usage, cost and token budget, on a real Temporal dev server: GetTask and the
store show what the model calls in the workflow history add up to; a task past its budget
fails at the call that passed it, its sub-task cancelled; a sub-task on this harness counts
toward its parent."""

from __future__ import annotations

from pathlib import Path

import pytest
from a2a.helpers import get_message_text
from a2a.types import GetTaskRequest, Task, TaskState
from temporalio.client import Client

from tests.support import (
    ASKS_WHICH_SIZE,
    BUYS_FROM_SELF,
    ENDLESS_PLANS,
    as_participant,
    collect,
    delegating_to,
    llm_requests,
    llm_responses,
    running_harness,
    script,
    send_request,
    serving_self,
    states,
    sub_task_end,
)
from tiny_harness.harness.models.llm import LLMRequest, LLMResponse, Usage
from tiny_harness.harness.models.prices import ModelPrice
from tiny_harness.harness.models.scripted import ScriptedLLM
from tiny_harness.harness.tasks.extension import ext_of
from tiny_harness.harness.tasks.usage import TaskUsage, UsageTotals

PLAN_TWICE_THEN_DONE = """
turns:
  - tool_calls: [{name: create_plan, arguments: {steps: [{name: look}, {name: buy}]}}]
  - tool_calls: [{name: create_plan, arguments: {steps: [{name: buy}]}}]
  - text: "Bought the shirt."
"""
PRICE = ModelPrice(input=3.0, cached=0.3, output=15.0)


class DatedLLM(ScriptedLLM):
    """The scripted model answering as a dated model name, a third of its input cached, as
    a provider with a prompt cache reports it."""

    async def invoke(self, request: LLMRequest) -> LLMResponse:
        answer = await super().invoke(request)
        usage = answer.usage.model_copy(update={"cached_tokens": answer.usage.input_tokens // 3})
        return answer.model_copy(update={"usage": usage, "model": "shop-model-2026-01-01"})


class FlatLLM(ScriptedLLM):
    """The scripted model billing every call 100 input and 10 output tokens."""

    async def invoke(self, request: LLMRequest) -> LLMResponse:
        answer = await super().invoke(request)
        return answer.model_copy(update={"usage": Usage(input_tokens=100, output_tokens=10)})


def usage_on(task: Task) -> TaskUsage:
    ext = ext_of(task)
    assert ext is not None, "the task has no extension data"
    assert ext.usage is not None, "the task shows no usage"
    return ext.usage


async def test_get_task_and_the_store_show_what_the_model_calls_in_history_add_up_to(
    temporal_client: Client, tmp_path: Path
) -> None:
    llm = DatedLLM(script(PLAN_TWICE_THEN_DONE), name="shop")
    prices = {"shop-model": PRICE}
    async with running_harness(temporal_client, tmp_path, "", llm=llm, prices=prices) as harness:
        client = await harness.client()
        events = await collect(client.send_message(send_request("buy a shirt")))
        task_id = events[0].task.id
        await temporal_client.get_workflow_handle(task_id).result()
        shown = usage_on(await client.get_task(GetTaskRequest(id=task_id)))
        record = await harness.store.get_task(task_id)
        answers = await llm_responses(temporal_client, task_id)

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    assert len(answers) == 3
    assert shown.own.model_dump() == {
        "modelCalls": 3,
        "toolCalls": 2,
        "inputTokens": sum(a.usage.input_tokens for a in answers),
        "cachedTokens": sum(a.usage.cached_tokens for a in answers),
        "outputTokens": sum(a.usage.output_tokens for a in answers),
        "costUsd": pytest.approx(sum(PRICE.cost(a.usage) for a in answers)),
        "unpricedCalls": 0,
    }
    assert shown.own.cached_tokens > 0
    assert shown.own.cost_usd
    assert shown.sub_tasks == UsageTotals()
    assert record is not None
    assert usage_on(record.task) == shown


async def test_a_model_without_a_price_counts_tokens_and_no_cost(
    temporal_client: Client, tmp_path: Path
) -> None:
    prices = {"another-model": PRICE}
    async with running_harness(
        temporal_client, tmp_path, PLAN_TWICE_THEN_DONE, prices=prices
    ) as harness:
        client = await harness.client()
        events = await collect(client.send_message(send_request("buy a shirt")))
        shown = usage_on(await client.get_task(GetTaskRequest(id=events[0].task.id)))

    assert (shown.own.model_calls, shown.own.cost_usd, shown.own.unpriced_calls) == (3, None, 3)
    assert shown.own.input_tokens > 0


async def test_a_task_past_its_token_budget_fails_at_the_call_that_passed_it(
    temporal_client: Client, tmp_path: Path
) -> None:
    llm = FlatLLM(script(ENDLESS_PLANS), name="test")
    async with running_harness(
        temporal_client, tmp_path, "", llm=llm, max_task_tokens=250
    ) as harness:
        client = await harness.client()
        events = await collect(client.send_message(send_request("go")))
        task_id = events[0].task.id
        await temporal_client.get_workflow_handle(task_id).result()
        task = await client.get_task(GetTaskRequest(id=task_id))
        calls = await llm_requests(temporal_client, task_id)

    # 110 tokens a call: 220 after two is within 250, the third passes it, no fourth runs.
    assert states(events)[-1] == "TASK_STATE_FAILED"
    assert len(calls) == 3
    reason = get_message_text(task.status.message)
    assert "used 330 tokens" in reason
    assert "loop.max_task_tokens = 250" in reason
    assert usage_on(task).own.tokens == 330
    assert get_message_text(task.history[0]) == "go"


SPAWN_THEN_ENDLESS = (
    "turns:\n"
    "  - tool_calls: [{name: spawn_subtask, arguments: {agent: child, name: shirt, "
    "goal: order a shirt}}]\n" + ENDLESS_PLANS.removeprefix("turns:\n")
)


async def test_a_task_past_its_budget_cancels_its_parked_sub_task(
    temporal_client: Client, tmp_path: Path
) -> None:
    llm = FlatLLM(script(SPAWN_THEN_ENDLESS), name="test")
    async with (
        running_harness(temporal_client, tmp_path / "child", ASKS_WHICH_SIZE) as child,
        running_harness(
            temporal_client, tmp_path / "parent", "", llm=llm, max_task_tokens=250
        ) as parent,
        delegating_to(parent, "child", child.url, updates="follow"),
    ):
        client = await parent.client()
        events = await collect(client.send_message(send_request("order a shirt")))
        task_id = events[0].task.id
        await temporal_client.get_workflow_handle(task_id).result()
        final = await sub_task_end(temporal_client, task_id)
        remote = await (await child.client()).get_task(
            GetTaskRequest(id=final.remote_task_id), context=as_participant(task_id)
        )

    assert states(events)[-1] == "TASK_STATE_FAILED"
    assert final.state == TaskState.TASK_STATE_CANCELED
    assert remote.status.state == TaskState.TASK_STATE_CANCELED


async def test_a_sub_task_on_this_harness_counts_toward_its_parent(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        running_harness(temporal_client, tmp_path, BUYS_FROM_SELF) as h,
        serving_self(h),
    ):
        client = await h.client()
        events = await collect(client.send_message(send_request("buy a shirt")))
        parent_id = events[0].task.id
        await temporal_client.get_workflow_handle(parent_id).result()
        final = await sub_task_end(temporal_client, parent_id)
        child = await client.get_task(
            GetTaskRequest(id=final.remote_task_id), context=as_participant(parent_id)
        )
        parent = await client.get_task(GetTaskRequest(id=parent_id))

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    child_usage, parent_usage = usage_on(child), usage_on(parent)
    assert child_usage.own.model_calls == 1
    assert parent_usage.sub_tasks == child_usage.total
    assert parent_usage.total.tokens == parent_usage.own.tokens + child_usage.own.tokens

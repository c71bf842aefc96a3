"""Structured output: a request with an output schema reaches each provider as that
provider's JSON-schema output setting, over real HTTP against the provider stub, and the
recorded JSON answer comes back as the answer's text."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from tests.harness.models.provider_stub import KEY, ProviderStub
from tiny_harness.harness.channels.help import DECISION_SCHEMA, HelpDecision, HelpRoute
from tiny_harness.harness.models.anthropic import AnthropicLLM
from tiny_harness.harness.models.llm import LLM, LLMRequest, UserItem
from tiny_harness.harness.models.openai import OpenAILLM
from tiny_harness.harness.models.openai_chat import OpenAIChatLLM

REQUEST = LLMRequest(
    instructions="Decide.",
    input=(UserItem(message_id="m1", text="Need: which size?"),),
    output_schema=DECISION_SCHEMA,
)
SCHEMA = json.loads(json.dumps(DECISION_SCHEMA.json_schema))


@pytest.fixture(scope="module")
async def stub() -> AsyncIterator[ProviderStub]:
    async with ProviderStub() as server:
        yield server


async def ask(llm: LLM) -> HelpDecision:
    try:
        answer = await llm.invoke(REQUEST)
    finally:
        await llm.aclose()
    assert answer.tool_calls == ()
    return HelpDecision.model_validate_json(answer.output_text)


async def test_responses_api_gets_a_json_schema_text_format(stub: ProviderStub) -> None:
    llm = OpenAILLM(model="gpt-5.1", api_key=KEY, base_url=stub.base_url("openai_structured"))

    decision = await ask(llm)

    assert stub.last.body["text"] == {
        "format": {"type": "json_schema", "name": "HelpDecision", "schema": SCHEMA, "strict": False}
    }
    assert (decision.route, decision.participant_id) == (HelpRoute.ASK, "bob")


async def test_chat_completions_get_a_json_schema_response_format(stub: ProviderStub) -> None:
    llm = OpenAIChatLLM(
        model="gpt-4.1-mini", api_key=KEY, base_url=stub.base_url("chat_structured")
    )

    decision = await ask(llm)

    assert stub.last.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "HelpDecision", "schema": SCHEMA, "strict": False},
    }
    assert decision.options == ("S", "M")


async def test_messages_api_gets_a_json_schema_output_config(stub: ProviderStub) -> None:
    llm = AnthropicLLM(
        model="claude-sonnet-5-5",
        api_key=KEY,
        base_url=stub.base_url("anthropic_structured"),
        max_output_tokens=1024,
    )

    decision = await ask(llm)

    assert stub.last.body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert "tools" not in stub.last.body
    assert decision.reason == "bob ordered it"


async def test_a_turn_of_the_loop_sends_no_output_setting(stub: ProviderStub) -> None:
    turn = REQUEST.model_copy(update={"output_schema": None})
    llm = OpenAIChatLLM(model="gpt-4.1-mini", api_key=KEY, base_url=stub.base_url("chat_text"))
    try:
        await llm.invoke(turn)
    finally:
        await llm.aclose()

    assert "response_format" not in stub.last.body

"""`AnthropicLLM` over real HTTP against the provider stub (Messages API recordings)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from tests.harness.models.provider_stub import (
    CALC_SCHEMA,
    KEY,
    TOOLS,
    ProviderStub,
    conversation,
    dig,
)
from tiny_harness.errors import ProviderError, ProviderRequestError, RetryableProviderError
from tiny_harness.harness.models.anthropic import AnthropicLLM
from tiny_harness.harness.models.llm import (
    AssistantItem,
    LLMRequest,
    ToolResultItem,
    Usage,
    UserItem,
)
from tiny_harness.harness.models.wire import REFUSAL_FINISH, REFUSAL_TEXT
from tiny_harness.harness.tools.definition import ToolCall


@pytest.fixture(scope="module")
async def stub() -> AsyncIterator[ProviderStub]:
    async with ProviderStub() as server:
        yield server


@asynccontextmanager
async def claude(
    stub: ProviderStub, scenario: str, *, stream: bool = False, timeout_seconds: float = 5.0
) -> AsyncIterator[AnthropicLLM]:
    llm = AnthropicLLM(
        model="claude-sonnet-5-5",
        api_key=KEY,
        base_url=stub.base_url(scenario),
        max_output_tokens=1024,
        stream=stream,
        timeout_seconds=timeout_seconds,
    )
    try:
        yield llm
    finally:
        await llm.aclose()


# -- what the adapter sends ------------------------------------------------------------------


async def test_instructions_are_one_cached_system_block(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_text") as llm:
        await llm.invoke(conversation())

    sent = stub.last
    assert sent.path == "v1/messages"
    # anthropic 2.x sends the API key as a bearer token.
    assert sent.headers["authorization"] == f"Bearer {KEY.get_secret_value()}"
    assert "anthropic-version" in sent.headers
    assert sent.body["model"] == "claude-sonnet-5-5"
    assert sent.body["max_tokens"] == 1024
    assert sent.body["system"] == [
        {
            "type": "text",
            "text": "You are a careful assistant.",
            "cache_control": {"type": "ephemeral"},
        }
    ]


async def test_tools_carry_input_schema_under_wire_names(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_text") as llm:
        await llm.invoke(conversation())

    assert dig(stub.last.body, "tools", 0) == {
        "name": "calc_add",
        "description": "Add two numbers.",
        "input_schema": CALC_SCHEMA,
    }
    assert dig(stub.last.body, "tools", 1, "name") == "plugin_server_tool"


async def test_results_and_the_reply_share_one_user_message_ahead_of_new_text(
    stub: ProviderStub,
) -> None:
    async with claude(stub, "anthropic_text") as llm:
        await llm.invoke(conversation())

    assert stub.last.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What is 2 + 3, and where am I?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me add, and ask you."},
                {
                    "type": "tool_use",
                    "id": "call_add",
                    "name": "calc_add",
                    "input": {"a": 2, "b": 3},
                },
                {
                    "type": "tool_use",
                    "id": "call_ask",
                    "name": "ask_participant",
                    "input": {"question": "Which city?"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_add", "content": "5"},
                {"type": "tool_result", "tool_use_id": "call_ask", "content": "Lyon"},
                {"type": "text", "text": "And the weather there?"},
            ],
        },
    ]


async def test_an_error_result_is_flagged_and_text_after_results_stays_after_them(
    stub: ProviderStub,
) -> None:
    request = LLMRequest(
        instructions="Be brief.",
        input=(
            UserItem(message_id="m1", text="Add and search."),
            AssistantItem(
                text="",
                tool_calls=(
                    ToolCall(call_id="c1", name="calc.add", arguments={"a": 1, "b": 1}),
                    ToolCall(call_id="c2", name="plugin/server.tool", arguments={}),
                ),
            ),
            ToolResultItem(call_id="c1", name="calc.add", text="2"),
            UserItem(message_id="m2", text="hurry"),
            ToolResultItem(call_id="c2", name="plugin/server.tool", text="boom", is_error=True),
        ),
        tools=TOOLS,
    )
    async with claude(stub, "anthropic_text") as llm:
        await llm.invoke(request)

    assert dig(stub.last.body, "messages", 1, "content") == [
        {"type": "tool_use", "id": "c1", "name": "calc_add", "input": {"a": 1, "b": 1}},
        {"type": "tool_use", "id": "c2", "name": "plugin_server_tool", "input": {}},
    ]
    assert dig(stub.last.body, "messages", 2, "content") == [
        {"type": "tool_result", "tool_use_id": "c1", "content": "2"},
        {"type": "tool_result", "tool_use_id": "c2", "content": "boom", "is_error": True},
        {"type": "text", "text": "hurry"},
    ]


# -- what the adapter makes of the answer ----------------------------------------------------


async def test_text_answer_counts_cache_reads_as_cached_input(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_text") as llm:
        response = await llm.invoke(conversation())

    assert response.output_text == "Two plus three is five."
    assert response.usage == Usage(input_tokens=14 + 1920, cached_tokens=1920, output_tokens=12)
    assert response.model == "claude-sonnet-5-5"
    assert response.finish == "stop"


async def test_tool_use_comes_back_under_our_names(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_tool_use") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == "tool_calls"
    assert response.output_text == "I'll add those and look it up."
    assert response.tool_calls == (
        ToolCall(
            call_id="toolu_01A09q90qw90lq917835lq9", name="calc.add", arguments={"a": 2, "b": 3}
        ),
        ToolCall(
            call_id="toolu_01B18r81rx81mr826746mr8",
            name="plugin/server.tool",
            arguments={"query": "weather in Lyon"},
        ),
    )
    # A cache write counts as input, not as cached.
    assert response.usage == Usage(input_tokens=38 + 2210, cached_tokens=0, output_tokens=96)


async def test_refusal_gives_the_explanation_and_the_refusal_finish(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_refusal") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == REFUSAL_FINISH
    assert response.output_text == "This request asks for working malware, which I can't help with."
    assert response.output_text != REFUSAL_TEXT


async def test_max_tokens_is_length_and_drops_the_cut_off_tool_use(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_max_tokens") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == "length"
    assert response.output_text == "Here is the first part of a very long answer that"
    assert response.tool_calls == ()


async def test_streamed_events_are_assembled_into_the_same_response(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_stream", stream=True) as llm:
        response = await llm.invoke(conversation())

    assert stub.last.body["stream"] is True
    assert dig(stub.last.body, "system", 0, "cache_control") == {"type": "ephemeral"}
    assert response.output_text == "Adding them now."
    assert response.tool_calls == (
        ToolCall(
            call_id="toolu_01D36t63tz63ot644548ot6", name="calc.add", arguments={"a": 2, "b": 3}
        ),
    )
    assert response.usage == Usage(input_tokens=25 + 2048, cached_tokens=2048, output_tokens=41)
    assert response.finish == "tool_calls"


# -- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "error", "status"),
    [
        ("anthropic_rate_limited", RetryableProviderError, 429),
        ("anthropic_overloaded", RetryableProviderError, 529),
        ("anthropic_bad_request", ProviderRequestError, 400),
        ("anthropic_unauthorized", ProviderRequestError, 401),
        ("drop-connection", RetryableProviderError, None),
    ],
)
async def test_failures_are_classified_and_never_echo_the_key(
    stub: ProviderStub, scenario: str, error: type[ProviderError], status: int | None
) -> None:
    async with claude(stub, scenario) as llm:
        with pytest.raises(ProviderError) as caught:
            await llm.invoke(conversation())

    assert type(caught.value) is error
    assert caught.value.status == status
    assert caught.value.provider == "anthropic"
    assert KEY.get_secret_value() not in str(caught.value)
    assert caught.value.__cause__ is None


async def test_bad_request_keeps_the_reason_and_redacts_the_key(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_bad_request") as llm:
        with pytest.raises(ProviderRequestError) as caught:
            await llm.invoke(conversation())

    assert "String should match pattern" in caught.value.message
    assert "[redacted]" in caught.value.message


async def test_an_error_event_inside_a_stream_is_retryable(stub: ProviderStub) -> None:
    async with claude(stub, "anthropic_stream_error", stream=True) as llm:
        with pytest.raises(RetryableProviderError, match="Overloaded") as caught:
            await llm.invoke(conversation())

    assert caught.value.status is None


async def test_a_call_that_gets_no_answer_in_time_is_retryable(stub: ProviderStub) -> None:
    async with claude(stub, "hang", timeout_seconds=0.2) as llm:
        with pytest.raises(RetryableProviderError, match="timed out"):
            await llm.invoke(conversation())


async def test_info_names_the_provider_and_model() -> None:
    llm = AnthropicLLM(model="claude-sonnet-5-5", api_key=KEY)
    try:
        assert llm.info.provider == "anthropic"
        assert llm.info.context_window == 200_000
        assert str(llm.ref) == "llm:anthropic:claude-sonnet-5-5"
    finally:
        await llm.aclose()

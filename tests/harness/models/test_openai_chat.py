"""`OpenAIChatLLM` over real HTTP against the provider stub (Chat Completions recordings)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from pydantic import SecretStr

from tests.harness.models.provider_stub import (
    CALC_SCHEMA,
    KEY,
    ProviderStub,
    conversation,
    dig,
)
from tiny_harness.errors import (
    ProviderError,
    ProviderRequestError,
    ProviderResponseError,
    RetryableProviderError,
)
from tiny_harness.harness.models.llm import Usage
from tiny_harness.harness.models.openai_chat import OpenAIChatLLM
from tiny_harness.harness.models.wire import REFUSAL_FINISH, REFUSAL_TEXT
from tiny_harness.harness.tools.definition import ToolCall


@pytest.fixture(scope="module")
async def stub() -> AsyncIterator[ProviderStub]:
    async with ProviderStub() as server:
        yield server


@asynccontextmanager
async def chat_llm(
    stub: ProviderStub,
    scenario: str,
    *,
    stream: bool = False,
    api_key: SecretStr | None = KEY,
    timeout_seconds: float = 5.0,
) -> AsyncIterator[OpenAIChatLLM]:
    llm = OpenAIChatLLM(
        model="gpt-4.1-mini",
        api_key=api_key,
        base_url=f"{stub.base_url(scenario)}/v1",
        stream=stream,
        timeout_seconds=timeout_seconds,
    )
    try:
        yield llm
    finally:
        await llm.aclose()


# -- what the adapter sends ------------------------------------------------------------------


async def test_messages_start_with_the_instructions_and_keep_the_conversation_order(
    stub: ProviderStub,
) -> None:
    async with chat_llm(stub, "chat_text") as llm:
        await llm.invoke(conversation())

    sent = stub.last
    assert sent.path == "v1/chat/completions"
    assert sent.body["model"] == "gpt-4.1-mini"
    assert sent.body["messages"] == [
        {"role": "system", "content": "You are a careful assistant."},
        {"role": "user", "content": "What is 2 + 3, and where am I?"},
        {
            "role": "assistant",
            "content": "Let me add, and ask you.",
            "tool_calls": [
                {
                    "id": "call_add",
                    "type": "function",
                    "function": {"name": "calc_add", "arguments": '{"a": 2, "b": 3}'},
                },
                {
                    "id": "call_ask",
                    "type": "function",
                    "function": {
                        "name": "ask_participant",
                        "arguments": '{"question": "Which city?"}',
                    },
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_add", "content": "5"},
        {"role": "tool", "tool_call_id": "call_ask", "content": "Lyon"},
        {"role": "user", "content": "And the weather there?"},
    ]


async def test_tools_are_function_tools_under_wire_names_with_the_cache_key(
    stub: ProviderStub,
) -> None:
    async with chat_llm(stub, "chat_text") as llm:
        await llm.invoke(conversation())

    body = stub.last.body
    assert dig(body, "tools", 0) == {
        "type": "function",
        "function": {
            "name": "calc_add",
            "description": "Add two numbers.",
            "parameters": CALC_SCHEMA,
        },
    }
    assert dig(body, "tools", 1, "function", "name") == "plugin_server_tool"
    assert body["prompt_cache_key"] == "task-7f3a"
    assert "store" not in body
    assert "stream" not in body


async def test_no_cache_key_and_no_key_send_neither(stub: ProviderStub) -> None:
    async with chat_llm(stub, "chat_text", api_key=None) as llm:
        await llm.invoke(conversation(cache_key=None))

    assert "prompt_cache_key" not in stub.last.body
    assert stub.last.headers["authorization"] == "Bearer unused"


# -- what the adapter makes of the answer ----------------------------------------------------


async def test_text_answer_has_text_and_usage_with_cached_tokens(stub: ProviderStub) -> None:
    async with chat_llm(stub, "chat_text") as llm:
        response = await llm.invoke(conversation())

    assert response.output_text == "Two plus three is five."
    assert response.usage == Usage(input_tokens=1893, cached_tokens=1664, output_tokens=9)
    assert response.model == "gpt-4.1-mini-2025-04-14"
    assert response.finish == "stop"


async def test_tool_calls_come_back_under_our_names(stub: ProviderStub) -> None:
    async with chat_llm(stub, "chat_tool_calls") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == "tool_calls"
    assert response.output_text == ""
    assert response.tool_calls == (
        ToolCall(
            call_id="call_Qm3Xy7LpV2nR8sT1uW4zA6bC", name="calc.add", arguments={"a": 2, "b": 3}
        ),
        ToolCall(
            call_id="call_Hk9Jd2Fs5Gh8Lm1Nb4Vc7Xz0",
            name="plugin/server.tool",
            arguments={"query": "weather in Lyon"},
        ),
    )


async def test_tool_calls_with_a_stop_finish_still_finish_with_tool_calls(
    stub: ProviderStub,
) -> None:
    async with chat_llm(stub, "chat_ollama_tool_call") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == "tool_calls"
    assert response.output_text == ""
    assert response.tool_calls[0].name == "calc.add"
    assert response.usage == Usage(input_tokens=212, cached_tokens=0, output_tokens=24)


async def test_refusal_is_the_output_text_with_the_refusal_finish(stub: ProviderStub) -> None:
    async with chat_llm(stub, "chat_refusal") as llm:
        response = await llm.invoke(conversation())

    assert response.output_text == "I'm sorry, I can't assist with that."
    assert response.finish == REFUSAL_FINISH


async def test_content_filter_gets_the_refusal_finish(stub: ProviderStub) -> None:
    async with chat_llm(stub, "chat_content_filter") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == REFUSAL_FINISH
    assert response.output_text == REFUSAL_TEXT


async def test_length_finish_is_length(stub: ProviderStub) -> None:
    async with chat_llm(stub, "chat_length") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == "length"
    assert response.output_text == "Here is the first part of a very long answer that"


async def test_arguments_that_are_not_an_object_raise_a_response_error(
    stub: ProviderStub,
) -> None:
    async with chat_llm(stub, "chat_invalid_arguments") as llm:
        with pytest.raises(ProviderResponseError, match="not a JSON object") as caught:
            await llm.invoke(conversation())

    assert caught.value.provider == "openai-chat"


async def test_streamed_chunks_are_assembled_with_usage_from_the_last_chunk(
    stub: ProviderStub,
) -> None:
    async with chat_llm(stub, "chat_stream", stream=True) as llm:
        response = await llm.invoke(conversation())

    assert stub.last.body["stream"] is True
    assert stub.last.body["stream_options"] == {"include_usage": True}
    assert response.output_text == "Adding them now."
    assert response.tool_calls == (
        ToolCall(
            call_id="call_St4Re5Am6In7Gx8Yz9Ab0Cd1", name="calc.add", arguments={"a": 2, "b": 3}
        ),
        ToolCall(call_id="call_Uv5Wx6Yz7Ab8Cd9Ef0Gh1Ij2", name="plugin/server.tool", arguments={}),
    )
    assert response.usage == Usage(input_tokens=2300, cached_tokens=2048, output_tokens=31)
    assert response.finish == "tool_calls"


# -- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "error", "status"),
    [
        ("openai_rate_limited", RetryableProviderError, 429),
        ("openai_server_error", RetryableProviderError, 500),
        ("openai_bad_request", ProviderRequestError, 400),
        ("openai_unauthorized", ProviderRequestError, 401),
        ("drop-connection", RetryableProviderError, None),
    ],
)
async def test_failures_are_classified_and_never_echo_the_key(
    stub: ProviderStub, scenario: str, error: type[ProviderError], status: int | None
) -> None:
    async with chat_llm(stub, scenario) as llm:
        with pytest.raises(ProviderError) as caught:
            await llm.invoke(conversation())

    assert type(caught.value) is error
    assert caught.value.status == status
    assert caught.value.provider == "openai-chat"
    assert KEY.get_secret_value() not in str(caught.value)


async def test_a_call_that_gets_no_answer_in_time_is_retryable(stub: ProviderStub) -> None:
    async with chat_llm(stub, "hang", timeout_seconds=0.2) as llm:
        with pytest.raises(RetryableProviderError, match="timed out"):
            await llm.invoke(conversation())


async def test_info_names_the_provider_and_model() -> None:
    llm = OpenAIChatLLM(model="qwen3:8b", base_url="http://127.0.0.1:11434/v1")
    try:
        assert llm.info.provider == "openai-chat"
        assert llm.info.model == "qwen3:8b"
        assert llm.info.context_window == 128_000
    finally:
        await llm.aclose()

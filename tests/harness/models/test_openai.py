"""`OpenAILLM` over real HTTP against the provider stub, and the wire names it relies on."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

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
from tiny_harness.harness.models.llm import LLMRequest, Usage, UserItem
from tiny_harness.harness.models.openai import OpenAILLM
from tiny_harness.harness.models.wire import MAX_WIRE_NAME, REFUSAL_FINISH, WireNames
from tiny_harness.harness.tools.definition import ToolCall

WIRE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@pytest.fixture(scope="module")
async def stub() -> AsyncIterator[ProviderStub]:
    async with ProviderStub() as server:
        yield server


@asynccontextmanager
async def responses_llm(
    stub: ProviderStub, scenario: str, *, stream: bool = False, timeout_seconds: float = 5.0
) -> AsyncIterator[OpenAILLM]:
    llm = OpenAILLM(
        model="gpt-5.1",
        api_key=KEY,
        base_url=f"{stub.base_url(scenario)}/v1",
        stream=stream,
        timeout_seconds=timeout_seconds,
    )
    try:
        yield llm
    finally:
        await llm.aclose()


async def answer(stub: ProviderStub, scenario: str, request: LLMRequest | None = None) -> None:
    async with responses_llm(stub, scenario) as llm:
        await llm.invoke(request or conversation())


# -- what the adapter sends ------------------------------------------------------------------


async def test_request_carries_instructions_tools_cache_key_and_is_not_stored(
    stub: ProviderStub,
) -> None:
    await answer(stub, "openai_text")

    sent = stub.last
    assert sent.path == "v1/responses"
    assert sent.headers["authorization"] == f"Bearer {KEY.get_secret_value()}"
    assert sent.body["model"] == "gpt-5.1"
    assert sent.body["instructions"] == "You are a careful assistant."
    assert sent.body["store"] is False
    assert sent.body["prompt_cache_key"] == "task-7f3a"
    assert "stream" not in sent.body
    assert dig(sent.body, "tools", 0) == {
        "type": "function",
        "name": "calc_add",
        "description": "Add two numbers.",
        "parameters": CALC_SCHEMA,
        "strict": False,
    }
    assert [dig(sent.body, "tools", i, "name") for i in range(3)] == [
        "calc_add",
        "plugin_server_tool",
        "ask_participant",
    ]


async def test_input_keeps_order_and_a_reply_is_the_asked_calls_output(
    stub: ProviderStub,
) -> None:
    await answer(stub, "openai_text")

    assert stub.last.body["input"] == [
        {"type": "message", "role": "user", "content": "What is 2 + 3, and where am I?"},
        {"type": "message", "role": "assistant", "content": "Let me add, and ask you."},
        {
            "type": "function_call",
            "call_id": "call_add",
            "name": "calc_add",
            "arguments": '{"a": 2, "b": 3}',
        },
        {
            "type": "function_call",
            "call_id": "call_ask",
            "name": "ask_participant",
            "arguments": '{"question": "Which city?"}',
        },
        {"type": "function_call_output", "call_id": "call_add", "output": "5"},
        {"type": "function_call_output", "call_id": "call_ask", "output": "Lyon"},
        {"type": "message", "role": "user", "content": "And the weather there?"},
    ]


async def test_request_without_cache_key_sends_no_prompt_cache_key(stub: ProviderStub) -> None:
    await answer(stub, "openai_text", conversation(cache_key=None))

    assert "prompt_cache_key" not in stub.last.body


async def test_request_without_tools_sends_an_empty_tool_list(stub: ProviderStub) -> None:
    request = LLMRequest(instructions="Be brief.", input=(UserItem(message_id="m", text="hi"),))

    await answer(stub, "openai_text", request)

    assert stub.last.body["tools"] == []
    assert stub.last.body["input"] == [{"type": "message", "role": "user", "content": "hi"}]


# -- what the adapter makes of the answer ----------------------------------------------------


async def test_text_answer_has_text_usage_with_cached_tokens_and_stops(
    stub: ProviderStub,
) -> None:
    async with responses_llm(stub, "openai_text") as llm:
        response = await llm.invoke(conversation())

    assert response.output_text == "Two plus three is five."
    assert response.tool_calls == ()
    assert response.usage == Usage(input_tokens=2148, cached_tokens=1920, output_tokens=9)
    assert response.model == "gpt-5.1-2025-11-13"
    assert response.finish == "stop"


async def test_tool_calls_come_back_under_our_names_with_argument_objects(
    stub: ProviderStub,
) -> None:
    async with responses_llm(stub, "openai_tool_calls") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == "tool_calls"
    assert response.output_text == "Let me add those and look it up."
    assert response.tool_calls == (
        ToolCall(
            call_id="call_Qm3Xy7LpV2nR8sT1uW4zA6bC", name="calc.add", arguments={"a": 2, "b": 3}
        ),
        ToolCall(
            call_id="call_Hk9Jd2Fs5Gh8Lm1Nb4Vc7Xz0",
            name="plugin/server.tool",
            arguments={"query": "weather in Lyon"},
        ),
        # Unknown to us: the name comes back as sent, so the loop reports ToolNotFound.
        ToolCall(call_id="call_Zz1Yy2Xx3Ww4Vv5Uu6Tt7Ss8", name="no_such_tool", arguments={}),
    )
    assert response.usage.cached_tokens == 3072


async def test_refusal_is_the_output_text_with_the_refusal_finish(stub: ProviderStub) -> None:
    async with responses_llm(stub, "openai_refusal") as llm:
        response = await llm.invoke(conversation())

    assert response.output_text == "I'm sorry, but I can't help with that request."
    assert response.finish == REFUSAL_FINISH
    assert response.tool_calls == ()


async def test_content_filter_stop_gets_the_refusal_finish(stub: ProviderStub) -> None:
    async with responses_llm(stub, "openai_content_filter") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == REFUSAL_FINISH
    assert response.output_text == "The story begins"


async def test_max_output_tokens_is_length_and_drops_the_cut_off_call(
    stub: ProviderStub,
) -> None:
    async with responses_llm(stub, "openai_length") as llm:
        response = await llm.invoke(conversation())

    assert response.finish == "length"
    assert response.output_text == "Here is the first part of a very long answer that"
    assert response.tool_calls == ()
    assert response.usage == Usage(input_tokens=1500, cached_tokens=1024, output_tokens=64)


async def test_arguments_that_are_not_json_raise_a_response_error(stub: ProviderStub) -> None:
    async with responses_llm(stub, "openai_invalid_arguments") as llm:
        with pytest.raises(ProviderResponseError, match=r"calc\.add") as caught:
            await llm.invoke(conversation())

    assert caught.value.provider == "openai"


async def test_failed_response_raises_a_response_error(stub: ProviderStub) -> None:
    async with responses_llm(stub, "openai_failed") as llm:
        with pytest.raises(ProviderResponseError, match="server_error"):
            await llm.invoke(conversation())


async def test_streamed_answer_is_assembled_into_the_same_response(stub: ProviderStub) -> None:
    async with responses_llm(stub, "openai_stream", stream=True) as llm:
        response = await llm.invoke(conversation())

    assert stub.last.body["stream"] is True
    assert stub.last.body["store"] is False
    assert response.output_text == "Adding them now."
    assert response.tool_calls == (
        ToolCall(
            call_id="call_St4Re5Am6In7Gx8Yz9Ab0Cd1", name="calc.add", arguments={"a": 2, "b": 3}
        ),
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
    async with responses_llm(stub, scenario) as llm:
        with pytest.raises(ProviderError) as caught:
            await llm.invoke(conversation())

    assert type(caught.value) is error
    assert caught.value.status == status
    assert caught.value.provider == "openai"
    assert KEY.get_secret_value() not in str(caught.value)
    assert caught.value.__cause__ is None


async def test_bad_request_message_keeps_the_providers_reason_without_the_key(
    stub: ProviderStub,
) -> None:
    async with responses_llm(stub, "openai_bad_request") as llm:
        with pytest.raises(ProviderRequestError) as caught:
            await llm.invoke(conversation())

    assert "Invalid schema for function 'calc_add'" in caught.value.message
    assert "[redacted]" in caught.value.message


async def test_a_call_that_gets_no_answer_in_time_is_retryable(stub: ProviderStub) -> None:
    async with responses_llm(stub, "hang", timeout_seconds=0.2) as llm:
        with pytest.raises(RetryableProviderError, match="timed out") as caught:
            await llm.invoke(conversation())

    assert caught.value.status is None


async def test_info_names_the_provider_and_model() -> None:
    llm = OpenAILLM(model="gpt-5.1", api_key=KEY, context_window=272_000)
    try:
        assert llm.info.provider == "openai"
        assert llm.info.model == "gpt-5.1"
        assert llm.info.context_window == 272_000
        assert str(llm.ref) == "llm:openai:gpt-5.1"
        assert KEY.get_secret_value() not in repr(llm)
    finally:
        await llm.aclose()


# -- wire names (shared by every adapter) ----------------------------------------------------


def test_valid_names_go_on_the_wire_unchanged() -> None:
    names = WireNames(["calc_add", "search-web", "A1"])

    assert [names.to_wire(n) for n in ("calc_add", "search-web", "A1")] == [
        "calc_add",
        "search-web",
        "A1",
    ]


def test_invalid_characters_become_underscores_and_map_back() -> None:
    names = WireNames(["calc.add", "plugin/server.tool"])

    assert names.to_wire("calc.add") == "calc_add"
    assert names.to_wire("plugin/server.tool") == "plugin_server_tool"
    assert names.from_wire("plugin_server_tool") == "plugin/server.tool"


def test_names_that_would_collide_get_distinct_hashed_wire_names() -> None:
    names = WireNames(["calc.add", "calc/add", "calc_add"])

    wires = {n: names.to_wire(n) for n in ("calc.add", "calc/add", "calc_add")}
    assert wires["calc_add"] == "calc_add"
    assert len(set(wires.values())) == 3
    assert all(WIRE.fullmatch(w) for w in wires.values())
    assert all(names.from_wire(w) == n for n, w in wires.items())


def test_wire_names_do_not_depend_on_the_order_of_the_names() -> None:
    forward = WireNames(["a.b", "a/b", "x" * 80, "y.z"])
    backward = WireNames(["y.z", "x" * 80, "a/b", "a.b"])

    for name in ("a.b", "a/b", "x" * 80, "y.z"):
        assert forward.to_wire(name) == backward.to_wire(name)


def test_long_names_are_cut_to_the_limit_with_a_hash_and_stay_distinct() -> None:
    first, second = "plugin/" + "a" * 70 + ".one", "plugin/" + "a" * 70 + ".two"
    names = WireNames([first, second])

    assert len(names.to_wire(first)) == MAX_WIRE_NAME
    assert names.to_wire(first) != names.to_wire(second)
    assert names.from_wire(names.to_wire(second)) == second


def test_unknown_wire_names_come_back_unchanged() -> None:
    assert WireNames(["calc.add"]).from_wire("rm_rf") == "rm_rf"


def test_history_names_are_kept_apart_from_the_offered_tools() -> None:
    request = conversation()
    names = WireNames.for_request(request)

    assert names.to_wire("calc.add") == "calc_add"
    assert names.from_wire("ask_participant") == "ask_participant"
    # A name seen nowhere in the request is still made safe, deterministically.
    assert WIRE.fullmatch(names.to_wire("gone/tool.name"))
    assert names.to_wire("gone/tool.name") == names.to_wire("gone/tool.name")

"""`OpenAIChatLLM`: Chat Completions behind the `LLM` interface, against any `base_url`.

    LLMRequest ──► chat.completions.create(model, messages=[system, ...], tools,
                                           prompt_cache_key?)      (or streamed)
    completion ──► _Answer ──► LLMResponse(output_text, tool_calls, usage, finish)

For OpenAI-compatible servers (Ollama, vLLM, llama.cpp) as well as OpenAI itself, so it
sends only fields those servers understand: no `strict`, no `store`, `prompt_cache_key` only
when the request has a cache key. A streamed answer is folded into the same `_Answer` as a
plain one. Shares `guarded` (error mapping) with the Responses adapter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import openai
from openai import Omit
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionAssistantMessageParam,
    ChatCompletionChunk,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
)
from openai.types.completion_usage import CompletionUsage
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import SecretStr

from tiny_harness.errors import ProviderResponseError
from tiny_harness.harness.models.llm import (
    AssistantItem,
    FinishReason,
    LLMRequest,
    LLMResponse,
    ToolResultItem,
    Usage,
    UserItem,
)
from tiny_harness.harness.models.openai import guarded
from tiny_harness.harness.models.wire import (
    REFUSAL_FINISH,
    REFUSAL_TEXT,
    ProviderModel,
    WireNames,
    parse_arguments,
)
from tiny_harness.harness.tools.definition import ToolCall, ToolDefinition

PROVIDER = "openai-chat"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
_NO_KEY = "unused"  # local servers take no key, but the SDK insists on one


@dataclass
class _RawCall:
    call_id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class _Answer:
    """One completion's first choice, whether it arrived whole or in chunks."""

    model: str = ""
    text: str = ""
    refusal: str = ""
    calls: dict[int, _RawCall] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: CompletionUsage | None = None


class OpenAIChatLLM(ProviderModel):
    """A model behind an OpenAI-compatible Chat Completions endpoint.

    `api_key` may be None for local servers. `stream=True` asks for server-sent events (with
    usage in the last chunk) and assembles them. Call `aclose` when done with the adapter.
    """

    PROVIDER = PROVIDER

    def __init__(
        self,
        *,
        model: str,
        api_key: SecretStr | None = None,
        base_url: str | None = None,
        context_window: int = 128_000,
        max_output_tokens: int | None = None,
        timeout_seconds: float = 300.0,
        stream: bool = False,
    ) -> None:
        super().__init__(
            model=model,
            context_window=context_window,
            max_output_tokens=max_output_tokens,
            timeout_seconds=timeout_seconds,
            stream=stream,
        )
        self._client = openai.AsyncOpenAI(
            api_key=api_key.get_secret_value() if api_key is not None else _NO_KEY,
            base_url=base_url or DEFAULT_BASE_URL,
            http_client=self._http,
            max_retries=0,
        )

    async def invoke(self, request: LLMRequest) -> LLMResponse:
        names = WireNames.for_request(request)
        call = self._streamed(request, names) if self._stream else self._create(request, names)
        answer = await guarded(call, provider=PROVIDER, secret=self._client.api_key)
        return parse_answer(answer, names)

    async def aclose(self) -> None:
        """Release the connection pool; the adapter cannot be used afterwards."""
        await self._client.close()

    async def _create(self, request: LLMRequest, names: WireNames) -> _Answer:
        completion = await self._client.chat.completions.create(
            model=self._model,
            messages=messages(request, names),
            tools=[tool_param(tool, names) for tool in request.tools] or openai.omit,
            response_format=response_format(request),
            prompt_cache_key=request.cache_key if request.cache_key is not None else openai.omit,
            max_completion_tokens=self._max_output_tokens or openai.omit,
        )
        return _from_completion(completion)

    async def _streamed(self, request: LLMRequest, names: WireNames) -> _Answer:
        stream = await self._client.chat.completions.create(
            model=self._model,
            messages=messages(request, names),
            tools=[tool_param(tool, names) for tool in request.tools] or openai.omit,
            response_format=response_format(request),
            prompt_cache_key=request.cache_key if request.cache_key is not None else openai.omit,
            max_completion_tokens=self._max_output_tokens or openai.omit,
            stream=True,
            stream_options={"include_usage": True},
        )
        answer = _Answer()
        async with stream:
            async for chunk in stream:
                _fold(answer, chunk)
        return answer


def response_format(request: LLMRequest) -> ResponseFormatJSONSchema | Omit:
    """A structured answer's schema as Chat Completions' JSON schema response format."""
    if request.output_schema is None:
        return openai.omit
    schema: dict[str, object] = dict(request.output_schema.json_schema)
    return {
        "type": "json_schema",
        "json_schema": {"name": request.output_schema.name, "schema": schema, "strict": False},
    }


def tool_param(tool: ToolDefinition, names: WireNames) -> ChatCompletionFunctionToolParam:
    """One tool as a Chat Completions function tool, under its wire name."""
    parameters: dict[str, object] = dict(tool.input_schema)
    return {
        "type": "function",
        "function": {
            "name": names.to_wire(tool.name),
            "description": tool.description,
            "parameters": parameters,
        },
    }


def messages(request: LLMRequest, names: WireNames) -> list[ChatCompletionMessageParam]:
    """The instructions as the system message, then the conversation in order. A reply to
    an `ask_participant` call is that call's tool message."""
    result: list[ChatCompletionMessageParam] = [{"role": "system", "content": request.instructions}]
    for item in request.input:
        if isinstance(item, UserItem):
            if item.reply_to is not None:
                result.append({"role": "tool", "tool_call_id": item.reply_to, "content": item.text})
            else:
                result.append({"role": "user", "content": item.text})
        elif isinstance(item, AssistantItem):
            result.append(_assistant(item, names))
        elif isinstance(item, ToolResultItem):
            result.append({"role": "tool", "tool_call_id": item.call_id, "content": item.text})
    return result


def _assistant(item: AssistantItem, names: WireNames) -> ChatCompletionAssistantMessageParam:
    if not item.tool_calls:
        return {"role": "assistant", "content": item.text}
    calls: list[ChatCompletionMessageFunctionToolCallParam] = [
        {
            "id": call.call_id,
            "type": "function",
            "function": {
                "name": names.to_wire(call.name),
                "arguments": json.dumps(call.arguments, ensure_ascii=False),
            },
        }
        for call in item.tool_calls
    ]
    return {"role": "assistant", "content": item.text or None, "tool_calls": calls}


def _from_completion(completion: ChatCompletion) -> _Answer:
    if not completion.choices:
        raise ProviderResponseError(f"{PROVIDER}: the answer has no choices", provider=PROVIDER)
    choice = completion.choices[0]
    message = choice.message
    answer = _Answer(
        model=completion.model,
        text=message.content or "",
        refusal=message.refusal or "",
        finish_reason=choice.finish_reason,
        usage=completion.usage,
    )
    for index, call in enumerate(message.tool_calls or ()):
        if call.type == "function":
            answer.calls[index] = _RawCall(call.id, call.function.name, call.function.arguments)
    return answer


def _fold(answer: _Answer, chunk: ChatCompletionChunk) -> None:
    """Add one streamed chunk to the answer being assembled."""
    answer.model = chunk.model or answer.model
    if chunk.usage is not None:
        answer.usage = chunk.usage
    if not chunk.choices:
        return
    choice = chunk.choices[0]
    delta = choice.delta
    answer.text += delta.content or ""
    answer.refusal += delta.refusal or ""
    for part in delta.tool_calls or ():
        raw = answer.calls.setdefault(part.index, _RawCall())
        raw.call_id = part.id or raw.call_id
        if part.function is not None:
            raw.name += part.function.name or ""
            raw.arguments += part.function.arguments or ""
    if choice.finish_reason is not None:
        answer.finish_reason = choice.finish_reason


def parse_answer(answer: _Answer, names: WireNames) -> LLMResponse:
    """Text, tool calls, usage and finish of one answer. A truncated answer (`length`)
    drops a last call whose arguments were cut off; otherwise such a call raises."""
    truncated = answer.finish_reason == "length"
    calls: list[ToolCall] = []
    for index in sorted(answer.calls):
        raw = answer.calls[index]
        name = names.from_wire(raw.name)
        try:
            arguments = parse_arguments(PROVIDER, raw.arguments, tool=name)
        except ProviderResponseError:
            if truncated:
                continue
            raise
        calls.append(ToolCall(call_id=raw.call_id, name=name, arguments=arguments))
    refused = bool(answer.refusal) or answer.finish_reason == "content_filter"
    finish: FinishReason
    if refused:
        finish = REFUSAL_FINISH
    elif truncated:
        finish = "length"
    else:
        finish = "tool_calls" if calls else "stop"
    text = "\n".join(t for t in (answer.text, answer.refusal) if t)
    if refused and not text:
        text = REFUSAL_TEXT
    return LLMResponse(
        output_text=text,
        tool_calls=tuple(calls),
        usage=_usage(answer.usage),
        model=answer.model,
        finish=finish,
    )


def _usage(usage: CompletionUsage | None) -> Usage:
    if usage is None:
        return Usage()
    details = usage.prompt_tokens_details
    cached = details.cached_tokens if details is not None else None
    return Usage(
        input_tokens=usage.prompt_tokens,
        cached_tokens=cached or 0,
        output_tokens=usage.completion_tokens,
    )

"""`AnthropicLLM`: the Anthropic Messages API behind the `LLM` interface.

    LLMRequest ──► messages.create(model, max_tokens, system=[instructions, cache_control],
                                   messages, tools)            (or messages.stream)
    Message    ──► LLMResponse(output_text, tool_calls, usage, finish)

The instructions are one system block marked `cache_control: ephemeral`, so the tools and
the instructions (the static prefix) are cached across turns. Consecutive tool results
(and a participant's reply to `ask_participant`, which is that call's result) share one
user message, results first. The SDK never retries (`max_retries=0`); failures become our
typed provider errors. Never logs or echoes the API key.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Literal

import anthropic
from anthropic import Omit
from anthropic.types import (
    AssistantMessageParam,
    Message,
    MessageParam,
    OutputConfigParam,
    TextBlockParam,
    ToolParam,
    ToolResultBlockParam,
    ToolUseBlockParam,
    UserMessageParam,
)
from pydantic import SecretStr

from tiny_harness.errors import RetryableProviderError
from tiny_harness.harness.models.llm import (
    AssistantItem,
    FinishReason,
    LLMRequest,
    LLMResponse,
    ToolResultItem,
    Usage,
    UserItem,
)
from tiny_harness.harness.models.wire import (
    REFUSAL_FINISH,
    REFUSAL_TEXT,
    ProviderModel,
    WireNames,
    arguments_object,
    connection_error,
    error_detail,
    status_error,
)
from tiny_harness.harness.tools.definition import ToolCall, ToolDefinition

PROVIDER = "anthropic"
DEFAULT_BASE_URL = "https://api.anthropic.com"
_LENGTH_STOPS = frozenset({"max_tokens", "model_context_window_exceeded"})

type _Block = TextBlockParam | ToolUseBlockParam


@dataclass
class _Turn:
    """One message being built: tool results go before any other block of a user turn."""

    role: Literal["user", "assistant"]
    results: list[ToolResultBlockParam] = field(default_factory=list)
    blocks: list[_Block] = field(default_factory=list)

    def param(self) -> MessageParam:
        if self.role == "assistant":
            assistant: AssistantMessageParam = {"role": "assistant", "content": self.blocks}
            return assistant
        content: list[ToolResultBlockParam | _Block] = [*self.results, *self.blocks]
        user: UserMessageParam = {"role": "user", "content": content}
        return user


async def guarded[T](call: Awaitable[T], *, secret: str | None) -> T:
    """Await an Anthropic SDK call, turning its failures into our typed provider errors.

    The SDK's exception is not chained: it holds the request, whose headers carry the key.
    """
    try:
        return await call
    except anthropic.APIStatusError as exc:
        raise status_error(PROVIDER, exc.status_code, exc.body, secret=secret) from None
    except anthropic.APITimeoutError:
        raise connection_error(PROVIDER, timed_out=True) from None
    except anthropic.APIConnectionError:
        raise connection_error(PROVIDER, timed_out=False) from None
    except anthropic.APIError as exc:
        detail = error_detail(exc.body, secret=secret) or "the call failed"
        raise RetryableProviderError(f"{PROVIDER}: {detail}", provider=PROVIDER) from None


class AnthropicLLM(ProviderModel):
    """A model behind the Anthropic Messages API (or a server that speaks it at `base_url`).

    `max_output_tokens` is required by the API and defaults to 8192. `stream=True` reads the
    answer as server-sent events and assembles it. Call `aclose` when done with the adapter.
    """

    PROVIDER = PROVIDER

    def __init__(
        self,
        *,
        model: str,
        api_key: SecretStr,
        base_url: str | None = None,
        context_window: int = 200_000,
        max_output_tokens: int = 8192,
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
        self._max_tokens = max_output_tokens  # the Messages API requires it
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key.get_secret_value(),
            base_url=base_url or DEFAULT_BASE_URL,
            http_client=self._http,
            max_retries=0,
        )

    async def invoke(self, request: LLMRequest) -> LLMResponse:
        names = WireNames.for_request(request)
        call = self._streamed(request, names) if self._stream else self._create(request, names)
        message = await guarded(call, secret=self._client.api_key)
        return parse_message(message, names)

    async def aclose(self) -> None:
        """Release the connection pool; the adapter cannot be used afterwards."""
        await self._client.close()

    async def _create(self, request: LLMRequest, names: WireNames) -> Message:
        return await self._client.messages.create(
            model=self._model,
            max_tokens=self._max_tokens,
            system=system_blocks(request),
            messages=message_params(request, names),
            tools=[tool_param(tool, names) for tool in request.tools] or anthropic.omit,
            output_config=output_config(request),
        )

    async def _streamed(self, request: LLMRequest, names: WireNames) -> Message:
        manager = self._client.messages.stream(
            model=self._model,
            max_tokens=self._max_tokens,
            system=system_blocks(request),
            messages=message_params(request, names),
            tools=[tool_param(tool, names) for tool in request.tools] or anthropic.omit,
            output_config=output_config(request),
        )
        async with manager as stream:
            return await stream.get_final_message()


def system_blocks(request: LLMRequest) -> list[TextBlockParam]:
    """The instructions as one cached system block: the end of the cacheable prefix."""
    return [{"type": "text", "text": request.instructions, "cache_control": {"type": "ephemeral"}}]


def output_config(request: LLMRequest) -> OutputConfigParam | Omit:
    """A structured answer's schema as the Messages API's JSON output format."""
    if request.output_schema is None:
        return anthropic.omit
    schema: dict[str, object] = dict(request.output_schema.json_schema)
    return {"format": {"type": "json_schema", "schema": schema}}


def tool_param(tool: ToolDefinition, names: WireNames) -> ToolParam:
    """One tool as a Messages API tool, under its wire name."""
    schema: dict[str, object] = dict(tool.input_schema)
    return {
        "name": names.to_wire(tool.name),
        "description": tool.description,
        "input_schema": schema,
    }


def message_params(request: LLMRequest, names: WireNames) -> list[MessageParam]:
    """The conversation as alternating user and assistant messages, in order."""
    turns: list[_Turn] = []

    def turn(role: Literal["user", "assistant"]) -> _Turn:
        if not turns or turns[-1].role != role:
            turns.append(_Turn(role))
        return turns[-1]

    for item in request.input:
        if isinstance(item, UserItem):
            if item.reply_to is not None:
                turn("user").results.append(
                    {"type": "tool_result", "tool_use_id": item.reply_to, "content": item.text}
                )
            elif item.text:
                turn("user").blocks.append({"type": "text", "text": item.text})
        elif isinstance(item, AssistantItem):
            if item.text or item.tool_calls:
                _add_assistant(turn("assistant"), item, names)
        elif isinstance(item, ToolResultItem):
            result: ToolResultBlockParam = {
                "type": "tool_result",
                "tool_use_id": item.call_id,
                "content": item.text,
            }
            if item.is_error:
                result["is_error"] = True
            turn("user").results.append(result)
    return [t.param() for t in turns]


def _add_assistant(turn: _Turn, item: AssistantItem, names: WireNames) -> None:
    if item.text:
        turn.blocks.append({"type": "text", "text": item.text})
    for call in item.tool_calls:
        arguments: dict[str, object] = dict(call.arguments)
        turn.blocks.append(
            {
                "type": "tool_use",
                "id": call.call_id,
                "name": names.to_wire(call.name),
                "input": arguments,
            }
        )


def parse_message(message: Message, names: WireNames) -> LLMResponse:
    """Text, tool calls, usage and finish of a Messages API answer.

    A cut-off answer (`max_tokens`) drops a trailing tool call, whose input may be partial.
    A refusal keeps any text the model wrote, else the provider's explanation, else says
    the model declined.
    """
    blocks = list(message.content)
    truncated = message.stop_reason in _LENGTH_STOPS
    if truncated and blocks and blocks[-1].type == "tool_use":
        blocks.pop()
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in blocks:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            name = names.from_wire(block.name)
            arguments = arguments_object(PROVIDER, block.input, tool=name)
            calls.append(ToolCall(call_id=block.id, name=name, arguments=arguments))
    text = "".join(texts)
    finish: FinishReason
    if message.stop_reason == "refusal":
        finish = REFUSAL_FINISH
        details = message.stop_details
        text = text or (details.explanation if details else None) or REFUSAL_TEXT
    elif truncated:
        finish = "length"
    else:
        finish = "tool_calls" if calls else "stop"
    return LLMResponse(
        output_text=text,
        tool_calls=tuple(calls),
        usage=_usage(message),
        model=message.model,
        finish=finish,
    )


def _usage(message: Message) -> Usage:
    """Anthropic counts cache reads and writes apart from `input_tokens`; ours is the total."""
    usage = message.usage
    cached = usage.cache_read_input_tokens or 0
    written = usage.cache_creation_input_tokens or 0
    return Usage(
        input_tokens=usage.input_tokens + cached + written,
        cached_tokens=cached,
        output_tokens=usage.output_tokens,
    )

"""`OpenAILLM`: the OpenAI Responses API behind the `LLM` interface.

    LLMRequest ──► responses.create(model, instructions, input, tools, prompt_cache_key,
                                    store=False)            (or the same call, streamed)
    Response   ──► LLMResponse(output_text, tool_calls, usage, finish)

Every request is self-contained (`store=False`, no `previous_response_id`): an activity
retry repeats the call and nothing is left on the provider's side. The SDK never retries
(`max_retries=0`); the workflow owns retries and reads our typed errors to decide. Also home
of `guarded`, which the Chat Completions adapter shares. Never logs or echoes the API key.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable

import openai
from openai import Omit
from openai.types.responses import (
    FunctionToolParam,
    Response,
    ResponseCompletedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseFunctionToolCall,
    ResponseIncompleteEvent,
    ResponseInputItemParam,
    ResponseOutputItem,
    ResponseOutputItemDoneEvent,
    ResponseTextConfigParam,
)
from pydantic import SecretStr

from tiny_harness.errors import ProviderResponseError, RetryableProviderError
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
    connection_error,
    error_detail,
    parse_arguments,
    status_error,
)
from tiny_harness.harness.tools.definition import ToolCall, ToolDefinition

PROVIDER = "openai"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
_TERMINAL_EVENTS = (ResponseCompletedEvent, ResponseIncompleteEvent, ResponseFailedEvent)


async def guarded[T](call: Awaitable[T], *, provider: str, secret: str | None) -> T:
    """Await an OpenAI SDK call, turning its failures into our typed provider errors.

    The SDK's exception is not chained: it holds the request, whose headers carry the key.
    """
    try:
        return await call
    except openai.APIStatusError as exc:
        raise status_error(provider, exc.status_code, exc.body, secret=secret) from None
    except openai.APITimeoutError:
        raise connection_error(provider, timed_out=True) from None
    except openai.APIConnectionError:
        raise connection_error(provider, timed_out=False) from None
    except openai.APIError as exc:  # an error event inside a stream
        detail = error_detail(exc.body, secret=secret) or "the stream reported an error"
        raise RetryableProviderError(f"{provider}: {detail}", provider=provider) from None


class OpenAILLM(ProviderModel):
    """A model behind the OpenAI Responses API (or a server that speaks it at `base_url`).

    `stream=True` asks for the answer as server-sent events and assembles it; the result is
    the same `LLMResponse`. Call `aclose` when done with the adapter.
    """

    PROVIDER = PROVIDER

    def __init__(
        self,
        *,
        model: str,
        api_key: SecretStr,
        base_url: str | None = None,
        context_window: int = 400_000,
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
            api_key=api_key.get_secret_value(),
            base_url=base_url or DEFAULT_BASE_URL,
            http_client=self._http,
            max_retries=0,
        )

    async def invoke(self, request: LLMRequest) -> LLMResponse:
        names = WireNames.for_request(request)
        call = self._streamed(request, names) if self._stream else self._create(request, names)
        response = await guarded(call, provider=PROVIDER, secret=self._client.api_key)
        return parse_response(response, names)

    async def aclose(self) -> None:
        """Release the connection pool; the adapter cannot be used afterwards."""
        await self._client.close()

    async def _create(self, request: LLMRequest, names: WireNames) -> Response:
        return await self._client.responses.create(
            model=self._model,
            instructions=request.instructions,
            input=input_items(request, names),
            tools=[tool_param(tool, names) for tool in request.tools],
            text=text_format(request),
            prompt_cache_key=request.cache_key if request.cache_key is not None else openai.omit,
            max_output_tokens=self._max_output_tokens or openai.omit,
            store=False,
        )

    async def _streamed(self, request: LLMRequest, names: WireNames) -> Response:
        stream = await self._client.responses.create(
            model=self._model,
            instructions=request.instructions,
            input=input_items(request, names),
            tools=[tool_param(tool, names) for tool in request.tools],
            text=text_format(request),
            prompt_cache_key=request.cache_key if request.cache_key is not None else openai.omit,
            max_output_tokens=self._max_output_tokens or openai.omit,
            store=False,
            stream=True,
        )
        done: dict[int, ResponseOutputItem] = {}
        async with stream:
            async for event in stream:
                if isinstance(event, ResponseOutputItemDoneEvent):
                    done[event.output_index] = event.item
                elif isinstance(event, ResponseErrorEvent):
                    detail = error_detail({"message": event.message}, secret=self._client.api_key)
                    raise RetryableProviderError(f"{PROVIDER}: {detail}", provider=PROVIDER)
                elif isinstance(event, _TERMINAL_EVENTS):
                    final = event.response
                    if not final.output and done:  # some servers leave the items to the events
                        final = final.model_copy(update={"output": [done[i] for i in sorted(done)]})
                    return final
        raise ProviderResponseError(
            f"{PROVIDER}: the stream ended before the response was complete", provider=PROVIDER
        )


def text_format(request: LLMRequest) -> ResponseTextConfigParam | Omit:
    """A structured answer's schema as the Responses API's JSON schema text format."""
    if request.output_schema is None:
        return openai.omit
    schema: dict[str, object] = dict(request.output_schema.json_schema)
    return {
        "format": {
            "type": "json_schema",
            "name": request.output_schema.name,
            "schema": schema,
            "strict": False,
        }
    }


def tool_param(tool: ToolDefinition, names: WireNames) -> FunctionToolParam:
    """One tool as a Responses API function tool, under its wire name."""
    parameters: dict[str, object] = dict(tool.input_schema)
    return {
        "type": "function",
        "name": names.to_wire(tool.name),
        "description": tool.description,
        "parameters": parameters,
        "strict": False,
    }


def input_items(request: LLMRequest, names: WireNames) -> list[ResponseInputItemParam]:
    """The conversation as Responses input items, in order. A participant's reply to an
    `ask_participant` call is that call's output, so the model sees it exactly once."""
    items: list[ResponseInputItemParam] = []
    for item in request.input:
        if isinstance(item, UserItem):
            if item.reply_to is not None:
                items.append(
                    {"type": "function_call_output", "call_id": item.reply_to, "output": item.text}
                )
            else:
                items.append({"type": "message", "role": "user", "content": item.text})
        elif isinstance(item, AssistantItem):
            if item.text:
                items.append({"type": "message", "role": "assistant", "content": item.text})
            items.extend(
                {
                    "type": "function_call",
                    "call_id": call.call_id,
                    "name": names.to_wire(call.name),
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                }
                for call in item.tool_calls
            )
        elif isinstance(item, ToolResultItem):
            items.append(
                {"type": "function_call_output", "call_id": item.call_id, "output": item.text}
            )
    return items


def parse_response(response: Response, names: WireNames) -> LLMResponse:
    """Text, tool calls, usage and finish of a Responses API answer.

    A refusal (or a content-filter stop) becomes `REFUSAL_FINISH` with its text as the
    output; a failed or cancelled response raises `ProviderResponseError`. An answer cut off
    at `max_output_tokens` drops a call whose arguments were cut off with it.
    """
    if response.status in ("failed", "cancelled"):
        code = response.error.code if response.error is not None else "unknown"
        raise ProviderResponseError(
            f"{PROVIDER}: the response {response.status} ({code})", provider=PROVIDER
        )
    reason = response.incomplete_details.reason if response.incomplete_details else None
    texts: list[str] = []
    refusals: list[str] = []
    calls: list[ToolCall] = []
    for item in response.output:
        if item.type == "message":
            for part in item.content:
                if part.type == "output_text":
                    texts.append(part.text)
                else:
                    refusals.append(part.refusal)
        elif item.type == "function_call":
            call = _tool_call(item, names, truncated=reason == "max_output_tokens")
            if call is not None:
                calls.append(call)
    refused = bool(refusals) or reason == "content_filter"
    finish: FinishReason
    if refused:
        finish = REFUSAL_FINISH
    elif reason == "max_output_tokens":
        finish = "length"
    else:
        finish = "tool_calls" if calls else "stop"
    text = "\n".join(t for t in ("".join(texts), *refusals) if t)
    if refused and not text:
        text = REFUSAL_TEXT
    return LLMResponse(
        output_text=text,
        tool_calls=tuple(calls),
        usage=_usage(response),
        model=response.model,
        finish=finish,
    )


def _tool_call(
    item: ResponseFunctionToolCall, names: WireNames, *, truncated: bool
) -> ToolCall | None:
    name = names.from_wire(item.name)
    if truncated and item.status == "incomplete":
        return None
    try:
        arguments = parse_arguments(PROVIDER, item.arguments, tool=name)
    except ProviderResponseError:
        if truncated:
            return None
        raise
    return ToolCall(call_id=item.call_id, name=name, arguments=arguments)


def _usage(response: Response) -> Usage:
    usage = response.usage
    if usage is None:
        return Usage()
    return Usage(
        input_tokens=usage.input_tokens,
        cached_tokens=usage.input_tokens_details.cached_tokens,
        output_tokens=usage.output_tokens,
    )

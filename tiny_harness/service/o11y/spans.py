"""`SpanHooks`: the tracing HookExecutor, one span per model call and per tool call.

It subscribes to the pre and post points of `llm.invoked` and `tool.invoked`. At pre it
opens the span as a child of whatever is current (the activity's span, which Temporal's
tracing interceptor opened) and makes it current, so what the body calls (an MCP server,
another agent) joins it; at post it sets what the call came to and ends it. Names and
attributes follow the OpenTelemetry GenAI semantic conventions:

    chat {model}          gen_ai.operation.name=chat, gen_ai.provider.name,
                          gen_ai.request.model, gen_ai.response.model,
                          gen_ai.usage.input_tokens, gen_ai.usage.output_tokens,
                          gen_ai.usage.cache_read.input_tokens,
                          gen_ai.response.finish_reasons
    execute_tool {name}   gen_ai.operation.name=execute_tool, gen_ai.tool.name,
                          gen_ai.tool.call.id; status ERROR for an error result

Every span also carries `tiny_harness.task_id`, `tiny_harness.correlation_id` and
`tiny_harness.attempt`. Contents (the model's input and output, a tool's arguments and
result) are recorded only with `capture_content`, and then masked by the Redactor first.

A body that raises never reaches post: its span is ended, marked as an error, when the
same operation starts again (the activity's retry) or when more than `calls.MAX_OPEN` spans
are open at once, so none is held forever.
"""

from __future__ import annotations

import json

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from tiny_harness.harness.hooks import (
    HookContext,
    HookPoint,
    LLMInvokedPost,
    LLMInvokedPre,
    Phase,
    ToolInvokedPost,
    ToolInvokedPre,
)
from tiny_harness.harness.models.llm import LLMModelInfo
from tiny_harness.harness.security import Redactor
from tiny_harness.service.o11y.calls import (
    CALL_POINTS,
    PRIORITY,
    CallKey,
    OpenCalls,
    call_key,
)


class SpanHooks:
    """Spans for model and tool calls, from their hook points (see the module docstring)."""

    name = "o11y.spans"
    priority = PRIORITY
    points = CALL_POINTS

    def __init__(
        self,
        tracer: Tracer,
        model: LLMModelInfo,
        *,
        redactor: Redactor,
        capture_content: bool = False,
    ) -> None:
        self._tracer = tracer
        self._model = model
        self._redactor = redactor
        self._capture = capture_content
        self._open: OpenCalls[tuple[Span, object]] = OpenCalls()

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        """Open the operation's span at pre, end it at post; the context passes unchanged."""
        key = call_key(point, ctx)
        if point.phase is Phase.PRE:
            self._start(key, ctx)
        elif isinstance(ctx, LLMInvokedPost | ToolInvokedPost):
            self._end(key, ctx)
        return None

    def _start(self, key: CallKey, ctx: HookContext) -> None:
        if isinstance(ctx, LLMInvokedPre):
            span = self._tracer.start_span(
                f"chat {self._model.model}", kind=SpanKind.CLIENT, attributes=self._chat(ctx)
            )
        elif isinstance(ctx, ToolInvokedPre):
            span = self._tracer.start_span(
                f"execute_tool {ctx.call.name}", kind=SpanKind.INTERNAL, attributes=self._tool(ctx)
            )
        else:
            return
        token = otel_context.attach(trace.set_span_in_context(span))
        for dropped, _ in self._open.open(key, (span, token)):
            _abandon(dropped)

    def _end(self, key: CallKey, ctx: LLMInvokedPost | ToolInvokedPost) -> None:
        opened = self._open.close(key)
        if opened is None:
            return
        span, token = opened
        otel_context.detach(token)  # type: ignore[arg-type]
        if isinstance(ctx, LLMInvokedPost):
            self._answered(span, ctx)
        else:
            self._returned(span, ctx)
        span.end()

    def _chat(self, ctx: LLMInvokedPre) -> dict[str, str | int]:
        attributes = _common(ctx) | {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self._model.provider,
            "gen_ai.request.model": self._model.model,
        }
        if self._capture:
            items = [item.model_dump(mode="json") for item in ctx.request.input]
            attributes["gen_ai.input.messages"] = self._masked(json.dumps(items))
            attributes["gen_ai.system_instructions"] = self._masked(ctx.request.instructions)
        return attributes

    def _answered(self, span: Span, ctx: LLMInvokedPost) -> None:
        response = ctx.response
        span.set_attributes(
            {
                "gen_ai.response.model": response.model,
                "gen_ai.usage.input_tokens": response.usage.input_tokens,
                "gen_ai.usage.output_tokens": response.usage.output_tokens,
                "gen_ai.usage.cache_read.input_tokens": response.usage.cached_tokens,
                "gen_ai.response.finish_reasons": [response.finish],
            }
        )
        if self._capture:
            span.set_attribute("gen_ai.output.messages", self._masked(response.output_text))

    def _tool(self, ctx: ToolInvokedPre) -> dict[str, str | int]:
        attributes = _common(ctx) | {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": ctx.call.name,
            "gen_ai.tool.call.id": ctx.call.call_id,
        }
        if self._capture:
            arguments = json.dumps(ctx.call.arguments, sort_keys=True)
            attributes["gen_ai.tool.call.arguments"] = self._masked(arguments)
        return attributes

    def _returned(self, span: Span, ctx: ToolInvokedPost) -> None:
        if ctx.result.is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR, "the tool returned an error"))
        if self._capture:
            span.set_attribute("gen_ai.tool.call.result", self._masked(ctx.result.text))

    def _masked(self, text: str) -> str:
        return self._redactor.text(text)


def _abandon(span: Span) -> None:
    """End a span whose post never came: its body raised (or it was let go)."""
    span.set_status(Status(StatusCode.ERROR, "the operation ended without its post"))
    span.end()


def _common(ctx: HookContext) -> dict[str, str | int]:
    return {
        "tiny_harness.task_id": ctx.task_id,
        "tiny_harness.correlation_id": ctx.correlation_id,
        "tiny_harness.attempt": ctx.attempt,
    }

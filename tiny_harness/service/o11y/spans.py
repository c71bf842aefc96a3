"""`SpanHooks`: the tracing HookExecutor, one operation per model call and per tool call.

It subscribes to the pre and post points of `llm.invoked` and `tool.invoked`. At pre it
begins the call as an `OperationRun` (`operations.py`: one span and one record), its span a
child of whatever is current (the activity's span, which Temporal's tracing interceptor
opened) and made current, so what the body calls (an MCP server, another agent) joins it;
at post it sets what the call came to and ends it, which writes the record:

    task 5bc1…: llm.invoked chat script (812 in, 31 out): tool_calls
    task 5bc1…: tool.invoked create_plan: ok

It is registered in every process, traced or not (untraced, its spans are no-op ones and
only the records are written). Names and attributes follow the OpenTelemetry GenAI
semantic conventions:

    chat {model}          gen_ai.operation.name=chat, gen_ai.provider.name,
                          gen_ai.request.model, gen_ai.response.model,
                          gen_ai.usage.input_tokens, gen_ai.usage.output_tokens,
                          gen_ai.usage.cache_read.input_tokens,
                          gen_ai.response.finish_reasons
    execute_tool {name}   gen_ai.operation.name=execute_tool, gen_ai.tool.name,
                          gen_ai.tool.call.id; status ERROR for an error result

beside the operation's own `tiny_harness.*` attributes and `tiny_harness.attempt`. Contents
(the model's input and output, a tool's arguments and result) are recorded only with
`capture_content`, and then masked by the Redactor first; the record never holds them.

A body that raises never reaches post: its call is ended as `abandoned`, its span marked as
an error, when the same call starts again (the activity's retry) or when more than
`calls.MAX_OPEN` calls are open at once, so none is held forever.
"""

from __future__ import annotations

import json

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind

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
from tiny_harness.service.o11y.operations import OperationRun, Operations


class SpanHooks:
    """Spans for model and tool calls, from their hook points (see the module docstring)."""

    name = "o11y.spans"
    priority = PRIORITY
    points = CALL_POINTS

    def __init__(
        self,
        operations: Operations,
        model: LLMModelInfo,
        *,
        redactor: Redactor,
        capture_content: bool = False,
    ) -> None:
        self._operations = operations
        self._model = model
        self._redactor = redactor
        self._capture = capture_content
        self._open: OpenCalls[tuple[OperationRun, object]] = OpenCalls()

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        """Open the operation's span at pre, end it at post; the context passes unchanged."""
        key = call_key(point, ctx)
        if point.phase is Phase.PRE:
            self._start(key, ctx)
        elif isinstance(ctx, LLMInvokedPost | ToolInvokedPost):
            self._end(key, ctx)
        return None

    def _start(self, key: CallKey, ctx: HookContext) -> None:
        operation = key[0]
        if isinstance(ctx, LLMInvokedPre):
            name, kind, attributes = f"chat {self._model.model}", SpanKind.CLIENT, self._chat(ctx)
            detail = name
        elif isinstance(ctx, ToolInvokedPre):
            name, kind, attributes = (
                f"execute_tool {ctx.call.name}",
                SpanKind.INTERNAL,
                self._tool(ctx),
            )
            detail = ctx.call.name
        else:
            return
        run = self._operations.begin(
            operation, ctx.task_id, ctx.correlation_id, attributes, name=name, kind=kind
        )
        run.detail = detail
        token = otel_context.attach(trace.set_span_in_context(run.span))
        for dropped, _ in self._open.open(key, (run, token)):
            _abandon(dropped)

    def _end(self, key: CallKey, ctx: LLMInvokedPost | ToolInvokedPost) -> None:
        opened = self._open.close(key)
        if opened is None:
            return
        run, token = opened
        otel_context.detach(token)  # type: ignore[arg-type]
        if isinstance(ctx, LLMInvokedPost):
            self._answered(run, ctx)
        else:
            self._returned(run, ctx)
        run.end()

    def _chat(self, ctx: LLMInvokedPre) -> dict[str, str | int]:
        attributes: dict[str, str | int] = {
            "tiny_harness.attempt": ctx.attempt,
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self._model.provider,
            "gen_ai.request.model": self._model.model,
        }
        if self._capture:
            items = [item.model_dump(mode="json") for item in ctx.request.input]
            attributes["gen_ai.input.messages"] = self._masked(json.dumps(items))
            attributes["gen_ai.system_instructions"] = self._masked(ctx.request.instructions)
        return attributes

    def _answered(self, run: OperationRun, ctx: LLMInvokedPost) -> None:
        response = ctx.response
        usage = response.usage
        run.outcome = response.finish
        run.detail = f"chat {response.model} ({usage.input_tokens} in, {usage.output_tokens} out)"
        run.note(
            {
                "gen_ai.response.model": response.model,
                "gen_ai.usage.input_tokens": usage.input_tokens,
                "gen_ai.usage.output_tokens": usage.output_tokens,
                "gen_ai.usage.cache_read.input_tokens": usage.cached_tokens,
                "gen_ai.response.finish_reasons": [response.finish],
            }
        )
        if self._capture:
            run.note({"gen_ai.output.messages": self._masked(response.output_text)})

    def _tool(self, ctx: ToolInvokedPre) -> dict[str, str | int]:
        attributes: dict[str, str | int] = {
            "tiny_harness.attempt": ctx.attempt,
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": ctx.call.name,
            "gen_ai.tool.call.id": ctx.call.call_id,
        }
        if self._capture:
            arguments = json.dumps(ctx.call.arguments, sort_keys=True)
            attributes["gen_ai.tool.call.arguments"] = self._masked(arguments)
        return attributes

    def _returned(self, run: OperationRun, ctx: ToolInvokedPost) -> None:
        if ctx.result.is_error:
            run.outcome = "error"
            run.fail("tool_error", "the tool returned an error")
        if self._capture:
            run.note({"gen_ai.tool.call.result": self._masked(ctx.result.text)})

    def _masked(self, text: str) -> str:
        return self._redactor.text(text)


def _abandon(run: OperationRun) -> None:
    """End a call whose post never came: its body raised (or it was let go)."""
    run.outcome = "abandoned"
    run.fail("abandoned", "the operation ended without its post")
    run.end()

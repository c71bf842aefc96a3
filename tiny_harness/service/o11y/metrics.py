"""`MetricHooks`: the model and tool calls as metrics, from the same hook points as spans.

Two histograms, named and attributed by the OpenTelemetry GenAI semantic conventions:

    gen_ai.client.operation.duration  (s)        every model call (`chat`) and tool call
                                                 (`execute_tool`): gen_ai.operation.name,
                                                 gen_ai.provider.name, gen_ai.request.model
                                                 or gen_ai.tool.name, and error.type
                                                 (`tool_error`) for a tool's error result
    gen_ai.client.token.usage         ({token})  every model call's input and output tokens
                                                 (gen_ai.token.type `input` or `output`)

A call's duration runs from its pre point to its post point. A call that never reaches post
(its body raised) records no duration; at most `calls.MAX_OPEN` calls are timed at once.
"""

from __future__ import annotations

import time
from typing import Final

from opentelemetry.metrics import Meter

from tiny_harness.harness.hooks import (
    HookContext,
    HookPoint,
    LLMInvokedPost,
    Phase,
    ToolInvokedPost,
)
from tiny_harness.harness.models.llm import LLMModelInfo
from tiny_harness.service.o11y.calls import CALL_POINTS, PRIORITY, OpenCalls, call_key

DURATION: Final = "gen_ai.client.operation.duration"
TOKENS: Final = "gen_ai.client.token.usage"


class MetricHooks:
    """Durations and token counts of model and tool calls (see the module docstring)."""

    name = "o11y.metrics"
    priority = PRIORITY
    points = CALL_POINTS

    def __init__(self, meter: Meter, model: LLMModelInfo) -> None:
        self._model = model
        self._duration = meter.create_histogram(
            DURATION, unit="s", description="Duration of a model call or a tool call"
        )
        self._tokens = meter.create_histogram(
            TOKENS, unit="{token}", description="Tokens a model call took in and gave out"
        )
        self._started: OpenCalls[float] = OpenCalls()

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        """Note the start at pre; record the call at post. The context passes unchanged."""
        key = call_key(point, ctx)
        if point.phase is Phase.PRE:
            self._started.open(key, time.monotonic())  # a call let go records nothing
            return None
        started = self._started.close(key)
        if started is None:
            return None
        seconds = time.monotonic() - started
        if isinstance(ctx, LLMInvokedPost):
            self._chat(ctx, seconds)
        elif isinstance(ctx, ToolInvokedPost):
            self._tool(ctx, seconds)
        return None

    def _chat(self, ctx: LLMInvokedPost, seconds: float) -> None:
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self._model.provider,
            "gen_ai.request.model": self._model.model,
        }
        self._duration.record(seconds, attributes)
        usage = ctx.response.usage
        self._tokens.record(usage.input_tokens, attributes | {"gen_ai.token.type": "input"})
        self._tokens.record(usage.output_tokens, attributes | {"gen_ai.token.type": "output"})

    def _tool(self, ctx: ToolInvokedPost, seconds: float) -> None:
        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": ctx.call.name}
        if ctx.result.is_error:
            attributes["error.type"] = "tool_error"
        self._duration.record(seconds, attributes)

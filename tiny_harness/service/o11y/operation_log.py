"""`OperationLog`: one structured log record per model call and per tool call.

A HookExecutor at the post points of `llm.invoked` and `tool.invoked`, registered in every
environment (telemetry or not) and logging at INFO, so every process writes the same line
for the same work. Each record carries, as `extra` fields (`logs.FIELDS`), the task id, the
correlation id (a model call's activity id, a tool call's id), the operation, the phase
and the outcome: the finish reason of a model call, `ok` or `error` for a tool call. The
JSON log format writes them as keys beside the trace and span ids; the text format reads:

    task 5bc1…: llm.invoked chat script: tool_calls (812 in, 31 out)
    task 5bc1…: tool.invoked create_plan: ok

It logs no content: no prompt, answer, arguments or result.
"""

from __future__ import annotations

import logging
from typing import Final

from tiny_harness.harness.hooks import (
    HookContext,
    HookPoint,
    LLMInvokedPost,
    Operation,
    Phase,
    ToolInvokedPost,
)
from tiny_harness.service.o11y.calls import PRIORITY
from tiny_harness.service.o11y.operations import operation_fields

logger = logging.getLogger(__name__)

POINTS: Final = frozenset(
    HookPoint(operation, Phase.POST)
    for operation in (Operation.LLM_INVOKED, Operation.TOOL_INVOKED)
)


class OperationLog:
    """Logs each model and tool call once, at its post point (see the module docstring)."""

    name = "o11y.operation_log"
    priority = PRIORITY
    points = POINTS

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        """Log the call `ctx` ended; the context passes unchanged."""
        fields = operation_fields(point.operation, point.phase, ctx.task_id, ctx.correlation_id)
        if isinstance(ctx, LLMInvokedPost):
            answer = ctx.response
            logger.info(
                "task %s: llm.invoked chat %s: %s (%d in, %d out)",
                ctx.task_id,
                answer.model,
                answer.finish,
                answer.usage.input_tokens,
                answer.usage.output_tokens,
                extra=fields | {"outcome": answer.finish},
            )
        elif isinstance(ctx, ToolInvokedPost):
            outcome = "error" if ctx.result.is_error else "ok"
            logger.info(
                "task %s: tool.invoked %s: %s",
                ctx.task_id,
                ctx.call.name,
                outcome,
                extra=fields | {"outcome": outcome},
            )
        return None

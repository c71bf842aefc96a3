"""`invoke_agent`: the span of a message given to this agent, the task's own span.

The A2A handler opens it around starting a task or delivering a reply, under the request's
server span, so Temporal's spans (the update-with-start, the workflow, each activity, and
so every model and tool call) nest under it. Named and attributed by the OpenTelemetry
GenAI conventions: `invoke_agent {agent}` with `gen_ai.operation.name` = `invoke_agent`,
`gen_ai.agent.name`, `gen_ai.conversation.id` (the A2A context id) and
`tiny_harness.task_id`. It uses the process's global tracer provider: without telemetry
that is the OpenTelemetry API's no-op one, and the span costs next to nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind

from tiny_harness.harness.tasks.extension import TaskTrace


@contextmanager
def invoke_agent(agent: str, task_id: str, context_id: str) -> Iterator[Span]:
    """The current span, for as long as the block runs, of `agent` given a message for
    the task `task_id` in the context `context_id`."""
    tracer = trace.get_tracer("tiny_harness")
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agent,
        "gen_ai.conversation.id": context_id,
        "tiny_harness.task_id": task_id,
    }
    with tracer.start_as_current_span(
        f"invoke_agent {agent}", kind=SpanKind.INTERNAL, attributes=attributes
    ) as span:
        yield span


def current_trace(url_template: str | None) -> TaskTrace | None:
    """The trace the current span belongs to (a task started under `invoke_agent` is
    recorded in it), with its link when `url_template` (`o11y.trace_url`) names a viewer;
    None when nothing is traced."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    trace_id = format(context.trace_id, "032x")
    url = url_template.replace("{traceId}", trace_id) if url_template else None
    return TaskTrace(trace_id=trace_id, url=url)

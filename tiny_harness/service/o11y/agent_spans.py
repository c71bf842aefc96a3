"""`invoke_agent`: a message given to this agent, the task's own span.

The A2A handler runs it around starting a task or delivering a reply, under the request's
server span, so Temporal's spans (the update-with-start, the workflow, each activity, and
so every model and tool call) nest under it. It is an `agent.invoked` operation
(`operations.py`: one span and one record), named and attributed by the OpenTelemetry GenAI
conventions: `invoke_agent {agent}` with `gen_ai.operation.name` = `invoke_agent`,
`gen_ai.agent.name` and `gen_ai.conversation.id` (the A2A context id); its correlation id is
the message's id. It uses the process's global tracer provider: without telemetry that is
the OpenTelemetry API's no-op one, and the span costs next to nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace

from tiny_harness.harness.hooks import Operation
from tiny_harness.harness.tasks.extension import TaskTrace
from tiny_harness.service.o11y.operations import OperationRun, Operations

# A proxy: it traces by the global provider from the moment one is set.
_OPERATIONS = Operations(trace.get_tracer("tiny_harness"))


@contextmanager
def invoke_agent(
    agent: str, task_id: str, context_id: str, message_id: str
) -> Iterator[OperationRun]:
    """The current operation, for as long as the block runs, of `agent` given the message
    `message_id` for the task `task_id` in the context `context_id`."""
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agent,
        "gen_ai.conversation.id": context_id,
    }
    with _OPERATIONS.run(
        Operation.AGENT_INVOKED, task_id, message_id, attributes, name=f"invoke_agent {agent}"
    ) as run:
        run.detail = "a message"
        yield run


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

"""Observability (R17): traces and metrics of what a task did, over OTLP/HTTP; log lines.

    telemetry.py  the tracer and meter providers and their exporters, one per process
    operations.py `Operations` and `record`: the one way a span is opened and a log record
                  written, for every operation a task goes through
    spans.py      `SpanHooks`, the HookExecutor that turns model and tool calls into
                  operations: a GenAI span and a record each
    metrics.py    `MetricHooks`, the same calls as GenAI duration and token histograms,
                  and the tasks that reach a final state
    counters.py   `Counters`: tasks by final state, pushes sent and received
    calls.py      `OpenCalls`: what both hooks hold for a call between its pre and post
    server.py     `traced`, the server span of every A2A request (traceparent in), by the
                  OpenTelemetry ASGI instrumentation (calls out: `harness/http_spans.py`)
    agent_spans.py `invoke_agent`, the span of a message given to this agent (the task's)
    logs.py       `LogFormatter`: every log line masked, as text or as JSON with trace ids

Temporal carries the trace between the server, the workflow and its activities
(`temporalio.contrib.opentelemetry.TracingInterceptor`, registered once on the client).
"""

"""Observability (R17): traces of what a task did, exported over OTLP/HTTP.

    tracing.py  the tracer provider and its exporter, built once per process from `[o11y]`
    spans.py    `SpanHooks`, the HookExecutor that turns model and tool calls into spans
    server.py   `TraceMiddleware`, the server span of every A2A request (W3C traceparent in)

Temporal carries the trace between the server, the workflow and its activities
(`temporalio.contrib.opentelemetry.TracingInterceptor`, registered once on the client).
"""

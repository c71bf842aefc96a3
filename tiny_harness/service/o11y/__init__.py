"""Observability (R17): traces and metrics of what a task did, over OTLP/HTTP; log lines.

    telemetry.py  the tracer and meter providers and their exporters, one per process
    spans.py      `SpanHooks`, the HookExecutor that turns model and tool calls into spans
    metrics.py    `MetricHooks`, the same calls as GenAI duration and token histograms
    calls.py      `OpenCalls`: what both hooks hold for a call between its pre and post
    server.py     `TraceMiddleware`, the server span of every A2A request (traceparent in)
    logs.py       `LogFormatter`: every log line masked, as text or as JSON with trace ids

Temporal carries the trace between the server, the workflow and its activities
(`temporalio.contrib.opentelemetry.TracingInterceptor`, registered once on the client).
"""

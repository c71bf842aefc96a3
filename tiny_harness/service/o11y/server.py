"""`traced`: one server span per HTTP request, continuing the caller's trace, made by
OpenTelemetry's ASGI instrumentation.

A request that carries a W3C `traceparent` header (another harness delegating to this one,
a traced client) continues that trace; any other starts a new one. The span is current
while the request runs, so the Temporal calls the handler makes (update-with-start of a
task's workflow) carry it on to the workflow and its activities: a task is one trace from
the request that started it. It ends when the response has been sent, a stream's last
event included.

Three choices differ from the instrumentation's defaults:

- the span is named by the method alone: the path holds task ids, which would make every
  name unique;
- no span per ASGI `receive` or `send`: an event stream would make one per event;
- the request's URL is masked by the Redactor before it is kept (a credential in a query
  parameter never reaches the trace), and the instrumentation's own HTTP metrics are off
  (they would keep every path, task ids and query strings included, as an attribute).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.trace import Span, TracerProvider
from starlette.types import ASGIApp

from tiny_harness.harness.security import Redactor

__all__ = ["traced"]

_URL_KEYS = ("http.url", "url.full")


def _method_only(scope: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    return str(scope.get("method") or "HTTP"), {"url.path": str(scope.get("path", ""))}


def traced(app: ASGIApp, provider: TracerProvider, redactor: Redactor) -> ASGIApp:
    """`app` with a SERVER span around every HTTP request, traced by `provider`."""

    def masked(span: Span, scope: Mapping[str, Any]) -> None:
        if not span.is_recording():
            return
        path = str(scope.get("path", ""))
        query = bytes(scope.get("query_string", b"")).decode("latin-1")
        url = redactor.counted_url(f"{path}?{query}" if query else path).value
        for key in _URL_KEYS:
            span.set_attribute(key, url)
        if query:  # set under the newer conventions; kept masked under either
            span.set_attribute("url.query", url.partition("?")[2])

    return OpenTelemetryMiddleware(
        app,
        default_span_details=_method_only,
        server_request_hook=masked,
        tracer_provider=provider,
        meter_provider=NoOpMeterProvider(),
        exclude_spans=["receive", "send"],
    )

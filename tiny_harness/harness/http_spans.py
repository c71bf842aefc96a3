"""`trace_calls_out`: a CLIENT span around every request an HTTP client of the harness sends,
and the trace carried on in its headers, by OpenTelemetry's httpx instrumentation.

The client of another agent (a configured one, or this harness as `self`) uses it. Each
request is made inside the span of the activity making it, so its span is a child of that
one, and its W3C `traceparent` (and `tracestate`) go in the request's headers: an agent
that traces continues the same trace, and a task delegated to another harness is one
trace across both. (The model providers' SDKs and the MCP SDK send with `httpx2`, which
the instrumentation does not reach; their calls are inside the model or tool call's span.)

The client is instrumented, not the process: a library user's own httpx clients stay as
they are. Two choices differ from the instrumentation's defaults:

- the URL a span keeps is masked by the Redactor (a credential in a query parameter never
  reaches the trace), beyond the instrumentation's own masking of known signature keys;
- its HTTP metrics are off (they would keep every path, task ids included).

Spans go to the process's global tracer provider: without telemetry it is the API's no-op
one, nothing is recorded and no trace context is added.
"""

from __future__ import annotations

from typing import Final

import httpx
from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor, RequestInfo
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.trace import Span, TracerProvider

from tiny_harness.harness.security import Redactor

__all__ = ["trace_calls_out"]

_URL_KEYS: Final = ("http.url", "url.full")
_REDACTOR: Final = Redactor()


def trace_calls_out(
    http: httpx.AsyncClient,
    redactor: Redactor | None = None,
    provider: TracerProvider | None = None,
) -> None:
    """Trace every request `http` sends from now on (once: a traced client is left as it
    is); `redactor` masks the URLs kept (None: the built-in credential shapes), `provider`
    records the spans (None: the process's global one)."""
    if getattr(http, "_is_instrumented_by_opentelemetry", False):
        return
    masking = redactor or _REDACTOR

    async def masked(span: Span, request: RequestInfo) -> None:
        if span.is_recording():
            url = masking.counted_url(str(request.url)).value
            for key in _URL_KEYS:
                span.set_attribute(key, url)

    HTTPXClientInstrumentor.instrument_client(
        http, tracer_provider=provider, meter_provider=NoOpMeterProvider(), request_hook=masked
    )

"""`carry_trace`: every request an agent client sends carries the current trace context.

A call to another agent (a configured one, or this harness as `self`) is made inside the
span of the activity making it. The W3C `traceparent` (and `tracestate`) of that span go in
the request's headers, so an agent that traces continues the same trace: a task delegated
to another harness is one trace across both. Without a tracer provider the current span
is not recording and nothing is added.
"""

from __future__ import annotations

import httpx
from opentelemetry.propagate import inject


def carry_trace(http: httpx.AsyncClient) -> None:
    """Make `http` put the current trace context on every request it sends (idempotent)."""
    if _inject not in http.event_hooks["request"]:
        http.event_hooks["request"].append(_inject)


async def _inject(request: httpx.Request) -> None:
    inject(request.headers)

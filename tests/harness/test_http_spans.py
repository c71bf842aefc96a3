"""`trace_calls_out` against the real OpenTelemetry SDK and a real HTTP server on 127.0.0.1:
each request is a CLIENT span under the span current when it was sent, the server is given
that span's `traceparent`, and a credential in the URL never reaches the trace."""

from __future__ import annotations

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tiny_harness.harness.http_spans import trace_calls_out
from tiny_harness.harness.security import Redactor
from tiny_harness.service.http import HttpServer

pytestmark = pytest.mark.timeout(30)

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


async def headers(request: Request) -> JSONResponse:
    return JSONResponse({"traceparent": request.headers.get("traceparent")})


def recorded() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


async def test_a_request_is_a_client_span_under_the_current_one_and_carries_it_on() -> None:
    provider, exporter = recorded()
    app = Starlette(routes=[Route("/headers", headers)])
    async with HttpServer(app, host="127.0.0.1", port=0) as server, httpx.AsyncClient() as http:
        trace_calls_out(http, provider=provider)
        trace_calls_out(http, provider=provider)  # a second call leaves it as it is
        with provider.get_tracer("test").start_as_current_span("activity") as activity:
            answer = await http.get(f"{server.url}/headers", params={"token": TOKEN})

    (sent,) = [s for s in exporter.get_finished_spans() if s.kind is SpanKind.CLIENT]
    context = activity.get_span_context()
    assert sent.name == "GET"
    assert sent.parent is not None
    assert sent.parent.span_id == context.span_id
    # The server got the CLIENT span's own context: its work hangs under the request.
    version, trace_id, parent_id, _flags = str(answer.json()["traceparent"]).split("-")
    assert (version, trace_id, parent_id) == (
        "00",
        f"{context.trace_id:032x}",
        f"{sent.context.span_id:016x}",
    )
    urls = [str(v) for k, v in (sent.attributes or {}).items() if k in {"url.full", "http.url"}]
    assert urls
    assert all(TOKEN not in url and "token=%5Bredacted" in url for url in urls)


async def test_an_untraced_process_adds_no_trace_context() -> None:
    """Without a recording provider (no telemetry), nothing reaches the server."""
    app = Starlette(routes=[Route("/headers", headers)])
    async with HttpServer(app, host="127.0.0.1", port=0) as server, httpx.AsyncClient() as http:
        trace_calls_out(http, Redactor())
        answer = await http.get(f"{server.url}/headers")

    assert answer.json() == {"traceparent": None}

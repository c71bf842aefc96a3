"""`TraceMiddleware`: one server span per HTTP request, continuing the caller's trace.

A request that carries a W3C `traceparent` header (another harness delegating to this one,
a traced client) continues that trace; any other starts a new one. The span is current
while the request runs, so the Temporal calls the handler makes (update-with-start of a
task's workflow) carry it on to the workflow and its activities: a task is one trace from
the request that started it. The span is named by the method alone (the path holds task
ids, which would make every name unique) and ends when the response has been sent, a
stream's last event included.
"""

from __future__ import annotations

from opentelemetry.propagate import extract
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class TraceMiddleware:
    """ASGI middleware opening a SERVER span around every HTTP request."""

    def __init__(self, app: ASGIApp, tracer: Tracer) -> None:
        self._app = app
        self._tracer = tracer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method = str(scope["method"])
        status: list[int] = []

        async def sent(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        with self._tracer.start_as_current_span(
            method,
            context=extract(headers),
            kind=SpanKind.SERVER,
            attributes={"http.request.method": method, "url.path": str(scope["path"])},
        ) as span:
            await self._app(scope, receive, sent)
            if status:
                span.set_attribute("http.response.status_code", status[0])
                if status[0] >= 500:
                    span.set_status(Status(StatusCode.ERROR))

"""Transport limits enforced before any route runs: nothing oversized reaches Temporal.

`BodyLimitMiddleware` reads a request body up to `max_bytes`; a larger one is refused with
the error the binding uses for it (JSON-RPC: -32600 "Payload too large", as the SDK does;
HTTP+JSON: status 413 with an A2A error body) and the route never sees the request.
"""

from __future__ import annotations

import json
from typing import Literal

from a2a.utils.errors import InvalidRequestError
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tiny_harness.service.a2a.card import REST_PATH


async def read_capped(
    scope: Scope, receive: Receive, max_bytes: int
) -> bytes | Literal["too large", "gone"]:
    """The request's whole body, unless it passes `max_bytes` ("too large": refused from
    Content-Length before anything is read, or as soon as the chunks read pass it) or the
    client leaves first ("gone")."""
    declared = _content_length(scope)
    if declared is not None and declared > max_bytes:
        return "too large"
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return "gone"
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            return "too large"
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


class BodyLimitMiddleware:
    """Refuse request bodies larger than `max_bytes`; pass everything else through unchanged."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = await read_capped(scope, receive, self.max_bytes)
        if body == "gone":
            return
        if body == "too large":
            await self._refuse(scope)(scope, receive, send)
            return
        await self.app(scope, replay_body(body, receive), send)

    def _refuse(self, scope: Scope) -> Response:
        text = f"Payload too large: the limit is {self.max_bytes} bytes"
        if str(scope.get("path", "")).startswith(REST_PATH):
            body = {"error": {"code": 413, "status": "INVALID_ARGUMENT", "message": text}}
            return JSONResponse(body, status_code=413)
        error = InvalidRequestError(message=text)
        body_rpc = {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": error.message},
        }
        return Response(json.dumps(body_rpc), media_type="application/json")


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def replay_body(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app `body` (already read) once, then defers to `receive`."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay

"""`create_app`: the Starlette application that speaks A2A.

Routes, in mount order (ours first, so the SDK's REST patterns cannot shadow them):

    GET  /ui/...                           the web renderer (only with a WebUi)
    GET  /healthz                          liveness
    GET  /_monitor                         the newest heartbeat snapshot (503 until one exists)
    POST /a2a/push/{task_id}               a remote agent's push (only with a PushReceiver)
    GET  /.well-known/agent-card.json      the agent card
    POST /                                 JSON-RPC binding
    *    /rest/...                         HTTP+JSON binding

Middleware, outermost first: the per-peer rate limit (a request over it is refused with
429 before anything is read), authentication when configured (401 without a valid key,
before anything is read; `authentication.py`) and then the same rate limit per
authenticated caller, the push endpoint's own, smaller body
limit, then the body limit over all of it, so an oversized request never reaches a
handler. The card carries
caching headers (`card_route`); every SSE stream sends a keep-alive comment at
`sse_keepalive` (`with_keepalive`). The SDK's DEBUG log of JSON-RPC request bodies is
filtered out: a push token a client registers travels in such a body.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
from a2a.types import AgentCard
from starlette.applications import Starlette
from starlette.authentication import AuthenticationBackend
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from tiny_harness.harness.channels.a2a import A2AChannel
from tiny_harness.harness.security import Redactor
from tiny_harness.service.a2a.authentication import refuse
from tiny_harness.service.a2a.card import JSONRPC_PATH, REST_PATH, card_route
from tiny_harness.service.a2a.doorbell import (
    MAX_PUSH_BYTES,
    PUSH_ROUTE,
    PUSH_TOKEN_HEADER,
    PushBodyLimit,
    PushReceiver,
)
from tiny_harness.service.a2a.handler import HarnessRequestHandler
from tiny_harness.service.a2a.keepalive import DEFAULT_SSE_KEEPALIVE, with_keepalive
from tiny_harness.service.a2a.limits import BodyLimitMiddleware
from tiny_harness.service.a2a.rate_limit import (
    RateLimit,
    RateLimiter,
    RateLimitMiddleware,
    caller_of,
)
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.heartbeat.schedule import HeartbeatMonitor, NoSnapshot
from tiny_harness.service.notifications.registrations import PushRegistrations
from tiny_harness.service.web_ui import WebUi

SDK_BODY_LOGGER = "a2a.server.routes.jsonrpc_dispatcher"
"""The SDK logger whose DEBUG "Request body: ..." record would log every JSON-RPC body."""


class _DropRequestBodies(logging.Filter):
    """Drops the SDK's "Request body: ..." record, whatever its level; passes the rest."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Request body")


_DROP_REQUEST_BODIES = _DropRequestBodies()
"""One instance, so installing it again (every `create_app`) is a no-op."""


async def _healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


def _unavailable(text: str) -> JSONResponse:
    body = {"error": {"code": 503, "status": "UNAVAILABLE", "message": text}}
    return JSONResponse(body, status_code=503)


def _monitor_route(monitor: HeartbeatMonitor | None) -> Route:
    async def read_monitor(request: Request) -> JSONResponse:
        if monitor is None:
            return _unavailable(
                "the heartbeat is disabled on this server (TINY_HARNESS_HEARTBEAT__ENABLED)"
            )
        reading = await monitor.latest()
        if isinstance(reading, NoSnapshot):
            return _unavailable(reading.reason)
        return JSONResponse(reading.model_dump(mode="json"))

    return Route("/_monitor", read_monitor, methods=["GET"])


def _guards(rate_limit: RateLimit | None, auth: AuthenticationBackend | None) -> list[Middleware]:
    """What checks a request before its body is read: its peer's rate, its key, and the
    rate of the caller the key names (so one key cannot outrun the limit from many
    addresses)."""
    guards: list[Middleware] = []
    if rate_limit is not None:
        guards.append(Middleware(RateLimitMiddleware, limiter=RateLimiter(rate_limit)))
    if auth is not None:
        guards.append(Middleware(AuthenticationMiddleware, backend=auth, on_error=refuse))
        if rate_limit is not None:
            per_caller = RateLimiter(rate_limit)
            guards.append(
                Middleware(
                    RateLimitMiddleware, limiter=per_caller, key=caller_of, source="this caller"
                )
            )
    return guards


def _push_route(receiver: PushReceiver) -> Route:
    # `PushBodyLimit` has already refused an oversized body; this one is at most that big.
    async def push(request: Request) -> Response:
        status = await receiver.receive(
            request.path_params["task_id"],
            request.headers.get(PUSH_TOKEN_HEADER),
            await request.body(),
        )
        return Response(status_code=status)

    return Route(PUSH_ROUTE, push, methods=["POST"])


def create_app(
    gateway: TaskGateway,
    card: AgentCard,
    *,
    max_request_bytes: int,
    monitor: HeartbeatMonitor | None = None,
    push: PushReceiver | None = None,
    outbound: PushRegistrations | None = None,
    sse_keepalive: timedelta = DEFAULT_SSE_KEEPALIVE,
    rate_limit: RateLimit | None = None,
    redactor: Redactor | None = None,
    channel: A2AChannel | None = None,
    web_ui: WebUi | None = None,
    auth: AuthenticationBackend | None = None,
) -> Starlette:
    """The A2A application over `gateway`, advertising `card`; `/_monitor` reads `monitor`
    (None: the heartbeat is off, and `/_monitor` says so); `push` takes remote agents'
    pushes (None: no push endpoint); `outbound` keeps our clients' push configs (None:
    push-config operations are refused, and `card` should say push is not offered);
    `rate_limit` applies to each peer address (None: no limit); `redactor` masks credentials
    in every inbound message (None: the built-in shapes, no configured secrets); `channel`
    decides who may post to a task's channel (None: the default `A2AChannel`); `web_ui` is
    the web renderer served at `/ui` (None: no `/ui` routes); `auth` authenticates every
    call but the public paths (None: nobody is, `access.py`)."""
    logging.getLogger(SDK_BODY_LOGGER).addFilter(_DROP_REQUEST_BODIES)
    handler = HarnessRequestHandler(
        gateway, card, push=outbound, redactor=redactor, channel=channel
    )
    routes: list[BaseRoute] = [] if web_ui is None else web_ui.routes()
    routes += [
        Route("/healthz", _healthz, methods=["GET"]),
        _monitor_route(monitor),
    ]
    middleware = _guards(rate_limit, auth)
    if push is not None:
        routes.append(_push_route(push))
        push_limit = min(MAX_PUSH_BYTES, max_request_bytes)
        middleware.append(Middleware(PushBodyLimit, max_bytes=push_limit, counters=push.counters))
    middleware.append(Middleware(BodyLimitMiddleware, max_bytes=max_request_bytes))
    routes.append(card_route(card, modified=datetime.now(UTC)))
    bindings: list[BaseRoute] = [
        *create_jsonrpc_routes(handler, rpc_url=JSONRPC_PATH),
        *create_rest_routes(handler, path_prefix=REST_PATH),
    ]
    routes += with_keepalive(bindings, sse_keepalive)
    return Starlette(routes=routes, middleware=middleware)

"""`create_app`: the Starlette application that speaks A2A.

Routes, in mount order (ours first, so the SDK's REST patterns cannot shadow them):

    GET  /healthz                          liveness
    GET  /_monitor                         the newest heartbeat snapshot (503 until one exists)
    GET  /.well-known/agent-card.json      the agent card
    POST /                                 JSON-RPC binding
    *    /rest/...                         HTTP+JSON binding

A body-size limit wraps all of it, so an oversized request never reaches a handler.
"""

from __future__ import annotations

from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.types import AgentCard
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from tiny_harness.service.a2a.card import JSONRPC_PATH, REST_PATH
from tiny_harness.service.a2a.handler import HarnessRequestHandler
from tiny_harness.service.a2a.limits import BodyLimitMiddleware
from tiny_harness.service.durable.gateway import TaskGateway
from tiny_harness.service.heartbeat import HeartbeatMonitor, NoSnapshot


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


def create_app(
    gateway: TaskGateway,
    card: AgentCard,
    *,
    max_request_bytes: int,
    monitor: HeartbeatMonitor | None = None,
) -> Starlette:
    """The A2A application over `gateway`, advertising `card`; `/_monitor` reads `monitor`
    (None: the heartbeat is off, and `/_monitor` says so)."""
    handler = HarnessRequestHandler(gateway, card)
    routes: list[BaseRoute] = [
        Route("/healthz", _healthz, methods=["GET"]),
        _monitor_route(monitor),
    ]
    routes += create_agent_card_routes(card)
    routes += create_jsonrpc_routes(handler, rpc_url=JSONRPC_PATH)
    routes += create_rest_routes(handler, path_prefix=REST_PATH)
    return Starlette(
        routes=routes,
        middleware=[Middleware(BodyLimitMiddleware, max_bytes=max_request_bytes)],
    )

"""`create_app`: the Starlette application that speaks A2A.

Routes, in mount order (ours first, so the SDK's REST patterns cannot shadow them):

    GET  /healthz                          liveness
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


async def _healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


def create_app(gateway: TaskGateway, card: AgentCard, *, max_request_bytes: int) -> Starlette:
    """The A2A application over `gateway`, advertising `card`."""
    handler = HarnessRequestHandler(gateway, card)
    routes: list[BaseRoute] = [Route("/healthz", _healthz, methods=["GET"])]
    routes += create_agent_card_routes(card)
    routes += create_jsonrpc_routes(handler, rpc_url=JSONRPC_PATH)
    routes += create_rest_routes(handler, path_prefix=REST_PATH)
    return Starlette(
        routes=routes,
        middleware=[Middleware(BodyLimitMiddleware, max_bytes=max_request_bytes)],
    )

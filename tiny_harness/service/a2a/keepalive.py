"""SSE keep-alive: every streaming response sends a comment line at a set interval, so a
proxy does not cut a stream that waits on a long step.

The SDK builds each stream as an sse-starlette `EventSourceResponse` (both bindings, through
`a2a.server.routes.common.create_event_source_response`) without a ping interval, so each
pings at sse-starlette's default (15 s). `with_keepalive` rebuilds the SDK's routes around
their own endpoints and sets `ping_interval` on every `EventSourceResponse` they return;
the comment (`: ping - <time>`) is sse-starlette's, which SSE clients skip. A route this
module does not know how to rebuild is kept as it is, with the default interval.

It must not touch what the endpoints answer otherwise: bodies, status and headers pass
unchanged.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Final

from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route, Router

from tiny_harness.errors import ConfigError

DEFAULT_SSE_KEEPALIVE: Final = timedelta(seconds=15)
"""The default interval (`ServerConfig.sse_keepalive`); also sse-starlette's own."""

MAX_SSE_KEEPALIVE: Final = timedelta(seconds=30)
"""The longest interval allowed: common proxies cut a connection idle for 60 s."""

Endpoint = Callable[[Request], Awaitable[Response]]


def with_keepalive(routes: Sequence[BaseRoute], interval: timedelta) -> list[BaseRoute]:
    """`routes`, each streaming response of theirs sending a comment every `interval`
    (over 0, at most `MAX_SSE_KEEPALIVE`)."""
    if not timedelta(0) < interval <= MAX_SSE_KEEPALIVE:
        raise ConfigError(
            f"the SSE keep-alive interval must be over 0 and at most "
            f"{MAX_SSE_KEEPALIVE.total_seconds():g} s, not {interval.total_seconds():g} s",
            variable="server.sse_keepalive",
        )
    seconds = interval.total_seconds()
    return [_rebuilt(route, seconds) for route in routes]


def _rebuilt(route: BaseRoute, seconds: float) -> BaseRoute:
    if isinstance(route, Mount) and isinstance(route.app, Router):  # no Mount middleware
        inner = [_rebuilt(child, seconds) for child in route.routes]
        return Mount(route.path, routes=inner, name=route.name)
    is_request_endpoint = isinstance(route, Route) and (
        inspect.isfunction(route.endpoint) or inspect.ismethod(route.endpoint)
    )
    if not isinstance(route, Route) or not is_request_endpoint:
        return route  # an ASGI app, or another kind of route: left as it is
    return Route(
        route.path,
        _pinging(route.endpoint, seconds),
        methods=route.methods,
        name=route.name,
        include_in_schema=route.include_in_schema,
    )


def _pinging(endpoint: Endpoint, seconds: float) -> Endpoint:
    async def endpoint_with_keepalive(request: Request) -> Response:
        response = await endpoint(request)
        if isinstance(response, EventSourceResponse):
            response.ping_interval = seconds
        return response

    return endpoint_with_keepalive

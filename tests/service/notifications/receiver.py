"""A push receiver for tests: an HTTP endpoint on 127.0.0.1 that records what it is sent.

While `down` it answers 503 (and counts the attempt), so a test can make a receiver fail
for a while and come back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from a2a.types import StreamResponse
from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tiny_harness.service.http import HttpServer, free_port


@dataclass
class Receiver:
    """What reached the receiver: every attempt, and the pushes it accepted (in order)."""

    url: str = ""
    down: bool = False
    attempts: int = 0
    accepted: list[StreamResponse] = field(default_factory=list[StreamResponse])
    headers: list[dict[str, str]] = field(default_factory=list[dict[str, str]])
    arrived_ns: list[int] = field(default_factory=list[int])
    """`time.time_ns()` as each accepted push arrived, in order (for the benchmark)."""
    arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def wait_for(self, count: int, *, seconds: float = 20.0) -> list[StreamResponse]:
        """The accepted pushes once there are at least `count` of them."""
        async with asyncio.timeout(seconds), self.arrived:
            await self.arrived.wait_for(lambda: len(self.accepted) >= count)
        return list(self.accepted)

    async def wait_for_attempts(self, count: int, *, seconds: float = 20.0) -> None:
        """Return once at least `count` POSTs reached the receiver, accepted or not."""
        async with asyncio.timeout(seconds), self.arrived:
            await self.arrived.wait_for(lambda: self.attempts >= count)


@asynccontextmanager
async def push_receiver() -> AsyncIterator[Receiver]:
    """A receiver listening at `<url>` = http://127.0.0.1:<port>/hook."""
    receiver = Receiver()

    async def hook(request: Request) -> Response:
        async with receiver.arrived:
            receiver.attempts += 1
            receiver.arrived.notify_all()
        if receiver.down:
            return Response(status_code=503)
        event = json_format.Parse(await request.body(), StreamResponse())
        async with receiver.arrived:
            receiver.accepted.append(event)
            receiver.arrived_ns.append(time.time_ns())
            receiver.headers.append(dict(request.headers))
            receiver.arrived.notify_all()
        return Response(status_code=204)

    port = free_port()
    receiver.url = f"http://127.0.0.1:{port}/hook"
    app = Starlette(routes=[Route("/hook", hook, methods=["POST"])])
    async with HttpServer(app, host="127.0.0.1", port=port):
        yield receiver

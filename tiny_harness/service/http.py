"""`HttpServer`: uvicorn serving an ASGI app inside the current event loop.

uvicorn's own signal handling is switched off: the process's handler owns shutdown, so the
server stops when its context exits (or the main task is cancelled), never on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from contextlib import nullcontext
from types import TracebackType
from typing import Self, override

import uvicorn
from starlette.types import ASGIApp

from tiny_harness.errors import HttpBindError

GRACEFUL_SHUTDOWN_SECONDS = 2


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on `host` that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class _Server(uvicorn.Server):
    @override
    def capture_signals(self) -> nullcontext[None]:  # type: ignore[override]
        return nullcontext()


class HttpServer:
    """Serve `app` on `host:port` (port 0: any free port) for the life of the context."""

    def __init__(self, app: ASGIApp, *, host: str, port: int) -> None:
        self._server = _Server(
            uvicorn.Config(
                app,
                host=host,
                port=port,
                log_config=None,
                access_log=False,
                lifespan="off",
                # Open SSE streams would otherwise hold shutdown until their tasks finish;
                # a client reconnects with SubscribeToTask and loses nothing.
                timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
            )
        )
        self._host = host
        self._task: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        """The port actually bound."""
        sockets = [s for server in self._server.servers for s in server.sockets]
        return int(sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        """`http://host:port` of the running server."""
        return f"http://{self._host}:{self.port}"

    async def __aenter__(self) -> Self:
        self._task = asyncio.create_task(self._server.serve())
        while not self._server.started:
            if self._task.done():
                raise HttpBindError(f"cannot listen on {self._host}: see the log above")
            await asyncio.sleep(0.01)
        return self

    async def wait(self) -> None:
        """Wait until the server stops; cancelling the waiter does not stop it."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.should_exit = True
        if self._task is not None:
            # uvicorn exits with SystemExit after a failed startup; it has logged why.
            with contextlib.suppress(SystemExit):
                await self._task

"""Remote hook executors: a JSON-RPC 2.0 endpoint over HTTP, or a tool of an MCP server.

Both send `{"point": "tool.invoked.pre", "context": <ctx as JSON>}` and read back one reply
envelope:

    {"result": null}                    pass: the context goes on unchanged
    {"result": {<context>}}             replace: validated into the context's own class
    {"error": {"code": -32001, "message": "…",
               "data": {"abort": true,
                        "reason": {"code": "…", "message": "…"}}}}
                                        abort: raises HookAbort(reason)

Over JSON-RPC the envelope is the response (`"jsonrpc": "2.0"` and the request's `id`
besides) to a `hook.handle` request POSTed to the URL. Over MCP it is what the server's
`handle_hook` tool returns: its structured content, or else the JSON text of its content.
An abort is recognised by `data.abort == true` alone; `ABORT_ERROR_CODE` is the code a
server should use with it, but the code is not read.

Fail closed: an unreachable server, a timeout, a status other than 200, a body that is not
such an envelope, a reply to another request id, an error that is not an abort, an abort
without a valid reason, an MCP tool error, a replacement that does not validate: each
raises `HookTransportError`. Nothing ever passes through because the executor failed.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

import httpx
from pydantic import BaseModel, JsonValue, ValidationError

from tiny_harness.errors import HookLoadError, HookTransportError
from tiny_harness.harness.hooks.contexts import HookContext
from tiny_harness.harness.hooks.executor import AbortReason, HookAbort
from tiny_harness.harness.hooks.points import HookPoint
from tiny_harness.harness.tools.mcp import McpServerAddress, sdk_target

logger = logging.getLogger(__name__)

HOOK_METHOD = "hook.handle"
"""The JSON-RPC method a hook server answers."""

HOOK_TOOL = "handle_hook"
"""The MCP tool a hook server offers."""

ABORT_ERROR_CODE = -32001
"""The JSON-RPC error code a hook server should send with an abort."""

DEFAULT_TIMEOUT = 10.0
"""Seconds a remote executor waits for a connection or a reply."""

if TYPE_CHECKING:
    # The MCP SDK takes most of a second to import; only a worker with an MCP server pays it.
    from mcp import Client
    from mcp.types import CallToolResult

type McpHookServer = McpServerAddress
"""An MCP server: a command to run over stdio, or a streamable-HTTP endpoint."""


class _Error(BaseModel):
    code: int
    message: str
    data: JsonValue = None


class _Abort(BaseModel):
    abort: Literal[True]
    reason: AbortReason


class _Envelope(BaseModel):
    result: dict[str, JsonValue] | None = None
    error: _Error | None = None


class _RpcResponse(_Envelope):
    jsonrpc: Literal["2.0"]
    id: int | str | None


class JsonRpcHookExecutor:
    """An executor behind a JSON-RPC 2.0 endpoint; `http` belongs to the caller."""

    def __init__(
        self,
        name: str,
        priority: int,
        points: Iterable[HookPoint],
        url: str,
        *,
        http: httpx.AsyncClient,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        _require_http_url(name, url)
        self.name = name
        self.priority = priority
        self.points = frozenset(points)
        self.url = url
        self._http = http
        self._timeout = timeout
        self._ids = itertools.count(1)

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        """Ask the endpoint; see the module docstring for the reply and its failures."""
        request_id = next(self._ids)
        request: dict[str, JsonValue] = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": HOOK_METHOD,
            "params": _params(point, ctx),
        }
        try:
            response = await self._http.post(self.url, json=request, timeout=self._timeout)
        except Exception as error:  # every failure to get an answer fails closed
            raise self._failure(f"cannot reach {self.url}: {error!r}") from error
        if response.status_code != httpx.codes.OK:
            raise self._failure(f"{self.url} answered HTTP {response.status_code}")
        try:
            reply = _RpcResponse.model_validate_json(response.content)
        except ValidationError as error:
            raise self._failure(f"{self.url} answered no JSON-RPC 2.0 response") from error
        if reply.id != request_id:
            raise self._failure(f"{self.url} answered request {reply.id!r}, not {request_id}")
        return _decode(self.name, reply, type(ctx))

    def _failure(self, message: str) -> HookTransportError:
        return HookTransportError(f"hook {self.name}: {message}", executor=self.name)


class McpHookExecutor:
    """An executor that is the `handle_hook` tool of an MCP server.

    The session opens on first use and stays open (one subprocess for a stdio server) until
    `aclose`, or the end of `async with`; a failed call closes it, so the next call starts
    afresh. The SDK's transports must be entered and left in one task, so a private task
    holds the session.
    """

    def __init__(
        self,
        name: str,
        priority: int,
        points: Iterable[HookPoint],
        server: McpHookServer,
        *,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if isinstance(server, str):
            _require_http_url(name, server)
        self.name = name
        self.priority = priority
        self.points = frozenset(points)
        self.server = server
        self._timeout = timeout
        self._lock = asyncio.Lock()
        self._client: Client | None = None
        self._holder: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        """Call the tool; see the module docstring for the reply and its failures."""
        client = await self._connected()
        try:
            answer = await client.call_tool(
                HOOK_TOOL, _params(point, ctx), read_timeout_seconds=self._timeout
            )
        except Exception as error:  # the SDK raises several transport types; all fail closed
            await self.aclose()
            raise self._failure(f"the call failed: {error!r}") from error
        return _decode(self.name, self._envelope(answer), type(ctx))

    async def aclose(self) -> None:
        """End the session (and the subprocess); safe to call twice."""
        async with self._lock:
            holder, closing = self._holder, self._closing
            self._client = self._holder = self._closing = None
        if closing is not None:
            closing.set()
        if holder is not None:
            await asyncio.wait([holder])

    async def __aenter__(self) -> McpHookExecutor:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def _envelope(self, answer: CallToolResult) -> _Envelope:
        from mcp.types import TextContent

        texts = [block.text for block in answer.content if isinstance(block, TextContent)]
        if answer.is_error:
            raise self._failure(f"{HOOK_TOOL} failed: {' '.join(texts)[:500]}")
        try:
            if answer.structured_content is not None:
                return _Envelope.model_validate(answer.structured_content)
            return _Envelope.model_validate_json("".join(texts))
        except ValidationError as error:
            raise self._failure(f"{HOOK_TOOL} returned no hook reply envelope") from error

    async def _connected(self) -> Client:
        async with self._lock:
            if self._client is not None:
                return self._client
            ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
            closing = asyncio.Event()
            holder = asyncio.create_task(self._hold(ready, closing), name=f"hook {self.name}")
            try:
                async with asyncio.timeout(self._timeout):
                    client = await ready
            except Exception as error:  # spawn, handshake or timeout: all fail closed
                closing.set()
                holder.cancel()
                await asyncio.wait([holder])
                raise self._failure(f"cannot connect: {error!r}") from error
            self._client, self._holder, self._closing = client, holder, closing
            return client

    async def _hold(self, ready: asyncio.Future[Client], closing: asyncio.Event) -> None:
        from mcp import Client

        try:
            target = sdk_target(self.server, f"hook {self.name}")
            async with Client(target, cache=None, read_timeout_seconds=self._timeout) as c:
                if ready.done():  # the waiter gave up
                    return
                ready.set_result(c)
                await closing.wait()
        except Exception as error:  # noqa: BLE001 - handed to the waiter, or logged
            if not ready.done():
                ready.set_exception(error)
            else:
                logger.warning("hook %s: MCP session ended with an error: %r", self.name, error)

    def _failure(self, message: str) -> HookTransportError:
        return HookTransportError(f"hook {self.name}: {message}", executor=self.name)


def _params(point: HookPoint, ctx: HookContext) -> dict[str, JsonValue]:
    return {"point": str(point), "context": ctx.model_dump(mode="json")}


def _decode[C: HookContext](executor: str, reply: _Envelope, model: type[C]) -> C | None:
    """The envelope's meaning: None to pass, a replacement, or a raised abort or failure."""
    answered = {"result", "error"} & reply.model_fields_set
    if len(answered) != 1 or (reply.error is None and "error" in answered):
        raise HookTransportError(
            f"hook {executor}: a reply must hold exactly one of result and error",
            executor=executor,
        )
    if reply.error is not None:
        raise _error(executor, reply.error)
    if reply.result is None:
        return None
    try:
        return model.model_validate(reply.result)
    except Exception as error:  # a ValidationError, or a model's own check (a PlanError)
        raise HookTransportError(
            f"hook {executor}: the replacement is not a valid {model.__name__}: {error}",
            executor=executor,
        ) from error


def _error(executor: str, error: _Error) -> HookAbort | HookTransportError:
    if isinstance(error.data, dict) and error.data.get("abort") is True:
        try:
            return HookAbort(_Abort.model_validate(error.data).reason)
        except ValidationError:
            return HookTransportError(
                f"hook {executor}: an abort without a valid reason", executor=executor
            )
    return HookTransportError(
        f"hook {executor}: the server answered error {error.code}: {error.message}",
        executor=executor,
    )


def _require_http_url(executor: str, url: str) -> None:
    try:
        scheme = httpx.URL(url).scheme
    except httpx.InvalidURL as error:
        raise HookLoadError(f"hook {executor}: {url!r} is not a URL") from error
    if scheme not in ("http", "https"):
        raise HookLoadError(f"hook {executor}: {url!r} is not an http(s) URL")

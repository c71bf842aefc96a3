"""`JsonRpcHookExecutor` against a real JSON-RPC hook server on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from pydantic import JsonValue
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tiny_harness.errors import HookLoadError, HookTransportError
from tiny_harness.harness.hooks import (
    ABORT_ERROR_CODE,
    AbortReason,
    HookAbort,
    HookManager,
    JsonRpcHookExecutor,
    ToolInvokedPre,
)
from tiny_harness.service.http import HttpServer, free_port

from .samples import TOOL_PRE, tool_pre

type Json = dict[str, JsonValue]


def rewritten(context: Json) -> Json:
    call = context["call"]
    assert isinstance(call, dict)
    return {**context, "call": {**call, "arguments": {"q": "rewritten"}}}


def answer(behaviour: str, request: Json) -> Response:
    """The hook server's reply for one behaviour (the last path segment)."""
    params = request["params"]
    assert isinstance(params, dict)
    context = params["context"]
    assert isinstance(context, dict)
    ok: Json = {"jsonrpc": "2.0", "id": request["id"]}
    match behaviour:
        case "pass":
            return JSONResponse(ok | {"result": None})
        case "rewrite":
            return JSONResponse(ok | {"result": rewritten(context)})
        case "abort":
            reason: Json = {"code": "tool_denied", "message": "search is off today"}
            data: Json = {"abort": True, "reason": reason}
            error: Json = {"code": ABORT_ERROR_CODE, "message": "aborted", "data": data}
            return JSONResponse(ok | {"error": error})
        case "abort-without-reason":
            error = {"code": ABORT_ERROR_CODE, "message": "aborted", "data": {"abort": True}}
            return JSONResponse(ok | {"error": error})
        case "plain-error":
            return JSONResponse(ok | {"error": {"code": -32603, "message": "internal"}})
        case "http-500":
            return PlainTextResponse("boom", status_code=500)
        case "malformed":
            return PlainTextResponse('{"jsonrpc": "2.0", "id": ', media_type="application/json")
        case "wrong-shape":
            return JSONResponse(ok | {"result": {**context, "call": "not a call"}})
        case "not-an-object":
            return JSONResponse(ok | {"result": [1, 2, 3]})
        case "other-id":
            return JSONResponse({"jsonrpc": "2.0", "id": "someone-else", "result": None})
        case "both":
            return JSONResponse(ok | {"result": None, "error": {"code": 1, "message": "?"}})
    return PlainTextResponse("no such behaviour", status_code=404)


class HookServer:
    """A JSON-RPC hook server whose behaviour is the URL's last segment."""

    def __init__(self) -> None:
        self.requests: list[Json] = []
        self.app = Starlette(routes=[Route("/{behaviour}", self.endpoint, methods=["POST"])])

    async def endpoint(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        behaviour = request.path_params["behaviour"]
        if behaviour == "slow":
            await asyncio.sleep(1)
            return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": None})
        return answer(behaviour, body)


@pytest.fixture(scope="module")
async def hook_server() -> AsyncIterator[tuple[HookServer, str]]:
    server = HookServer()
    async with HttpServer(server.app, host="127.0.0.1", port=0) as http:
        yield server, http.url


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(trust_env=False) as client:
        yield client


def hook(url: str, http: httpx.AsyncClient, *, timeout: float = 5.0) -> JsonRpcHookExecutor:
    return JsonRpcHookExecutor("remote", 10, [TOOL_PRE], url, http=http, timeout=timeout)


async def test_request_carries_the_point_and_the_context(
    hook_server: tuple[HookServer, str], http: httpx.AsyncClient
) -> None:
    server, url = hook_server
    ctx = tool_pre()

    assert await hook(f"{url}/pass", http).handle(TOOL_PRE, ctx) is None

    request = server.requests[-1]
    assert request["jsonrpc"] == "2.0"
    assert request["method"] == "hook.handle"
    assert request["params"] == {
        "point": "tool.invoked.pre",
        "context": ctx.model_dump(mode="json"),
    }


async def test_server_rewrites_the_tool_calls_arguments_through_the_chain(
    hook_server: tuple[HookServer, str], http: httpx.AsyncClient
) -> None:
    _, url = hook_server
    manager = HookManager()
    manager.register(hook(f"{url}/rewrite", http))

    out = await manager.run(TOOL_PRE, tool_pre())

    assert isinstance(out, ToolInvokedPre)
    assert out.call.arguments == {"q": "rewritten"}
    assert out.call.call_id == "call-1"


async def test_server_aborts_with_a_reason(
    hook_server: tuple[HookServer, str], http: httpx.AsyncClient
) -> None:
    _, url = hook_server

    with pytest.raises(HookAbort) as raised:
        await hook(f"{url}/abort", http).handle(TOOL_PRE, tool_pre())

    assert raised.value.reason == AbortReason(code="tool_denied", message="search is off today")


@pytest.mark.parametrize(
    ("behaviour", "why"),
    [
        ("http-500", "HTTP 500"),
        ("no-such-route", "HTTP 404"),
        ("malformed", "no JSON-RPC 2.0 response"),
        ("wrong-shape", "not a valid ToolInvokedPre"),
        ("not-an-object", "no JSON-RPC 2.0 response"),
        ("other-id", "answered request 'someone-else'"),
        ("plain-error", "error -32603: internal"),
        ("abort-without-reason", "abort without a valid reason"),
        ("both", "exactly one of result and error"),
    ],
)
async def test_bad_answers_fail_closed(
    hook_server: tuple[HookServer, str], http: httpx.AsyncClient, behaviour: str, why: str
) -> None:
    _, url = hook_server

    with pytest.raises(HookTransportError, match=why) as raised:
        await hook(f"{url}/{behaviour}", http).handle(TOOL_PRE, tool_pre())

    assert raised.value.executor == "remote"


async def test_server_down_fails_closed(http: httpx.AsyncClient) -> None:
    url = f"http://127.0.0.1:{free_port()}/hook"

    with pytest.raises(HookTransportError, match="cannot reach"):
        await hook(url, http).handle(TOOL_PRE, tool_pre())


async def test_slow_server_fails_closed(
    hook_server: tuple[HookServer, str], http: httpx.AsyncClient
) -> None:
    _, url = hook_server

    with pytest.raises(HookTransportError, match="Timeout"):
        await hook(f"{url}/slow", http, timeout=0.1).handle(TOOL_PRE, tool_pre())


def test_executor_wants_an_http_url(http: httpx.AsyncClient) -> None:
    with pytest.raises(HookLoadError, match="http"):
        hook("file:///etc/passwd", http)

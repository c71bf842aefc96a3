"""`McpHookExecutor` against a real MCP hook server: a stdio subprocess, and the same
server over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import runpy
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import StdioServerParameters
from mcp.server.mcpserver import MCPServer

from tiny_harness.errors import HookLoadError, HookTransportError
from tiny_harness.harness.hooks import AbortReason, HookAbort, McpHookExecutor
from tiny_harness.service.http import HttpServer, free_port

from .samples import TOOL_PRE, tool_pre

SERVER = Path(__file__).parents[2] / "fixtures" / "hook_servers" / "mcp_hook_server.py"


def stdio_hook(command: str = sys.executable) -> McpHookExecutor:
    params = StdioServerParameters(command=command, args=[str(SERVER)])
    return McpHookExecutor("mcp-hook", 10, [TOOL_PRE], params, timeout=10.0)


@pytest.fixture(scope="module")
async def hook() -> AsyncIterator[McpHookExecutor]:
    async with stdio_hook() as executor:
        yield executor


async def test_server_passes_the_context_on(hook: McpHookExecutor) -> None:
    assert await hook.handle(TOOL_PRE, tool_pre("search")) is None


async def test_server_rewrites_the_tool_calls_arguments(hook: McpHookExecutor) -> None:
    ctx = tool_pre("rewrite", {"q": "original"})

    out = await hook.handle(TOOL_PRE, ctx)

    assert out == ctx.model_copy(
        update={"call": ctx.call.model_copy(update={"arguments": {"q": "rewritten"}})}
    )


async def test_server_aborts_with_a_reason(hook: McpHookExecutor) -> None:
    with pytest.raises(HookAbort) as raised:
        await hook.handle(TOOL_PRE, tool_pre("deny"))

    assert raised.value.reason == AbortReason(code="tool_denied", message="deny is not allowed")


@pytest.mark.parametrize(
    ("call", "why"), [("garbage", "not a valid ToolInvokedPre"), ("crash", "handle_hook failed")]
)
async def test_bad_answers_fail_closed(hook: McpHookExecutor, call: str, why: str) -> None:
    with pytest.raises(HookTransportError, match=why):
        await hook.handle(TOOL_PRE, tool_pre(call))

    assert await hook.handle(TOOL_PRE, tool_pre("search")) is None


async def test_missing_command_fails_closed() -> None:
    async with stdio_hook("/nonexistent/tiny-harness-hook-server") as executor:
        with pytest.raises(HookTransportError, match="cannot connect") as raised:
            await executor.handle(TOOL_PRE, tool_pre())

    assert raised.value.executor == "mcp-hook"


async def test_a_closed_executor_reconnects_on_next_use() -> None:
    async with stdio_hook() as executor:
        assert await executor.handle(TOOL_PRE, tool_pre()) is None
        await executor.aclose()
        assert await executor.handle(TOOL_PRE, tool_pre()) is None


def test_executor_wants_an_http_url_or_a_command() -> None:
    with pytest.raises(HookLoadError):
        McpHookExecutor("mcp-hook", 10, [TOOL_PRE], "ftp://127.0.0.1/mcp")


async def test_unresponsive_server_fails_closed_after_the_timeout() -> None:
    silent = StdioServerParameters(
        command=sys.executable, args=["-c", "import time; time.sleep(30)"]
    )

    async with McpHookExecutor("mcp-hook", 10, [TOOL_PRE], silent, timeout=0.5) as executor:
        with pytest.raises(HookTransportError, match="cannot connect"):
            await executor.handle(TOOL_PRE, tool_pre())


async def serve_over_http(url: asyncio.Future[str], stop: asyncio.Event) -> None:
    """Serve the fixture server over streamable HTTP until `stop`; one task enters and
    leaves the session manager, as anyio requires."""
    server = runpy.run_path(str(SERVER))["server"]
    assert isinstance(server, MCPServer)
    app = server.streamable_http_app()
    async with server.session_manager.run(), HttpServer(app, host="127.0.0.1", port=0) as http:
        url.set_result(f"{http.url}/mcp")
        await stop.wait()


@pytest.fixture(scope="module")
async def http_hook_url() -> AsyncIterator[str]:
    url: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    serving = asyncio.create_task(serve_over_http(url, stop))
    try:
        yield await url
    finally:
        stop.set()
        await serving


async def test_streamable_http_server_rewrites_and_passes(http_hook_url: str) -> None:
    async with McpHookExecutor("mcp-http", 10, [TOOL_PRE], http_hook_url) as executor:
        out = await executor.handle(TOOL_PRE, tool_pre("rewrite"))
        passed = await executor.handle(TOOL_PRE, tool_pre("search"))

    assert out is not None
    assert out.model_dump()["call"]["arguments"] == {"q": "rewritten"}
    assert passed is None


async def test_streamable_http_server_down_fails_closed() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"

    async with McpHookExecutor("mcp-http", 10, [TOOL_PRE], url, timeout=5.0) as executor:
        with pytest.raises(HookTransportError, match="cannot connect"):
            await executor.handle(TOOL_PRE, tool_pre())

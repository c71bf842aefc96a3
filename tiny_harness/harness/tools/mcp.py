"""`McpToolSource`: one MCP server whose tools the loop can call, each wrapped as a `Tool`.

The source connects on first use (a subprocess over stdio, or a streamable-HTTP URL) and
keeps the session open for the worker's life; `close` ends it. A tool's name towards the
model is `<prefix>.<tool>` so tools of different servers cannot collide. Idempotency comes
from the server's own annotations: a tool is retried safely only when it says it is
read-only or idempotent.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from contextlib import AsyncExitStack

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent
from mcp.types import Tool as McpToolInfo
from pydantic import JsonValue, TypeAdapter

from tiny_harness.errors import ToolError
from tiny_harness.harness.tools.definition import (
    Execution,
    Idempotency,
    JsonObject,
    ToolCall,
    ToolDefinition,
    ToolResult,
)
from tiny_harness.harness.tools.tool import Tool, tool_ref

logger = logging.getLogger(__name__)

_JSON_OBJECT: TypeAdapter[JsonObject] = TypeAdapter(JsonObject)

type McpServerAddress = StdioServerParameters | str


class McpUnavailableError(ToolError):
    """Raised when an MCP server cannot be started, reached, or answers out of protocol."""

    code = "mcp_unavailable"


class McpToolSource:
    """The tools of one MCP server."""

    def __init__(self, prefix: str, server: McpServerAddress) -> None:
        self.prefix = prefix
        self._server = server
        self._client: Client | None = None
        self._holder: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._lock = asyncio.Lock()

    async def tools(self) -> Sequence[McpTool]:
        """Every tool the server offers now, as tool entities."""
        client = await self._connected()
        try:
            listed = await client.list_tools(cache_mode="bypass")
        except Exception as error:  # the SDK raises several transport types; all mean "gone"
            raise McpUnavailableError(f"{self.prefix}: listing tools failed: {error}") from error
        return tuple(McpTool(self, info) for info in listed.tools)

    async def call(self, tool: str, call: ToolCall) -> ToolResult:
        """Call `tool` on the server; a tool-level error comes back as an error result."""
        client = await self._connected()
        try:
            result = await client.call_tool(tool, dict(call.arguments))
        except Exception as error:
            raise McpUnavailableError(f"{self.prefix}.{tool}: the call failed: {error}") from error
        return ToolResult(
            call_id=call.call_id, name=call.name, text=_text_of(result), is_error=result.is_error
        )

    async def close(self) -> None:
        """End the session (and the subprocess); safe to call twice."""
        async with self._lock:
            holder, self._holder, self._client = self._holder, None, None
            self._closing.set()
        if holder is not None:
            await holder

    async def _connected(self) -> Client:
        async with self._lock:
            if self._client is not None:
                return self._client
            self._closing = asyncio.Event()
            ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
            self._holder = asyncio.create_task(self._hold(ready, self._closing))
            try:
                self._client = await ready
            except Exception as error:
                self._holder = None
                raise McpUnavailableError(f"{self.prefix}: cannot connect: {error}") from error
            return self._client

    async def _hold(self, ready: asyncio.Future[Client], closing: asyncio.Event) -> None:
        """Own the session: the SDK's transports must be entered and left in one task."""
        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(Client(self._server, cache=None))
                ready.set_result(client)
                await closing.wait()
        except Exception as error:  # noqa: BLE001 - handed to the waiter, or logged
            if not ready.done():
                ready.set_exception(error)
            else:
                logger.warning("%s: MCP session ended with an error: %s", self.prefix, error)


class McpTool(Tool):
    """One tool of an MCP server."""

    def __init__(self, source: McpToolSource, info: McpToolInfo) -> None:
        self._source = source
        self._remote_name = info.name
        name = f"{source.prefix}.{info.name}"
        self.ref = tool_ref(name)
        hints = info.annotations
        safe = hints is not None and bool(hints.read_only_hint or hints.idempotent_hint)
        self.definition = ToolDefinition(
            name=name,
            description=info.description or "",
            input_schema=_JSON_OBJECT.validate_python(info.input_schema),
            output_schema=(
                _JSON_OBJECT.validate_python(info.output_schema) if info.output_schema else None
            ),
            idempotency=Idempotency.IDEMPOTENT if safe else Idempotency.NOT_IDEMPOTENT,
            execution=Execution.ACTIVITY,
        )

    async def invoke(self, call: ToolCall) -> ToolResult:
        """Call the tool on its server."""
        return await self._source.call(self._remote_name, call)


def _text_of(result: CallToolResult) -> str:
    if result.structured_content is not None:
        structured: JsonValue = result.structured_content
        return json.dumps(structured, sort_keys=True)
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    return "\n".join(texts)

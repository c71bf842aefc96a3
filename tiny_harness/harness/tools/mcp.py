"""`McpToolSource`: one MCP server whose tools the loop can call, each wrapped as a `Tool`.

The source connects on first use (a subprocess over stdio, or a streamable-HTTP URL) and
keeps the session open for the worker's life; `close` ends it. A tool's name towards the
model is `<prefix>.<tool>` so tools of different servers cannot collide. Idempotency comes
from the server's own annotations: a tool is retried safely only when it says it is
read-only or idempotent.

Arguments are checked against the tool's input schema before the server sees them
(`validation.validate_arguments`).

Schema drift. Listing the tools (`tools`) records a sha256 of each tool's canonical
definition: name, description, input and output schema, annotations (`schema_hashes`).
Before a call, the caller asks `check_drift(name, iteration=key)`: the server's tools are
listed again, at most once per key (pass the task and its loop iteration, so one listing
serves every call of that iteration), and a tool whose definition changed, or that the
server no longer offers, is refused with `ToolSchemaChangedError` until it is listed and
registered again. The server's capabilities (`listChanged`) are not trusted either way.

The environment of a stdio server is exactly `stdio_environment(...)`:

    PATH           the worker's PATH (os.defpath if it has none), so bare commands resolve
    <declared>     the `env` of the `StdioServerParameters` (the manifest's `env`); it may
                   set PATH, which then wins over the worker's
    PLUGIN_ROOT    the `plugin_root` given to the source, if one is
    PLUGIN_DATA    the `plugin_data` given to the source, if one is

and nothing else: no HOME, USER, credentials or other variables of the worker. The SDK's
`stdio_client` always adds its own defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER) under
whatever env it is given, so on POSIX the source starts the server through a small launcher
(`python -I -S -c ...`) that receives the exact environment as JSON in one variable and
`execvpe`s the server with it: the server keeps the launcher's process id, pipes and
process group, and the SDK's shutdown (close stdin, SIGTERM, SIGKILL to the group) applies
unchanged. On Windows the SDK spawns the server itself and its defaults do get through.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import shutil
import sys
from collections import OrderedDict
from collections.abc import AsyncIterator, Hashable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from pydantic import JsonValue, TypeAdapter

from tiny_harness.errors import (
    McpUnavailableError,
    ToolError,
    ToolNotFoundError,
    ToolSchemaChangedError,
)
from tiny_harness.harness.tools.definition import (
    Execution,
    Idempotency,
    JsonObject,
    ToolCall,
    ToolDefinition,
    ToolResult,
)
from tiny_harness.harness.tools.tool import Tool, tool_ref
from tiny_harness.harness.tools.validation import compiled_validator, validate_arguments

__all__ = [
    "CHILD_ENV_VARIABLE",
    "LISTINGS_KEPT",
    "MAX_LIST_PAGES",
    "McpServerAddress",
    "McpTool",
    "McpToolSource",
    "McpUnavailableError",
    "stdio_environment",
]

logger = logging.getLogger(__name__)

_JSON_OBJECT: TypeAdapter[JsonObject] = TypeAdapter(JsonObject)

if TYPE_CHECKING:
    # The MCP SDK takes most of a second to import; only a worker with an MCP server pays it.
    from mcp import Client, StdioServerParameters
    from mcp.types import CallToolResult
    from mcp.types import Tool as McpToolInfo


@dataclass(frozen=True)
class McpHttpAddress:
    """A streamable-HTTP server: its URL, the headers sent as given, and the headers whose
    values come from environment variables (header name -> variable), read on connecting."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    headers_env: Mapping[str, str] = field(default_factory=dict)

    def resolved_headers(self, prefix: str) -> dict[str, str]:
        """Every header to send; `McpUnavailableError` naming a variable that is unset."""
        resolved = dict(self.headers)
        for header, variable in self.headers_env.items():
            value = os.environ.get(variable, "")
            if not value:
                raise McpUnavailableError(
                    f"{prefix}: the environment variable {variable} for its {header} header "
                    "is not set"
                )
            resolved[header] = value
        return resolved


type McpServerAddress = StdioServerParameters | McpHttpAddress | str
"""A stdio server to spawn, or a streamable-HTTP server (a bare string: its URL)."""

MAX_LIST_PAGES: Final = 100
"""A server whose `tools/list` runs to more pages than this is treated as out of protocol."""

LISTINGS_KEPT: Final = 256
"""Re-listings remembered by iteration key (least recently used dropped first)."""

CHILD_ENV_VARIABLE: Final = "TINY_HARNESS_MCP_CHILD_ENV"
"""The one variable the launcher reads: the server's whole environment, as a JSON object."""

_LAUNCHER: Final = "\n".join(
    (
        "import json, os, sys",
        f"env = json.loads(os.environ[{CHILD_ENV_VARIABLE!r}])",
        "try:",
        "    os.execvpe(sys.argv[1], sys.argv[1:], env)",
        "except OSError as error:",
        "    sys.stderr.write(f'cannot start {sys.argv[1]!r}: {error}\\n')",
        "    sys.exit(127)",
    )
)
"""Run as `python -I -S -c _LAUNCHER command *args`: exec `command` with exactly the
environment in `CHILD_ENV_VARIABLE`, searching the new environment's PATH."""


def stdio_environment(
    declared: Mapping[str, str] | None,
    *,
    plugin_root: Path | None = None,
    plugin_data: Path | None = None,
    path: str | None = None,
) -> dict[str, str]:
    """Exactly the environment a stdio server is started with (see the module's docstring).

    `path` defaults to the worker's `PATH`, or `os.defpath` when it has none.
    """
    env = {"PATH": path if path is not None else os.environ.get("PATH", os.defpath)}
    env.update(declared or {})
    if plugin_root is not None:
        env["PLUGIN_ROOT"] = str(plugin_root)
    if plugin_data is not None:
        env["PLUGIN_DATA"] = str(plugin_data)
    return env


class McpToolSource:
    """The tools of one MCP server.

    `server` is a `StdioServerParameters` (its `env` is the server's declared environment,
    never merged with the worker's) or a streamable-HTTP URL. `plugin_root` and
    `plugin_data` become `PLUGIN_ROOT` and `PLUGIN_DATA` of a stdio server.
    """

    def __init__(
        self,
        prefix: str,
        server: McpServerAddress,
        *,
        plugin_root: Path | None = None,
        plugin_data: Path | None = None,
    ) -> None:
        self.prefix = prefix
        self._server = server
        self._environment: dict[str, str] | None = None
        if not isinstance(server, str | McpHttpAddress):  # a stdio server
            self._environment = stdio_environment(
                server.env, plugin_root=plugin_root, plugin_data=plugin_data
            )
        self._client: Client | None = None
        self._holder: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._lock = asyncio.Lock()
        self._registered: dict[str, str] = {}
        self._listings: OrderedDict[Hashable, dict[str, str]] = OrderedDict()
        self._listing_lock = asyncio.Lock()

    @property
    def environment(self) -> Mapping[str, str] | None:
        """The exact environment of a stdio server (None for an HTTP one)."""
        return None if self._environment is None else MappingProxyType(self._environment)

    async def tools(self) -> Sequence[McpTool]:
        """Every tool the server offers now, as tool entities; records their schema hashes."""
        tools = tuple(McpTool(self, info) for info in await self._list())
        self._registered = {tool.definition.name: tool.schema_hash for tool in tools}
        for tool in tools:
            try:
                compiled_validator(tool.definition)
            except ToolError as error:
                logger.warning("%s: calls will be refused: %s", tool.definition.name, error)
        return tools

    def schema_hashes(self) -> Mapping[str, str]:
        """Model-facing tool name -> sha256 of its definition, as of the last `tools()`."""
        return MappingProxyType(dict(self._registered))

    async def check_drift(
        self, tool_name: str, *, iteration: Hashable, schema_hash: str | None = None
    ) -> None:
        """Refuse `tool_name` if the server changed it or dropped it since it was registered.

        The server's tools are listed at most once per `iteration` key (the last
        `LISTINGS_KEPT` keys are remembered); make the key unique across tasks, e.g.
        `(task_id, loop_iteration)`. `schema_hash` is the hash to compare with, by default
        the one recorded by the last `tools()`.

        Raises `ToolSchemaChangedError` on drift, `ToolNotFoundError` for a name this
        source never registered, `McpUnavailableError` when the listing fails.
        """
        expected = schema_hash if schema_hash is not None else self._registered.get(tool_name)
        if expected is None:
            raise ToolNotFoundError(f"{tool_name!r} is not a tool of MCP server {self.prefix}")
        actual = (await self._listing_at(iteration)).get(tool_name)
        if actual is None:
            raise ToolSchemaChangedError(
                f"{tool_name} is unavailable: its MCP server no longer offers it"
            )
        if actual != expected:
            raise ToolSchemaChangedError(
                f"{tool_name} is unavailable: its MCP server changed the tool's definition "
                "since it was registered"
            )

    async def call(self, tool: str, call: ToolCall) -> ToolResult:
        """Call `tool` on the server; a tool-level error comes back as an error result."""
        client = await self._connected()
        try:
            result = await client.call_tool(tool, dict(call.arguments))
        except Exception as error:
            raise McpUnavailableError(
                f"{self.prefix}.{tool}: the call failed: {_describe(error)}"
            ) from error
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

    async def _list(self) -> tuple[McpToolInfo, ...]:
        client = await self._connected()
        infos: list[McpToolInfo] = []
        cursor: str | None = None
        try:
            for _ in range(MAX_LIST_PAGES):
                page = await client.list_tools(cursor=cursor, cache_mode="bypass")
                infos.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    return tuple(infos)
        except Exception as error:  # the SDK raises several transport types; all mean "gone"
            raise McpUnavailableError(
                f"{self.prefix}: listing tools failed: {_describe(error)}"
            ) from error
        raise McpUnavailableError(f"{self.prefix}: tools/list ran past {MAX_LIST_PAGES} pages")

    async def _listing_at(self, iteration: Hashable) -> Mapping[str, str]:
        """Name -> hash of the server's tools, listed once per iteration key."""
        async with self._listing_lock:
            known = self._listings.get(iteration)
            if known is not None:
                self._listings.move_to_end(iteration)
                return known
            listing = {
                f"{self.prefix}.{info.name}": _definition_hash(info) for info in await self._list()
            }
            self._listings[iteration] = listing
            if len(self._listings) > LISTINGS_KEPT:
                self._listings.popitem(last=False)
            return listing

    async def _connected(self) -> Client:
        async with self._lock:
            if self._client is not None:
                return self._client
            target = self._target()
            self._closing = asyncio.Event()
            ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
            self._holder = asyncio.create_task(self._hold(target, ready, self._closing))
            try:
                self._client = await ready
            except Exception as error:
                self._holder = None
                raise McpUnavailableError(
                    f"{self.prefix}: cannot connect: {_describe(error)}"
                ) from error
            return self._client

    def _target(self) -> Any:
        """What the SDK connects to: the URL (over a client sending its headers), or the
        stdio server behind the launcher."""
        server, env = self._server, self._environment
        if isinstance(server, McpHttpAddress | str) or env is None:
            return sdk_target(server, self.prefix)
        _check_command(self.prefix, server, env)
        if sys.platform == "win32" or not sys.executable:
            return server.model_copy(update={"env": env})
        launcher = ["-I", "-S", "-c", _LAUNCHER, server.command, *server.args]
        return server.model_copy(
            update={
                "command": sys.executable,
                "args": launcher,
                "env": {CHILD_ENV_VARIABLE: json.dumps(env)},
            }
        )

    async def _hold(
        self, target: Any, ready: asyncio.Future[Client], closing: asyncio.Event
    ) -> None:
        """Own the session: the SDK's transports must be entered and left in one task."""
        from mcp import Client

        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(Client(target, cache=None))
                ready.set_result(client)
                await closing.wait()
        except Exception as error:  # noqa: BLE001 - handed to the waiter, or logged
            if not ready.done():
                ready.set_exception(error)
            else:
                logger.warning(
                    "%s: MCP session ended with an error: %s", self.prefix, _describe(error)
                )


def sdk_target(address: McpServerAddress, prefix: str) -> Any:
    """What `mcp.Client` takes for `address`: an HTTP server with headers gets a transport
    over an HTTP client (the SDK's own, with its timeouts) that sends them, the
    environment's read now (`McpUnavailableError` for one unset). `prefix` names the server
    in errors."""
    if not isinstance(address, McpHttpAddress):
        return address
    headers = address.resolved_headers(prefix)
    if not headers:
        return address.url
    from mcp.shared._httpx_utils import create_mcp_http_client

    return _owning(create_mcp_http_client(headers=headers), address.url)


@asynccontextmanager
async def _owning(http: Any, url: str) -> AsyncIterator[Any]:
    """The streamable-HTTP transport over `http`, closing `http` after it."""
    from mcp.client.streamable_http import streamable_http_client

    async with http, streamable_http_client(url, http_client=http) as streams:
        yield streams


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
        self.schema_hash = _definition_hash(info)
        """sha256 of the definition this tool was built from (what the model was shown)."""

    async def check_drift(self, *, iteration: Hashable) -> None:
        """`McpToolSource.check_drift` for this tool, against the definition it was built from."""
        await self._source.check_drift(
            self.definition.name, iteration=iteration, schema_hash=self.schema_hash
        )

    async def invoke(self, call: ToolCall) -> ToolResult:
        """Check the arguments against the input schema, then call the tool on its server.

        Raises `ToolArgumentError` (or `ToolSchemaError`) before anything is sent.
        """
        validate_arguments(self.definition, call)
        return await self._source.call(self._remote_name, call)


def _definition_hash(info: McpToolInfo) -> str:
    """sha256 of the tool's canonical definition: what the model is shown, and its hints."""
    annotations = (
        info.annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
        if info.annotations is not None
        else None
    )
    canonical: JsonValue = {
        "name": info.name,
        "description": info.description,
        "inputSchema": _JSON_OBJECT.validate_python(info.input_schema),
        "outputSchema": (
            _JSON_OBJECT.validate_python(info.output_schema) if info.output_schema else None
        ),
        "annotations": annotations,
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_command(prefix: str, server: StdioServerParameters, env: Mapping[str, str]) -> None:
    """Fail fast, and say why, when the server's command cannot be found or run."""
    command = server.command
    if os.sep in command or (os.altsep is not None and os.altsep in command):
        base = Path(server.cwd) if server.cwd is not None else Path.cwd()
        found = os.access(base / command, os.X_OK)
    else:
        found = shutil.which(command, path=env.get("PATH", os.defpath)) is not None
    if not found:
        raise McpUnavailableError(
            f"{prefix}: cannot start {command!r}: not found on the server's PATH, or not executable"
        )


def _describe(error: BaseException) -> str:
    """An error's message; for a group (the SDK's task groups), the messages inside it."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_describe(inner) for inner in error.exceptions)
    return str(error) or type(error).__name__


def _text_of(result: CallToolResult) -> str:
    from mcp.types import TextContent

    if result.structured_content is not None:
        structured: JsonValue = result.structured_content
        return json.dumps(structured, sort_keys=True)
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    return "\n".join(texts)

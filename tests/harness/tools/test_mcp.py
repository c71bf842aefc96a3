"""McpToolSource against real MCP servers: subprocesses over stdio, and streamable HTTP.

Starting a server costs about a second (the SDK's imports), so each server is started once
per module and the tests that change its state put it back first.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from tiny_harness.errors import (
    McpUnavailableError,
    ToolArgumentError,
    ToolNotFoundError,
    ToolSchemaChangedError,
)
from tiny_harness.harness.tools.definition import Idempotency, ToolCall
from tiny_harness.harness.tools.mcp import (
    McpHttpAddress,
    McpTool,
    McpToolSource,
    stdio_environment,
)
from tiny_harness.service.http import free_port

SERVERS = Path(__file__).parents[2] / "fixtures" / "mcp_servers"
CALCULATOR = SERVERS / "calculator.py"
PROBE = SERVERS / "probe.py"
SECRET = "TINY_HARNESS_TEST_SECRET"


@pytest.fixture(scope="module")
async def calculator() -> AsyncIterator[McpToolSource]:
    source = McpToolSource(
        "calc", StdioServerParameters(command=sys.executable, args=[str(CALCULATOR)])
    )
    try:
        yield source
    finally:
        await source.close()


class Probe:
    """The probe server's source, and the files that steer and count its listings."""

    def __init__(self, source: McpToolSource, folder: Path) -> None:
        self.source = source
        self.folder = folder
        self.plugin_root = folder / "plugin"
        self.plugin_data = folder / "data"

    def present_lookup_as(self, mode: str) -> None:
        (self.folder / "lookup.txt").write_text(mode, encoding="utf-8")

    def listings(self) -> int:
        return (self.folder / "listings.log").read_text(encoding="utf-8").count("\n")

    async def registered(self) -> dict[str, McpTool]:
        """Back to the tool as first written, registered afresh."""
        self.present_lookup_as("v1")
        return {tool.definition.name: tool for tool in await self.source.tools()}


@pytest.fixture(scope="module")
async def probe(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Probe]:
    folder = tmp_path_factory.mktemp("probe")
    (folder / "lookup.txt").write_text("v1", encoding="utf-8")
    source = McpToolSource(
        "probe",
        StdioServerParameters(
            command=sys.executable, args=[str(PROBE)], env={"PROBE_DIR": str(folder)}
        ),
        plugin_root=folder / "plugin",
        plugin_data=folder / "data",
    )
    with pytest.MonkeyPatch.context() as patch:
        # The worker holds a secret while the server is spawned; the server must not see it.
        patch.setenv(SECRET, "s3cret")
        await source.tools()
    try:
        yield Probe(source, folder)
    finally:
        await source.close()


@pytest.fixture(scope="module")
def http_calculator_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The calculator served over streamable HTTP on 127.0.0.1, in its own process."""
    yield from serve_calculator(tmp_path_factory)


HEADER_SECRET = "mcp-secret-7f3a"


@pytest.fixture(scope="module")
def guarded_calculator_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The calculator over HTTP, answering only requests with `X-Calc-Token: HEADER_SECRET`."""
    yield from serve_calculator(tmp_path_factory, "X-Calc-Token", HEADER_SECRET)


def serve_calculator(factory: pytest.TempPathFactory, *required: str) -> Iterator[str]:
    port = free_port()
    log = (factory.mktemp("http") / "server.log").open("w", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(CALCULATOR), "--http", str(port), *required], stdout=log, stderr=log
    )
    try:
        deadline = time.monotonic() + 10
        while not _listening(port):
            assert process.poll() is None, "the HTTP server exited; see server.log"
            assert time.monotonic() < deadline, "the HTTP server did not start in 10 s"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


async def test_tools_are_listed_with_prefixed_names_and_idempotency(
    calculator: McpToolSource,
) -> None:
    tools = {tool.definition.name: tool for tool in await calculator.tools()}
    assert set(tools) == {"calc.add", "calc.divide"}
    assert tools["calc.add"].definition.idempotency is Idempotency.IDEMPOTENT
    assert tools["calc.divide"].definition.idempotency is Idempotency.NOT_IDEMPOTENT
    assert tools["calc.add"].definition.input_schema["required"] == ["a", "b"]


async def test_a_call_returns_the_structured_result(calculator: McpToolSource) -> None:
    tools = {tool.definition.name: tool for tool in await calculator.tools()}
    result = await tools["calc.add"].invoke(
        ToolCall(call_id="c-1", name="calc.add", arguments={"a": 2, "b": 3})
    )
    assert not result.is_error
    assert result.text == '{"total": 5}'
    assert result.call_id == "c-1"


async def test_a_tool_error_is_an_error_result_not_an_exception(calculator: McpToolSource) -> None:
    tools = {tool.definition.name: tool for tool in await calculator.tools()}
    result = await tools["calc.divide"].invoke(
        ToolCall(call_id="c-2", name="calc.divide", arguments={"a": 1, "b": 0})
    )
    assert result.is_error
    assert "divide by zero" in result.text


async def test_arguments_are_validated_before_the_server_is_called(
    calculator: McpToolSource,
) -> None:
    tools = {tool.definition.name: tool for tool in await calculator.tools()}
    with pytest.raises(ToolArgumentError, match=r"^calc\.add: arguments: 'b' is a required"):
        await tools["calc.add"].invoke(ToolCall(call_id="c-3", name="calc.add", arguments={"a": 1}))


async def test_a_server_that_cannot_start_is_a_typed_error(tmp_path: Path) -> None:
    source = McpToolSource("gone", StdioServerParameters(command=str(tmp_path / "no-such-binary")))
    with pytest.raises(McpUnavailableError, match="cannot start"):
        await source.tools()
    await source.close()


async def test_schema_hashes_are_recorded_when_tools_are_listed(probe: Probe) -> None:
    tools = await probe.registered()
    hashes = probe.source.schema_hashes()
    assert set(hashes) == {"probe.lookup", "probe.environment"}
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in hashes.values())
    assert hashes["probe.lookup"] == tools["probe.lookup"].schema_hash
    assert (await probe.registered())["probe.lookup"].schema_hash == hashes["probe.lookup"]


async def test_a_changed_tool_is_refused_and_tools_are_listed_once_per_iteration(
    probe: Probe,
) -> None:
    stale = (await probe.registered())["probe.lookup"]
    source = probe.source
    before = probe.listings()
    await asyncio.gather(
        source.check_drift("probe.lookup", iteration=("task-1", 1)),
        source.check_drift("probe.environment", iteration=("task-1", 1)),
    )
    assert probe.listings() == before + 1

    probe.present_lookup_as("v2")
    # The same iteration reuses its listing: no new list, and the change is not seen yet.
    await source.check_drift("probe.lookup", iteration=("task-1", 1))
    assert probe.listings() == before + 1

    with pytest.raises(ToolSchemaChangedError, match="changed the tool's definition"):
        await source.check_drift("probe.lookup", iteration=("task-1", 2))
    await source.check_drift("probe.environment", iteration=("task-1", 2))
    assert probe.listings() == before + 2

    # Registering the tool again accepts its new definition; the entity the model was
    # shown before stays refused.
    fresh = {tool.definition.name: tool for tool in await source.tools()}["probe.lookup"]
    assert fresh.definition.input_schema["required"] == ["key", "scope"]
    await source.check_drift("probe.lookup", iteration=("task-1", 3))
    await fresh.check_drift(iteration=("task-1", 3))
    with pytest.raises(ToolSchemaChangedError):
        await stale.check_drift(iteration=("task-1", 3))


async def test_a_vanished_tool_is_refused(probe: Probe) -> None:
    await probe.registered()
    probe.present_lookup_as("gone")
    with pytest.raises(ToolSchemaChangedError, match="no longer offers it"):
        await probe.source.check_drift("probe.lookup", iteration=("task-2", 1))
    await probe.source.check_drift("probe.environment", iteration=("task-2", 1))


async def test_drift_of_a_name_the_source_never_registered_is_not_found(probe: Probe) -> None:
    with pytest.raises(ToolNotFoundError):
        await probe.source.check_drift("probe.nothing", iteration=("task-3", 1))


async def test_a_stdio_server_sees_only_path_plugin_variables_and_its_declared_env(
    probe: Probe,
) -> None:
    tool = (await probe.registered())["probe.environment"]
    result = await tool.invoke(ToolCall(call_id="c-4", name="probe.environment", arguments={}))
    assert not result.is_error
    assert json.loads(result.text) == {
        "PATH": os.environ["PATH"],
        "PROBE_DIR": str(probe.folder),
        "PLUGIN_ROOT": str(probe.plugin_root),
        "PLUGIN_DATA": str(probe.plugin_data),
    }
    assert probe.source.environment == {
        "PATH": os.environ["PATH"],
        "PROBE_DIR": str(probe.folder),
        "PLUGIN_ROOT": str(probe.plugin_root),
        "PLUGIN_DATA": str(probe.plugin_data),
    }


def test_the_declared_env_may_set_path_but_not_the_plugin_variables() -> None:
    env = stdio_environment(
        {"PATH": "/opt/tool/bin", "PLUGIN_ROOT": "/elsewhere", "TOKEN": "t"},
        plugin_root=Path("/plugins/p"),
        path="/usr/bin",
    )
    assert env == {"PATH": "/opt/tool/bin", "PLUGIN_ROOT": "/plugins/p", "TOKEN": "t"}
    assert stdio_environment(None, path="/usr/bin") == {"PATH": "/usr/bin"}


async def test_an_http_server_gets_its_header_from_the_environment(
    guarded_calculator_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CALC_TOKEN", raising=False)
    address = McpHttpAddress(url=guarded_calculator_url, headers_env={"X-Calc-Token": "CALC_TOKEN"})
    unset = McpToolSource("calc", address)
    with pytest.raises(McpUnavailableError, match="CALC_TOKEN for its X-Calc-Token header"):
        await unset.tools()
    await unset.close()
    without = McpToolSource("calc", guarded_calculator_url)
    with pytest.raises(McpUnavailableError, match="cannot connect"):
        await without.tools()
    await without.close()

    monkeypatch.setenv("CALC_TOKEN", HEADER_SECRET)
    source = McpToolSource("calc", address)
    try:
        tools = {tool.definition.name: tool for tool in await source.tools()}
        result = await tools["calc.add"].invoke(
            ToolCall(call_id="c-9", name="calc.add", arguments={"a": 2, "b": 3})
        )
    finally:
        await source.close()

    assert result.text == '{"total": 5}'


async def test_a_streamable_http_server_lists_and_calls(http_calculator_url: str) -> None:
    source = McpToolSource("web", http_calculator_url)
    try:
        tools = {tool.definition.name: tool for tool in await source.tools()}
        assert set(tools) == {"web.add", "web.divide"}
        assert source.environment is None
        await source.check_drift("web.add", iteration=("task-4", 1))
        result = await tools["web.add"].invoke(
            ToolCall(call_id="c-5", name="web.add", arguments={"a": 40, "b": 2})
        )
        assert result.text == '{"total": 42}'
    finally:
        await source.close()

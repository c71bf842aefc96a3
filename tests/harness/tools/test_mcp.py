"""McpToolSource against a real MCP server running as a subprocess over stdio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from tiny_harness.harness.tools.definition import Idempotency, ToolCall
from tiny_harness.harness.tools.mcp import McpToolSource, McpUnavailableError

CALCULATOR = Path(__file__).parents[2] / "fixtures" / "mcp_servers" / "calculator.py"


@pytest.fixture
async def calculator() -> AsyncIterator[McpToolSource]:
    source = McpToolSource(
        "calc", StdioServerParameters(command=sys.executable, args=[str(CALCULATOR)])
    )
    try:
        yield source
    finally:
        await source.close()


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


async def test_a_server_that_cannot_start_is_a_typed_error(tmp_path: Path) -> None:
    source = McpToolSource("gone", StdioServerParameters(command=str(tmp_path / "no-such-binary")))
    with pytest.raises(McpUnavailableError):
        await source.tools()
    await source.close()

"""The secrets plugins send to their MCP servers, so the `Redactor` knows them by value.

An MCP server over HTTP names, in its `headers_env`, the environment variables whose values
it sends as headers (`manifest.McpHttpServer`); those values are credentials the process
holds. This reads every `mcp.json` of the given plugin folders (the plugin's own and its
skills') and returns the values set in the environment; a file that cannot be read or
parsed is skipped here (the loader reports it).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from tiny_harness.errors import PluginError
from tiny_harness.harness.plugins.manifest import (
    McpHttpServer,
    mcp_server_entries,
    parse_mcp_server,
)


def mcp_header_secrets(
    plugin_dirs: Iterable[Path], environ: Mapping[str, str] | None = None
) -> list[str]:
    """The values of the environment variables the plugins' HTTP MCP servers send."""
    env = os.environ if environ is None else environ
    values: list[str] = []
    for folder in plugin_dirs:
        for path in (folder / "mcp.json", *sorted(folder.glob("skills/*/mcp.json"))):
            for variable in _header_variables(path):
                value = env.get(variable, "")
                if value:
                    values.append(value)
    return values


def _header_variables(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
        entries = mcp_server_entries(text, source=str(path))
    except (OSError, UnicodeError, PluginError):
        return []
    variables: list[str] = []
    for name, raw in entries.items():
        try:
            server = parse_mcp_server(raw, source=f"{path}: server {name!r}")
        except PluginError:
            continue
        if isinstance(server, McpHttpServer):
            variables += server.headers_env.values()
    return variables

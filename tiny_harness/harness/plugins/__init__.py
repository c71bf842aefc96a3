"""Plugins: read a plugin directory into a typed, validated `Plugin`, safely.

`read_plugin(root, data_dir=...)` returns the plugin and a `LoadReport` of what it loaded
and skipped. This package only reads; registering hooks, prompts, skills and MCP tools
with the running harness is the loader's job, and nothing here imports those packages.
"""

from tiny_harness.harness.plugins._files import MAX_FILE_BYTES
from tiny_harness.harness.plugins.manifest import (
    HookDef,
    McpHttpServer,
    McpServer,
    McpStdioServer,
    PluginAuthor,
    PluginManifest,
    PromptDef,
    parse_mcp_json,
)
from tiny_harness.harness.plugins.paths import check_command, expand, resolve_inside
from tiny_harness.harness.plugins.plugin import NAMESPACE, Plugin
from tiny_harness.harness.plugins.reader import read_plugin
from tiny_harness.harness.plugins.report import ComponentStatus, LoadReport

__all__ = [
    "MAX_FILE_BYTES",
    "NAMESPACE",
    "ComponentStatus",
    "HookDef",
    "LoadReport",
    "McpHttpServer",
    "McpServer",
    "McpStdioServer",
    "Plugin",
    "PluginAuthor",
    "PluginManifest",
    "PromptDef",
    "check_command",
    "expand",
    "parse_mcp_json",
    "read_plugin",
    "resolve_inside",
]

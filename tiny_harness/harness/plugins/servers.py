"""Preparing a stdio MCP server for spawning: its command checked, its args, env values
and cwd expanded, every path resolved inside the plugin (or its data directory).

The result is what the loader spawns as an argument vector, never through a shell. HTTP
servers pass through untouched: their url and headers are never expanded.
"""

from __future__ import annotations

from pathlib import Path

from tiny_harness.errors import PluginError, PluginPathError
from tiny_harness.harness.plugins.manifest import McpServer, McpStdioServer
from tiny_harness.harness.plugins.paths import (
    PLUGIN_DATA,
    PLUGIN_ROOT,
    check_command,
    expand,
    resolve_inside,
)


def prepare_server(server: McpServer, *, root: Path, data_dir: Path) -> McpServer:
    """`server` ready to spawn, or `PluginError` naming what was refused.

    `root` and `data_dir` must be resolved already. A command containing `${` is refused
    (never expanded); a command that is a path must stay inside `root` and becomes
    absolute; a bare name is left for the spawner's PATH search. Env keys are not expanded.
    """
    if not isinstance(server, McpStdioServer):
        return server
    check_command(server.command)
    variables = {PLUGIN_ROOT: str(root), PLUGIN_DATA: str(data_dir)}
    return McpStdioServer(
        command=_command(server.command, root),
        args=tuple(expand(arg, variables) for arg in server.args),
        env={key: expand(value, variables) for key, value in server.env.items()},
        cwd=_cwd(server.cwd, root=root, data_dir=data_dir),
    )


def _command(command: str, root: Path) -> str:
    if "/" not in command and "\\" not in command:
        return command
    try:
        return str(resolve_inside(root, command))
    except PluginPathError as error:
        raise PluginPathError(
            f"command: {error.message}; use a bare executable name or a './' path",
            path=command,
        ) from error


def _cwd(cwd: str | None, *, root: Path, data_dir: Path) -> str:
    """Absolute: the root when absent; else inside the root, or inside the data directory
    when it starts with `${PLUGIN_DATA}`."""
    if cwd is None:
        return str(root)
    expand(cwd, {PLUGIN_ROOT: str(root), PLUGIN_DATA: str(data_dir)})  # names unknown ones
    base, rest = root, cwd
    for name, folder in ((PLUGIN_ROOT, root), (PLUGIN_DATA, data_dir)):
        token = "${" + name + "}"
        if cwd == token or cwd.startswith(token + "/"):
            base, rest = folder, cwd.removeprefix(token).lstrip("/")
    if "${" in rest:
        raise PluginError("cwd: a placeholder can only start the path")
    try:
        return str(resolve_inside(base, rest or "."))
    except PluginPathError as error:
        raise PluginPathError(f"cwd: {error.message}", path=cwd) from error

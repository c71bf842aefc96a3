"""`Plugin`: one plugin directory read into a typed, validated, frozen description.

Every path in a `Plugin` is absolute and resolved inside `root` (symlinks followed), every
stdio server's args, env values and cwd are already expanded, and its command is checked.
A `Plugin` says what a plugin offers; it registers nothing. Applying it to the running
harness (hooks, prompts, skills, MCP tools) is the loader's job, not this package's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from tiny_harness.harness.plugins.manifest import HookDef, McpServer, PluginManifest, PromptDef

NAMESPACE = "io.github.madarauchiha-314.tiny-harness"
"""The client extension directory this harness reads (hooks, prompts, system prompt)."""


class Plugin(BaseModel, frozen=True):
    """What one plugin offers, ready for the loader.

    - `root`: the plugin directory, resolved; `data_dir`: where `${PLUGIN_DATA}` points
      (absolute; it may not exist yet, the loader creates it before spawning anything).
    - `skills`: skill folders (each `skills/<name>/` holding a `SKILL.md`), sorted.
    - `mcp`: stdio servers have expanded args, env values and cwd (absolute, inside root,
      or inside data_dir when written `${PLUGIN_DATA}/...`); a `./` command is absolute.
    - `hooks`, `prompts`: in file order and in name order; `systemprompt`: the
      replacement system prompt file, if the plugin has one.
    """

    manifest: PluginManifest
    root: Path
    data_dir: Path
    skills: tuple[Path, ...] = ()
    mcp: Mapping[str, McpServer] = {}
    hooks: tuple[HookDef, ...] = ()
    prompts: tuple[PromptDef, ...] = ()
    systemprompt: Path | None = None

    @property
    def name(self) -> str:
        """The manifest's name."""
        return self.manifest.name

"""`read_plugin`: read one plugin directory into a `Plugin` and a `LoadReport`, safely.

    root ──resolve──▶ plugin.json ──invalid──▶ raise PluginError(manifest_path)
                          │ valid
                          ▼
    skills/ ─▶ mcp.json ─▶ <namespace>/hooks.json ─▶ <namespace>/prompts/*.md ─▶ systemprompt.md
       each component: resolve inside root ─▶ read (regular file, size cap, UTF-8)
                       ─▶ validate ─▶ expand args/env/cwd ─▶ loaded | skipped(reason)

The manifest is read and validated before any component is touched; after that, a bad
component is skipped with its reason (and a warning log) and the rest still load. Reading
creates nothing, imports nothing, spawns nothing and fetches nothing: this is blocking file
I/O only, so an async caller runs it in a thread or an activity.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import JsonValue, ValidationError

from tiny_harness.errors import PluginError
from tiny_harness.harness.plugins._files import present, read_text
from tiny_harness.harness.plugins.manifest import (
    HookDef,
    McpServer,
    PluginManifest,
    PromptDef,
    describe,
    load_json,
    mcp_server_entries,
    parse_manifest,
    parse_mcp_server,
    parse_prompt_front_matter,
)
from tiny_harness.harness.plugins.paths import resolve_inside
from tiny_harness.harness.plugins.plugin import NAMESPACE, Plugin
from tiny_harness.harness.plugins.report import ComponentKind, ComponentStatus, LoadReport
from tiny_harness.harness.plugins.servers import prepare_server

logger = logging.getLogger(__name__)

_PROMPT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def read_plugin(root: Path, *, data_dir: Path) -> tuple[Plugin, LoadReport]:
    """Read the plugin at `root`; `data_dir` is where `${PLUGIN_DATA}` points.

    Raises `PluginError` (with `manifest_path`) when the root is not a directory or
    `plugin.json` is missing, escapes the root or is invalid; nothing else is read then.
    Every other problem skips only the component at fault and is recorded in the report.
    """
    base = _resolve_root(root)
    manifest, notes = _read_manifest(base)
    reader = _Reader(base, data_dir.resolve(), _Statuses(manifest.name))
    reader.manifest(manifest, notes)
    plugin = Plugin(
        manifest=manifest,
        root=base,
        data_dir=reader.data_dir,
        skills=reader.skills(),
        mcp=reader.mcp(),
        hooks=reader.hooks(),
        prompts=reader.prompts(),
        systemprompt=reader.systemprompt(),
    )
    return plugin, LoadReport(plugin=manifest.name, components=tuple(reader.statuses.items))


def _resolve_root(root: Path) -> Path:
    manifest_path = root / "plugin.json"
    try:
        base = root.resolve(strict=True)
    except (OSError, RuntimeError) as error:
        raise PluginError(
            f"plugin root {root} does not exist", manifest_path=manifest_path
        ) from error
    if not base.is_dir():
        raise PluginError(f"plugin root {root} is not a directory", manifest_path=manifest_path)
    return base


def _read_manifest(base: Path) -> tuple[PluginManifest, tuple[tuple[str, str], ...]]:
    manifest_path = base / "plugin.json"
    try:
        path = resolve_inside(base, "plugin.json")
        return parse_manifest(read_text(path, source="plugin.json"), source="plugin.json")
    except PluginError as error:
        raise PluginError(error.message, manifest_path=manifest_path) from error


@dataclass
class _Statuses:
    plugin: str
    items: list[ComponentStatus] = field(default_factory=list)

    def loaded(self, kind: ComponentKind, name: str) -> None:
        self.items.append(ComponentStatus(kind=kind, name=name, status="loaded"))

    def skipped(self, kind: ComponentKind, name: str, reason: str) -> None:
        logger.warning("plugin %s: %s %r skipped: %s", self.plugin, kind, name, reason)
        self.items.append(ComponentStatus(kind=kind, name=name, status="skipped", reason=reason))


@dataclass
class _Reader:
    root: Path
    data_dir: Path
    statuses: _Statuses

    def manifest(self, manifest: PluginManifest, notes: tuple[tuple[str, str], ...]) -> None:
        self.statuses.loaded("manifest", manifest.name)
        for key, reason in notes:
            self.statuses.skipped("manifest", key, reason)

    def skills(self) -> tuple[Path, ...]:
        if not present(self.root / "skills"):
            return ()
        try:
            folder = resolve_inside(self.root, "skills")
        except PluginError as error:
            self.statuses.skipped("skill", "skills", error.message)
            return ()
        if not folder.is_dir():
            self.statuses.skipped("skill", "skills", "not a directory")
            return ()
        found: list[Path] = []
        for name in sorted(child.name for child in folder.iterdir()):
            try:
                skill = resolve_inside(self.root, f"skills/{name}")
                if not skill.is_dir():
                    continue  # a plain file beside the skills is not a skill
                skill_md = resolve_inside(self.root, f"skills/{name}/SKILL.md")
                if not skill_md.is_file():
                    raise PluginError("no SKILL.md regular file")
            except PluginError as error:
                self.statuses.skipped("skill", name, error.message)
                continue
            found.append(skill)
            self.statuses.loaded("skill", name)
        return tuple(found)

    def mcp(self) -> dict[str, McpServer]:
        if not present(self.root / "mcp.json"):
            return {}
        try:
            path = resolve_inside(self.root, "mcp.json")
            entries = mcp_server_entries(read_text(path, source="mcp.json"), source="mcp.json")
        except PluginError as error:
            self.statuses.skipped("mcp", "mcp.json", error.message)
            return {}
        servers: dict[str, McpServer] = {}
        for name, raw in entries.items():
            try:
                servers[name] = self._prepare_server(
                    parse_mcp_server(raw, source=f"server {name!r}")
                )
            except PluginError as error:
                self.statuses.skipped("mcp", name, error.message)
                continue
            self.statuses.loaded("mcp", name)
        return servers

    def hooks(self) -> tuple[HookDef, ...]:
        source = f"{NAMESPACE}/hooks.json"
        if not present(self.root / source):
            return ()
        try:
            raw = load_json(
                read_text(resolve_inside(self.root, source), source=source), source=source
            )
            if not isinstance(raw, list):
                raise PluginError(f"{source}: must be a JSON array of hooks")
        except PluginError as error:
            self.statuses.skipped("hook", "hooks.json", error.message)
            return ()
        hooks: list[HookDef] = []
        for index, entry in enumerate(raw):
            label = _hook_label(entry, index)
            try:
                hook = self._hook(entry, taken={h.name for h in hooks})
            except PluginError as error:
                self.statuses.skipped("hook", label, error.message)
                continue
            hooks.append(hook)
            self.statuses.loaded("hook", hook.name)
        return tuple(hooks)

    def prompts(self) -> tuple[PromptDef, ...]:
        source = f"{NAMESPACE}/prompts"
        if not present(self.root / source):
            return ()
        try:
            folder = resolve_inside(self.root, source)
            if not folder.is_dir():
                raise PluginError(f"{source}: not a directory")
        except PluginError as error:
            self.statuses.skipped("prompt", "prompts", error.message)
            return ()
        prompts: list[PromptDef] = []
        for file_name in sorted(c.name for c in folder.iterdir() if c.name.endswith(".md")):
            prompt_id = file_name.removesuffix(".md")
            try:
                prompts.append(self._prompt(prompt_id, f"{source}/{file_name}"))
            except PluginError as error:
                self.statuses.skipped("prompt", prompt_id, error.message)
                continue
            self.statuses.loaded("prompt", prompt_id)
        return tuple(prompts)

    def systemprompt(self) -> Path | None:
        source = f"{NAMESPACE}/systemprompt.md"
        if not present(self.root / source):
            return None
        try:
            path = resolve_inside(self.root, source)
            read_text(path, source=source)
        except PluginError as error:
            self.statuses.skipped("systemprompt", "systemprompt.md", error.message)
            return None
        self.statuses.loaded("systemprompt", "systemprompt.md")
        return path

    def _hook(self, entry: JsonValue, *, taken: set[str]) -> HookDef:
        try:
            hook = HookDef.model_validate(entry)
        except ValidationError as error:
            raise PluginError(describe(error)) from error
        if hook.name in taken:
            raise PluginError(f"a hook named {hook.name!r} is defined already")
        if hook.mcp is None:
            return hook
        return hook.model_copy(update={"mcp": self._prepare_server(hook.mcp)})

    def _prepare_server(self, server: McpServer) -> McpServer:
        return prepare_server(server, root=self.root, data_dir=self.data_dir)

    def _prompt(self, prompt_id: str, source: str) -> PromptDef:
        if not _PROMPT_ID.fullmatch(prompt_id):
            raise PluginError(f"{source}: a prompt id is letters, digits, '.', '_' and '-'")
        path = resolve_inside(self.root, source)
        extends = parse_prompt_front_matter(read_text(path, source=source), source=source)
        return PromptDef(id=prompt_id, path=path, extends=extends)


def _hook_label(entry: JsonValue, index: int) -> str:
    """How the report names a hook entry: its name when it has a usable one."""
    name = entry.get("name") if isinstance(entry, dict) else None
    if isinstance(name, str) and 0 < len(name) <= 128:
        return name
    return f"hooks.json[{index}]"

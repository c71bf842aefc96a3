"""Installing plugins into a worker's `Harness`: the built-in plugin first, then the
configured ones, each through the same reader.

Reading (`read_plugin`) decides what a plugin offers; installing makes it live: skills join
the catalog, MCP servers' tools join the registry, hooks join the hook chain, prompts extend
or replace the system prompt. A component that fails here is skipped with its reason in the
plugin's report and the rest still load; a plugin whose manifest is bad is reported and
left out, and the harness runs on without it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tiny_harness.errors import PluginError, SkillError, TinyHarnessError
from tiny_harness.harness.agents.tools import delegation_tools
from tiny_harness.harness.channels.a2a import A2AChannel
from tiny_harness.harness.entities import Registry, RegistryEntry
from tiny_harness.harness.hooks import (
    HookContext,
    HookExecutor,
    HookManager,
    HookPoint,
    JsonRpcHookExecutor,
    McpHookExecutor,
    Providers,
    default_providers,
    load_executor,
)
from tiny_harness.harness.models.llm import LLM
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.plugins.manifest import HookDef
from tiny_harness.harness.plugins.plugin import Plugin
from tiny_harness.harness.plugins.reader import read_plugin
from tiny_harness.harness.plugins.report import ComponentKind, ComponentStatus, LoadReport
from tiny_harness.harness.prompts import (
    SYSTEM_PROMPT_ID,
    PromptEntity,
    SystemPrompt,
    load_builtin_system_prompt,
    split_front_matter,
)
from tiny_harness.harness.runtime.harness import LLM_REF, STORE_REF, Harness, mcp_address
from tiny_harness.harness.skills import SkillCatalog, SkillLoader
from tiny_harness.harness.skills.tools import skill_tools
from tiny_harness.harness.tools.intrinsics import INTRINSIC_TOOLS
from tiny_harness.harness.tools.mcp import McpToolSource
from tiny_harness.harness.tools.stored_results import ReadToolResultTool
from tiny_harness.harness.tools.tool import Tool

logger = logging.getLogger(__name__)


@dataclass
class PromptComposition:
    """The system prompt as plugins compose it, one replacement or extension at a time."""

    current: SystemPrompt

    def replace(self, prompt: PromptEntity) -> None:
        """A plugin's `systemprompt.md` replaces the whole prompt."""
        self.current = self.current.replace(prompt)

    def extend(self, section: str, text: str) -> None:
        """A plugin's prompt with `extends:` adds to one section; `PromptError` if absent."""
        self.current = self.current.extend(section, text)


@dataclass
class Installation:
    """What installing a list of plugins did: a report per plugin, and refused plugins."""

    reports: list[LoadReport] = field(default_factory=list)
    refused: list[PluginError] = field(default_factory=list)


class _ConfiguredExecutor:
    """An in-process executor with the name, priority and points its `hooks.json` gives."""

    def __init__(
        self, inner: HookExecutor, name: str, priority: int, points: frozenset[HookPoint]
    ) -> None:
        self._inner = inner
        self.name = name
        self.priority = priority
        self.points = points

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        return await self._inner.handle(point, ctx)


async def install_plugins(
    harness: Harness, prompt: PromptComposition, roots: Sequence[Path], *, data_root: Path
) -> Installation:
    """Read and install each plugin folder in order; the system prompt is built in `prompt`."""
    done = Installation()
    for root in roots:
        try:
            plugin, report = await asyncio.to_thread(
                read_plugin, root, data_dir=data_root / root.name
            )
        except PluginError as error:
            logger.error("plugin %s refused: %s", root, error.message)
            done.refused.append(error)
            continue
        report = await install(harness, prompt, plugin, report)
        logger.info("%s", report.summary())
        done.reports.append(report)
    return done


async def install(
    harness: Harness, prompt: PromptComposition, plugin: Plugin, report: LoadReport
) -> LoadReport:
    """Make `plugin`'s components live; returns `report` with install-time outcomes."""
    statuses = list(report.components)
    tag = _Tagger(statuses)
    for path in plugin.skills:
        tag.outcome("skill", path.name, await _install_skill(harness, path))
    for name, server in plugin.mcp.items():
        source = McpToolSource(
            f"{plugin.name}.{name}",
            mcp_address(server),
            plugin_root=plugin.root,
            plugin_data=plugin.data_dir,
        )
        tag.outcome("mcp", name, await _guard(harness.add_mcp_source(source)))
    for hook in plugin.hooks:
        tag.outcome("hook", hook.name, _install_hook(harness, hook))
    if plugin.systemprompt is not None:
        path = plugin.systemprompt
        tag.outcome("systemprompt", "systemprompt", _try(lambda: _replace(prompt, path)))
    for definition in plugin.prompts:
        if definition.extends is not None:
            extension = functools.partial(_extend, prompt, definition.path, definition.extends)
            tag.outcome("prompt", definition.id, _try(extension))
        else:
            tag.outcome(
                "prompt",
                definition.id,
                await _register_prompt(harness, definition.id, definition.path),
            )
    return LoadReport(plugin=report.plugin, components=tuple(statuses))


class _Tagger:
    """Turns each install outcome into the component's final status."""

    def __init__(self, statuses: list[ComponentStatus]) -> None:
        self._statuses = statuses

    def outcome(self, kind: ComponentKind, name: str, error: str | None) -> None:
        if error is None:
            return
        logger.warning("component %s %s skipped: %s", kind, name, error)
        for i, status in enumerate(self._statuses):
            if status.kind == kind and status.name == name:
                self._statuses[i] = status.model_copy(update={"status": "skipped", "reason": error})
                return
        self._statuses.append(ComponentStatus(kind=kind, name=name, status="skipped", reason=error))


async def _install_skill(harness: Harness, path: Path) -> str | None:
    loaded = SkillLoader().load(path)
    if isinstance(loaded, SkillError):
        return loaded.message
    try:
        harness.skills.add(loaded)
    except TinyHarnessError as error:
        return error.message
    return None


def _install_hook(harness: Harness, hook: HookDef) -> str | None:
    try:
        points = frozenset(HookPoint.parse(p) for p in hook.points or ())
        executor = _executor(harness, hook, points)
        harness.hooks.register(executor)
    except TinyHarnessError as error:
        return error.message
    return None


def _executor(harness: Harness, hook: HookDef, points: frozenset[HookPoint]) -> HookExecutor:
    if hook.import_path is not None:
        inner = load_executor(hook.import_path)
        return _ConfiguredExecutor(inner, hook.name, hook.priority, points or inner.points)
    if not points:
        raise PluginError(f"hook {hook.name}: a remote hook must list the points it handles")
    if hook.url is not None:
        http = harness.providers.http_client_factory()
        return JsonRpcHookExecutor(hook.name, hook.priority, points, str(hook.url), http=http)
    if hook.mcp is None:
        raise PluginError(f"hook {hook.name}: no import_path, url or mcp")
    return McpHookExecutor(hook.name, hook.priority, points, mcp_address(hook.mcp))


def _replace(prompt: PromptComposition, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    prompt.replace(PromptEntity.from_markdown(SYSTEM_PROMPT_ID, text, source=str(path)))


def _extend(prompt: PromptComposition, path: Path, section: str) -> None:
    _, body = split_front_matter(path.read_text(encoding="utf-8"), source=str(path))
    prompt.extend(section, body)


async def _register_prompt(harness: Harness, prompt_id: str, path: Path) -> str | None:
    try:
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        entity = PromptEntity.from_markdown(prompt_id, text, source=str(path))
        await harness.registry.add(RegistryEntry(ref=entity.ref, instance=entity))
    except TinyHarnessError as error:
        return error.message
    return None


async def _guard(work: Awaitable[object]) -> str | None:
    try:
        await work
    except TinyHarnessError as error:
        return error.message
    return None


def _try(change: Callable[[], object]) -> str | None:
    try:
        change()
    except TinyHarnessError as error:
        return error.message
    return None


BUILTIN_ROOT: Final = Path(__file__).resolve().parents[2] / "builtin"
"""The built-in plugin: the default system prompt and the demo script live here."""


async def build_harness(
    *,
    llm: LLM,
    store: Store,
    plugins: Sequence[Path],
    data_dir: Path,
    providers: Providers | None = None,
) -> tuple[Harness, Installation]:
    """A worker's `Harness`: the model and store given, the intrinsic and skill tools, then
    the built-in plugin and `plugins` installed in order."""
    harness = Harness(
        registry=Registry(),
        hooks=HookManager(),
        providers=providers or default_providers(),
        skills=SkillCatalog(),
        system_prompt="",
    )
    await harness.registry.add(RegistryEntry(ref=LLM_REF, instance=llm))
    await harness.registry.add(RegistryEntry(ref=STORE_REF, instance=store))
    channel = A2AChannel()
    await harness.registry.add(RegistryEntry(ref=channel.ref, instance=channel))
    tools: list[Tool] = [
        *INTRINSIC_TOOLS,
        ReadToolResultTool(harness.store, lambda: harness.budget.max_tool_result_chars),
        *skill_tools(harness.skills, harness.open_skill_tools),
        *delegation_tools(harness.agent),
    ]
    for tool in tools:
        await harness.registry.add(RegistryEntry(ref=tool.ref, instance=tool))
    prompt = PromptComposition(SystemPrompt(base=load_builtin_system_prompt()))
    installation = await install_plugins(
        harness, prompt, [BUILTIN_ROOT, *plugins], data_root=data_dir / "plugins"
    )
    harness.system_prompt = prompt.current.render_static()
    return harness, installation

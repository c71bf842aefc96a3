"""`Harness`: everything one worker's activities need, in one place.

The registry (LLM, store, tools, channels), the hook chain, the providers, the skill
catalog, the system prompt and the MCP sessions the worker has opened. It is built once per
worker from the built-in plugin and the configured plugins
(`tiny_harness.harness.plugins.install`) and closed when the worker stops.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from tiny_harness.errors import (
    EntityNotFoundError,
    PluginError,
    RegistryError,
    ToolError,
    ToolNotFoundError,
)
from tiny_harness.harness.agents.agent import Agent
from tiny_harness.harness.agents.roster import unknown_agent
from tiny_harness.harness.channels import Channel
from tiny_harness.harness.context.window import ContextBudget
from tiny_harness.harness.entities import EntityKind, EntityRef, Registry, RegistryEntry
from tiny_harness.harness.hooks import HookManager, Providers
from tiny_harness.harness.models.llm import LLM
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.plugins import McpServer, McpStdioServer, parse_mcp_json
from tiny_harness.harness.plugins.servers import prepare_server
from tiny_harness.harness.skills import Skill, SkillCatalog
from tiny_harness.harness.tools.definition import ToolDefinition
from tiny_harness.harness.tools.mcp import McpHttpAddress, McpServerAddress, McpToolSource
from tiny_harness.harness.tools.tool import Tool, tool_ref

logger = logging.getLogger(__name__)

STORE_REF = EntityRef(kind=EntityKind.STORE, id="default")
LLM_REF = EntityRef(kind=EntityKind.LLM, id="default")


class Harness:
    """A worker's registry, hooks, providers, skills, system prompt and MCP sessions."""

    def __init__(
        self,
        *,
        registry: Registry,
        hooks: HookManager,
        providers: Providers,
        skills: SkillCatalog,
        system_prompt: str,
    ) -> None:
        self.registry = registry
        self.hooks = hooks
        self.providers = providers
        self.skills = skills
        self.system_prompt = system_prompt
        self.budget = ContextBudget()
        self.roster = ""
        """The agents section of the context: who `spawn_subtask` can delegate to."""
        self._sources: list[McpToolSource] = []
        self._skill_tools: dict[str, tuple[ToolDefinition, ...]] = {}
        self._skill_lock = asyncio.Lock()

    async def llm(self) -> LLM:
        """The model the loop calls."""
        return await self.registry.get(LLM_REF, LLM)

    async def agent(self, agent_id: str) -> Agent:
        """The agent registered as `agent_id`; raises `UnknownAgentError` naming the ids."""
        try:
            return await self.registry.get(EntityRef(kind=EntityKind.AGENT, id=agent_id), Agent)
        except EntityNotFoundError:
            raise unknown_agent(agent_id, self.agent_ids()) from None

    def agent_ids(self) -> tuple[str, ...]:
        """The ids of every registered agent, sorted."""
        return tuple(sorted(ref.id for ref in self.registry.list(EntityKind.AGENT)))

    async def channels(self) -> tuple[Channel, ...]:
        """Every registered channel, push and pull, in the registry's order."""
        refs = self.registry.list(EntityKind.CHANNEL)
        return tuple([await self.registry.get(r, Channel) for r in refs])

    async def store(self) -> Store:
        """The store of task records."""
        return await self.registry.get(STORE_REF, Store)

    async def base_tools(self) -> tuple[ToolDefinition, ...]:
        """Definitions of every registered tool that no skill owns, by name."""
        owned = {t.name for tools in self._skill_tools.values() for t in tools}
        refs = [r for r in self.registry.list(EntityKind.TOOL) if r.id not in owned]
        return tuple([(await self.registry.get(r, Tool)).definition for r in refs])

    async def tool(self, name: str, *, loaded_skills: Sequence[str]) -> Tool:
        """The tool the model calls `name`. A skill's tool (`<skill>.<tool>`) only while that
        skill is loaded; raises `ToolNotFoundError` otherwise, or for a name nobody offers."""
        owner = self.skill_owning(name) or _skill_prefix(name, self.skills)
        if owner is not None:
            if owner not in loaded_skills:
                raise ToolNotFoundError(f"{name!r} belongs to skill {owner!r}: load_skill it first")
            await self.open_skill_tools(self.skills.get(owner))
        try:
            return await self.registry.get(tool_ref(name), Tool)
        except RegistryError as error:
            raise ToolNotFoundError(f"no tool named {name!r}") from error

    def skill_owning(self, tool_name: str) -> str | None:
        """The skill whose MCP servers provide `tool_name`, if one does."""
        for skill, tools in self._skill_tools.items():
            if any(t.name == tool_name for t in tools):
                return skill
        return None

    async def open_skill_tools(self, skill: Skill) -> tuple[ToolDefinition, ...]:
        """Connect the skill's MCP servers (once per worker) and register their tools."""
        async with self._skill_lock:
            known = self._skill_tools.get(skill.name)
            if known is not None:
                return known
            definitions: list[ToolDefinition] = []
            try:
                servers = _skill_servers(skill)
            except PluginError as error:
                raise ToolError(f"skill {skill.name}: {error.message}") from error
            for server_name, server in servers.items():
                root = skill.root.resolve()
                source = McpToolSource(
                    skill.name, mcp_address(server), plugin_root=root, plugin_data=root
                )
                self._sources.append(source)
                for tool in await source.tools():
                    await self.registry.add(
                        RegistryEntry(ref=tool.ref, instance=tool), override=True
                    )
                    definitions.append(tool.definition)
                logger.info("skill %s: MCP server %s connected", skill.name, server_name)
            self._skill_tools[skill.name] = tuple(definitions)
            return self._skill_tools[skill.name]

    async def add_mcp_source(self, source: McpToolSource) -> tuple[ToolDefinition, ...]:
        """Register the tools of a plugin's MCP server; the session closes with the harness."""
        self._sources.append(source)
        tools = await source.tools()
        for tool in tools:
            await self.registry.add(RegistryEntry(ref=tool.ref, instance=tool))
        return tuple(t.definition for t in tools)

    async def close(self) -> None:
        """End every MCP session this harness opened."""
        for source in self._sources:
            await source.close()
        self._sources.clear()


def _skill_prefix(name: str, skills: SkillCatalog) -> str | None:
    prefix = name.split(".", 1)[0] if "." in name else None
    return prefix if prefix is not None and prefix in skills else None


def mcp_address(server: McpServer) -> McpServerAddress:
    """How the MCP client reaches a server a plugin or skill declared."""
    if isinstance(server, McpStdioServer):
        from mcp import StdioServerParameters  # the SDK is imported only when a server is

        return StdioServerParameters(
            command=server.command,
            args=list(server.args),
            env=dict(server.env) or None,
            cwd=server.cwd,
        )
    return McpHttpAddress(
        url=str(server.url), headers=dict(server.headers), headers_env=dict(server.headers_env)
    )


def _skill_servers(skill: Skill) -> dict[str, McpServer]:
    """The skill's `mcp.json` servers; a stdio server runs in the skill's folder.

    Raises `PluginError` for a server the rules refuse.
    """
    path = skill.mcp_config_path
    if path is None:
        return {}
    servers = parse_mcp_json(path.read_text(encoding="utf-8"), source=str(path))
    root = skill.root.resolve()
    # The same rules as a plugin's servers: no `${` in commands, paths inside the skill.
    return {
        name: prepare_server(server, root=root, data_dir=root) for name, server in servers.items()
    }

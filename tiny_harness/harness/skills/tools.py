"""The five skill intrinsics as tool entities.

`list_skills`, `list_skill_resources` and `load_skill_resource` answer with text.
`load_skill` and `unload_skill` answer with a command: the workflow records which skills are
loaded (with the body and the definitions of the skill's MCP tools), so any worker that
picks the task up assembles the same context. Connecting a skill's MCP servers is the
`open_tools` callable's job, given by the worker.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pydantic import BaseModel

from tiny_harness.errors import SkillError, ToolArgumentError, ToolError
from tiny_harness.harness.skills.catalog import (
    SKILL_TOOL_SPECS,
    ListSkillResourcesArgs,
    ListSkillsArgs,
    LoadSkillArgs,
    LoadSkillResourceArgs,
    SkillCatalog,
    UnloadSkillArgs,
    list_skill_resources,
    list_skills,
    load_skill,
    load_skill_resource,
    unload_skill,
)
from tiny_harness.harness.skills.skill import Skill
from tiny_harness.harness.tools.definition import (
    Execution,
    Idempotency,
    ToolCall,
    ToolDefinition,
    ToolResult,
    WorkflowCommand,
)
from tiny_harness.harness.tools.intrinsics import parse_arguments
from tiny_harness.harness.tools.tool import Tool, tool_ref

type ToolOpener = Callable[[Skill], Awaitable[tuple[ToolDefinition, ...]]]


class SkillTool(Tool):
    """One skill intrinsic over a catalog."""

    def __init__(self, name: str, catalog: SkillCatalog, open_tools: ToolOpener) -> None:
        spec = next(s for s in SKILL_TOOL_SPECS if s.name == name)
        self.ref = tool_ref(name)
        self.definition = ToolDefinition(
            name=name,
            description=spec.description,
            input_schema=spec.args.model_json_schema(),
            idempotency=Idempotency.IDEMPOTENT,
            execution=Execution.INTRINSIC,
        )
        self._args = spec.args
        self._catalog = catalog
        self._open_tools = open_tools

    async def invoke(self, call: ToolCall) -> ToolResult | WorkflowCommand:
        """Answer the call; an unknown skill or a refused path is a `ToolError`."""
        args = parse_arguments(self._args, call)
        try:
            return await self._answer(call, args)
        except SkillError as error:
            raise ToolError(f"{call.name}: {error.message}") from error

    async def _answer(self, call: ToolCall, args: BaseModel) -> ToolResult | WorkflowCommand:
        catalog = self._catalog
        if isinstance(args, LoadSkillArgs):
            body = load_skill(catalog, args)
            tools = await self._open_tools(catalog.get(args.name))
            names = ", ".join(t.name for t in tools) or "none"
            return WorkflowCommand(
                kind="skill_loaded",
                call_id=call.call_id,
                payload={
                    "name": args.name,
                    "body": body,
                    "tools": [t.model_dump(mode="json") for t in tools],
                },
                result=_result(call, f"Skill {args.name!r} loaded. Its tools: {names}.\n\n{body}"),
            )
        if isinstance(args, UnloadSkillArgs):
            text = unload_skill(catalog, args)
            return WorkflowCommand(
                kind="skill_unloaded",
                call_id=call.call_id,
                payload={"name": args.name},
                result=_result(call, text),
            )
        if isinstance(args, ListSkillResourcesArgs):
            return _result(call, list_skill_resources(catalog, args))
        if isinstance(args, LoadSkillResourceArgs):
            return _result(call, load_skill_resource(catalog, args))
        if isinstance(args, ListSkillsArgs):
            return _result(call, list_skills(catalog, args))
        raise ToolArgumentError(f"{call.name}: unexpected arguments")


def skill_tools(catalog: SkillCatalog, open_tools: ToolOpener) -> tuple[SkillTool, ...]:
    """All five skill intrinsics."""
    return tuple(SkillTool(spec.name, catalog, open_tools) for spec in SKILL_TOOL_SPECS)


def _result(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(call_id=call.call_id, name=call.name, text=text)

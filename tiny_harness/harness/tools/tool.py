"""`Tool`: a tool entity the loop can offer the model and invoke.

A tool returns a `ToolResult`, or for an intrinsic a `WorkflowCommand` the workflow applies.
It raises `ToolError` (`ToolNotFoundError`, `ToolArgumentError`, …) for a call it refuses;
the `invoke_tool` activity turns that into an error result the model reads.
"""

from __future__ import annotations

from abc import abstractmethod

from tiny_harness.errors import ToolError
from tiny_harness.harness.entities import Entity, EntityKind, EntityRef
from tiny_harness.harness.tools.definition import (
    ToolCall,
    ToolDefinition,
    ToolResult,
    WorkflowCommand,
)


class Tool(Entity):
    """One tool: its model-facing definition and how to run a call."""

    definition: ToolDefinition

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.TOOL`."""
        return EntityKind.TOOL

    @abstractmethod
    async def invoke(self, call: ToolCall) -> ToolResult | WorkflowCommand:
        """Run one call."""


class TaskTool(Tool):
    """A tool whose answer depends on the task that calls it (its stored results, say):
    the `invoke_tool` activity calls `invoke_for` with the task's id."""

    @abstractmethod
    async def invoke_for(self, task_id: str, call: ToolCall) -> ToolResult:
        """Answer `call` for the task `task_id`."""

    async def invoke(self, call: ToolCall) -> ToolResult:
        """Refused: the tool answers only for a task (`invoke_for`)."""
        raise ToolError(f"{call.name} answers only inside a task")


def tool_ref(name: str) -> EntityRef:
    """The registry reference of the tool the model knows as `name`."""
    return EntityRef(kind=EntityKind.TOOL, id=name)

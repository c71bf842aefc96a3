"""The delegation intrinsics: `spawn_subtask` and `reply_subtask` (decision-004: sub-tasks
are tools).

Like every intrinsic they have no side effect of their own: they validate the call and
return a command the task workflow applies (it starts the stand-in, or signals it).
`spawn_subtask` checks the agent id against the registry first, so naming an unknown
agent (the empty id included) is an `agent.unknown` error result listing the valid ids,
and nothing is created.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pydantic import BaseModel, Field

from tiny_harness.errors import AgentError, ToolArgumentError
from tiny_harness.harness.agents.agent import Agent
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

type AgentLookup = Callable[[str], Awaitable[Agent]]


class SpawnSubtaskArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `spawn_subtask`."""

    agent: str = Field(description="The id of an agent from the agents section.")
    name: str = Field(min_length=1, description="A short name for the sub-task.")
    goal: str = Field(min_length=1, description="What the agent should achieve.")
    description: str = Field(default="", description="Context the agent needs, if any.")
    acceptance_criteria: tuple[str, ...] = ()


class ReplySubtaskArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `reply_subtask`."""

    subtask_id: str = Field(min_length=1, description="The id spawn_subtask returned.")
    text: str = Field(min_length=1, description="The answer to the sub-task's question.")


class SpawnSubtaskTool(Tool):
    """`spawn_subtask`: delegate a sub-task to a registered agent."""

    def __init__(self, lookup: AgentLookup) -> None:
        self.ref = tool_ref("spawn_subtask")
        self.definition = ToolDefinition(
            name="spawn_subtask",
            description=(
                "Delegate a sub-task to one of the agents listed in the agents section. "
                "You are told when it needs input or ends; the task cannot complete before."
            ),
            input_schema=SpawnSubtaskArgs.model_json_schema(),
            idempotency=Idempotency.IDEMPOTENT,
            execution=Execution.INTRINSIC,
        )
        self._lookup = lookup

    async def invoke(self, call: ToolCall) -> WorkflowCommand:
        """The `spawn_subtask` command; `agent.unknown` when the agent is not registered."""
        args = parse_arguments(SpawnSubtaskArgs, call)
        try:
            agent = await self._lookup(args.agent)
        except AgentError as error:
            raise ToolArgumentError(f"{error.code}: {error.message}") from error
        payload = args.model_dump(mode="json") | {"updates": agent.updates}
        text = f"Delegating {args.name!r} to agent {args.agent}."
        return WorkflowCommand(
            kind="spawn_subtask",
            call_id=call.call_id,
            payload=payload,
            result=ToolResult(call_id=call.call_id, name=call.name, text=text),
        )


class ReplySubtaskTool(Tool):
    """`reply_subtask`: answer the open question of a sub-task waiting for input."""

    def __init__(self) -> None:
        self.ref = tool_ref("reply_subtask")
        self.definition = ToolDefinition(
            name="reply_subtask",
            description="Answer the question of a sub-task that is waiting for input.",
            input_schema=ReplySubtaskArgs.model_json_schema(),
            idempotency=Idempotency.IDEMPOTENT,
            execution=Execution.INTRINSIC,
        )

    async def invoke(self, call: ToolCall) -> WorkflowCommand:
        """The `reply_subtask` command (the workflow checks the sub-task waits)."""
        args = parse_arguments(ReplySubtaskArgs, call)
        text = f"Reply sent to sub-task {args.subtask_id}."
        return WorkflowCommand(
            kind="reply_subtask",
            call_id=call.call_id,
            payload=args.model_dump(mode="json"),
            result=ToolResult(call_id=call.call_id, name=call.name, text=text),
        )


def delegation_tools(lookup: AgentLookup) -> tuple[Tool, ...]:
    """Both delegation intrinsics, looking agents up with `lookup`."""
    return (SpawnSubtaskTool(lookup), ReplySubtaskTool())

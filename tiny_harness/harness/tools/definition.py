"""What a tool is to the loop: its definition, a call the model makes, and what comes back.

A tool either returns a `ToolResult` (the text the model reads next turn) or, for an
intrinsic, a `WorkflowCommand` that the workflow applies deterministically (attach a plan,
finish a step, wait for a participant's reply). Nothing here does I/O.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, JsonValue

type JsonObject = dict[str, JsonValue]


class Idempotency(StrEnum):
    """Whether running a tool twice with the same arguments is safe to retry."""

    IDEMPOTENT = "idempotent"
    NOT_IDEMPOTENT = "not_idempotent"


class Execution(StrEnum):
    """Where a tool runs: as an activity with side effects, or as a workflow command."""

    ACTIVITY = "activity"
    INTRINSIC = "intrinsic"


class ToolDefinition(BaseModel, frozen=True):
    """The model-facing description of one tool."""

    name: str
    description: str
    input_schema: JsonObject
    output_schema: JsonObject | None = None
    idempotency: Idempotency = Idempotency.NOT_IDEMPOTENT
    execution: Execution = Execution.ACTIVITY


class ToolCall(BaseModel, frozen=True):
    """One call the model asked for, as recorded in its response."""

    call_id: str
    name: str
    arguments: JsonObject


class ToolResult(BaseModel, frozen=True):
    """What the model reads about one call on its next turn.

    Tool output is untrusted data: the context renders it as data, never as instructions.
    """

    call_id: str
    name: str
    text: str
    is_error: bool = False


type CommandKind = Literal[
    "attach_plan",
    "complete_step",
    "wait_for_reply",
    "skill_loaded",
    "skill_unloaded",
    "spawn_subtask",
    "reply_subtask",
    "create_participant_task",
    "set_participant_role",
    "emit_ui",
]


class WorkflowCommand(BaseModel, frozen=True):
    """A deterministic state change an intrinsic asks the workflow to apply.

    `result` is what the model reads next turn if the workflow applies the command as
    asked; the workflow may replace it with an error result when the command does not fit
    the task's state (an unknown step id, say).
    """

    kind: CommandKind
    call_id: str
    payload: JsonObject
    result: ToolResult

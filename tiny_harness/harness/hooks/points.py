"""Hook points: the operations the harness exposes to hooks, and the phase of each.

A point is written `<operation>.<phase>`, for example `tool.invoked.pre`. Operations may
contain dots themselves, so the phase is always the last dotted segment. This module only
names points; which context travels at a point is `contexts.py`'s business.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, model_validator

from tiny_harness.errors import UnknownHookPointError


class Operation(StrEnum):
    """Every operation a hook can attach to (the design's catalogue, verbatim)."""

    REQUEST_RECEIVED = "request.received"
    TASK_CREATED = "task.created"
    TASK_STATE_CHANGED = "task.state_changed"
    CONTEXT_CREATED = "context.created"
    LLM_INVOKED = "llm.invoked"
    TOOL_CALLS_EXTRACTED = "tool_calls.extracted"
    TOOL_INVOKED = "tool.invoked"
    SYSTEM_ONE_INVOKED = "system_one.invoked"
    PLAN_CREATED = "plan.created"
    STEP_STARTED = "step.started"
    STEP_FINISHED = "step.finished"
    SUBTASK_SPAWNED = "subtask.spawned"
    HELP_REQUESTED = "help.requested"
    HELP_DECIDED = "help.decided"
    CHANNEL_SENT = "channel.sent"
    CHANNEL_RECEIVED = "channel.received"
    COMPACTION_TRIGGER = "compaction.trigger"
    COMPACTION_KEEP = "compaction.keep"
    COMPACTION_SUMMARISE = "compaction.summarise"
    PERSISTENCE_READ = "persistence.read"
    PERSISTENCE_WRITE = "persistence.write"
    ACTIVITY_FAILED = "activity.failed"
    ACTIVITY_RETRIED = "activity.retried"
    HEARTBEAT_TICK = "heartbeat.tick"
    SHUTDOWN = "shutdown"
    SKILL_LOADED = "skill.loaded"
    SKILL_UNLOADED = "skill.unloaded"
    AGENT_INVOKED = "agent.invoked"


class Phase(StrEnum):
    """When an executor runs relative to the operation.

    `pre` may rewrite or veto the operation's input, `post` its output; `in` replaces the
    operation's body (an executor that sets the context's `result` stands in for it).
    """

    PRE = "pre"
    IN = "in"
    POST = "post"


class HookPoint(BaseModel, frozen=True):
    """One operation in one phase; hashable, printed and parsed as `tool.invoked.pre`.

    Validation also accepts the printed form, so configuration can list points as strings.
    """

    operation: Operation
    phase: Phase

    def __init__(self, operation: Operation, phase: Phase) -> None:
        super().__init__(operation=operation, phase=phase)

    @classmethod
    def parse(cls, text: str) -> HookPoint:
        """The point `text` names; raises `UnknownHookPointError` for an unknown operation
        or phase (or text with no phase at all)."""
        operation, dot, phase = text.rpartition(".")
        if not dot:
            raise UnknownHookPointError(
                f"{text!r} is not a hook point: expected <operation>.<phase>"
            )
        if phase not in Phase:
            raise UnknownHookPointError(
                f"{text!r} has no phase {phase!r}; phases are {', '.join(Phase)}"
            )
        if operation not in Operation:
            raise UnknownHookPointError(f"{text!r} names no known operation {operation!r}")
        return cls(Operation(operation), Phase(phase))

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                point = cls.parse(value)
            except UnknownHookPointError as error:
                # A ValueError becomes a pydantic ValidationError, like any bad field.
                raise ValueError(error.message) from error
            return {"operation": point.operation, "phase": point.phase}
        return value

    def __str__(self) -> str:
        return f"{self.operation}.{self.phase}"

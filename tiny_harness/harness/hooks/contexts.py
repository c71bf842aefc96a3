"""Hook contexts: the typed, serialisable value that travels through a hook chain.

One context class per hook point that exists in the code today; `CONTEXTS` is the table
from point to class and `context_type` reads it. A context carries references and plain
data, never live objects, because it crosses the wire to remote executors
(`model_dump(mode="json")` there, `model_validate` back). Contexts are frozen: an executor
that wants a change returns a new one (`ctx.model_copy(update=...)`).

A `pre` context holds the operation's input, its `Post` twin adds the output, and an `in`
context (a `BodyContext`) adds a `result` that is None until an executor or the default
body produces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from types import MappingProxyType
from typing import Literal

from a2a.types import Message, TaskState
from pydantic import BaseModel, ConfigDict, Field, field_validator

from tiny_harness.errors import UnknownHookPointError
from tiny_harness.harness.channels.help import HelpDecision, HelpNeed
from tiny_harness.harness.context.window import ContextBudget, ContextWindow
from tiny_harness.harness.entities import EntityRef
from tiny_harness.harness.hooks.points import HookPoint, Operation, Phase
from tiny_harness.harness.models.llm import InputItem, LLMModelInfo, LLMRequest, LLMResponse
from tiny_harness.harness.persistence.records import Record
from tiny_harness.harness.persistence.store import TaskRecord
from tiny_harness.harness.protocol.proto_fields import ProtoJson
from tiny_harness.harness.runtime.monitor import MonitorSnapshot
from tiny_harness.harness.tasks.extension import TaskExtensionData
from tiny_harness.harness.tasks.plan import Plan, Step
from tiny_harness.harness.tools.definition import ToolCall, ToolResult


class HookContext(BaseModel):
    """Base of every context. `task_id` and `correlation_id` identify the operation; an
    executor must not change them (the manager refuses a replacement that does)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    correlation_id: str
    entity: EntityRef | None = None
    """The entity the operation acts on, when there is one."""
    attempt: int = Field(default=1, ge=1)


class BodyContext(HookContext):
    """Base of the contexts of `in` points. Subclasses narrow `result` to the body's output."""

    result: object | None = None


class RequestReceivedPre(HookContext):
    """An inbound A2A message, before intake; an executor may rewrite or abort it."""

    message: ProtoJson[Message]


class TaskStateChangedPre(HookContext):
    """A task about to move between two states (`a2a.types.TaskState` values)."""

    before: int
    after: int

    @field_validator("before", "after")
    @classmethod
    def _known_state(cls, value: int) -> int:
        if value not in TaskState.values():
            raise ValueError(f"{value} is not an A2A TaskState value")
        return value


class LLMInvokedPre(HookContext):
    """One model turn, before the call."""

    request: LLMRequest


class LLMInvokedPost(LLMInvokedPre):
    """One model turn, after the call."""

    response: LLMResponse


class ToolCallsExtractedPre(HookContext):
    """The tool calls read from a model response, before any of them runs."""

    response: LLMResponse
    calls: tuple[ToolCall, ...]


class ToolInvokedPre(HookContext):
    """One tool call, before it runs; abort to veto this call alone."""

    call: ToolCall


class ToolInvokedPost(ToolInvokedPre):
    """One tool call and its result."""

    result: ToolResult


class PlanCreatedIn(BodyContext):
    """Making a plan from steps; `result` is the plan."""

    steps: tuple[Step, ...]
    result: Plan | None = None


class StepStartedPre(HookContext):
    """A plan step about to start."""

    step: Step


class StepFinishedPre(HookContext):
    """A plan step about to be marked done with `output`."""

    step: Step
    output: str | None


class PersistenceWriteIn(BodyContext):
    """Writing one record to the store (the task's own, or a plan, state, inbox-audit or
    compaction record); `result` is "stored" once written."""

    record: TaskRecord | Record
    result: Literal["stored"] | None = None


class CompactionTriggerIn(BodyContext):
    """Whether this turn's window must be compacted before the model sees it; `result` is
    the decision (default: the estimate is above the budget's compaction threshold)."""

    window: ContextWindow
    model: LLMModelInfo
    budget: ContextBudget
    result: bool | None = None


class CompactionKeepIn(BodyContext):
    """Which conversation items to fold into a summary; `result` is those items, in
    conversation order (default: all but the newest few, never parting a call from its
    result). The never-compact sections are rebuilt every turn and cannot be folded."""

    window: ContextWindow
    conversation: tuple[InputItem, ...]
    result: tuple[InputItem, ...] | None = None


class CompactionSummariseIn(BodyContext):
    """Summarising the items being folded; `result` is the summary text (default: the
    task's model, asked with `core.compaction.SUMMARY_INSTRUCTIONS`)."""

    window: ContextWindow
    removed: tuple[InputItem, ...]
    result: str | None = None


class HelpDecidedIn(BodyContext):
    """Deciding how to get help the model asked for without naming whom; `result` is the
    decision (default: the task's model, asked for structured output). `refused` says why
    the previous decision was refused, on the one second try."""

    need: HelpNeed
    task: TaskExtensionData
    refused: str | None = None
    result: HelpDecision | None = None


class HeartbeatTickPre(HookContext):
    """One heartbeat tick, with what it saw."""

    snapshot: MonitorSnapshot


class ActivityFailedPre(HookContext):
    """An activity attempt failed with `error`; `attempt` is the attempt that failed."""

    activity: str
    error: str


class ActivityRetriedPre(HookContext):
    """An activity about to be retried after `next_delay`; an executor may change it."""

    activity: str
    next_delay: timedelta


class ShutdownPre(HookContext):
    """The process is about to shut down."""

    reason: str


class SkillLoadedPre(HookContext):
    """A skill about to be loaded into the task's context."""

    skill: EntityRef


class SkillUnloadedPre(HookContext):
    """A skill about to be removed from the task's context."""

    skill: EntityRef


CONTEXTS: Mapping[HookPoint, type[HookContext]] = MappingProxyType(
    {
        HookPoint(Operation.REQUEST_RECEIVED, Phase.PRE): RequestReceivedPre,
        HookPoint(Operation.TASK_STATE_CHANGED, Phase.PRE): TaskStateChangedPre,
        HookPoint(Operation.LLM_INVOKED, Phase.PRE): LLMInvokedPre,
        HookPoint(Operation.LLM_INVOKED, Phase.POST): LLMInvokedPost,
        HookPoint(Operation.TOOL_CALLS_EXTRACTED, Phase.PRE): ToolCallsExtractedPre,
        HookPoint(Operation.TOOL_INVOKED, Phase.PRE): ToolInvokedPre,
        HookPoint(Operation.TOOL_INVOKED, Phase.POST): ToolInvokedPost,
        HookPoint(Operation.PLAN_CREATED, Phase.IN): PlanCreatedIn,
        HookPoint(Operation.STEP_STARTED, Phase.PRE): StepStartedPre,
        HookPoint(Operation.STEP_FINISHED, Phase.PRE): StepFinishedPre,
        HookPoint(Operation.PERSISTENCE_WRITE, Phase.IN): PersistenceWriteIn,
        HookPoint(Operation.COMPACTION_TRIGGER, Phase.IN): CompactionTriggerIn,
        HookPoint(Operation.COMPACTION_KEEP, Phase.IN): CompactionKeepIn,
        HookPoint(Operation.COMPACTION_SUMMARISE, Phase.IN): CompactionSummariseIn,
        HookPoint(Operation.HELP_DECIDED, Phase.IN): HelpDecidedIn,
        HookPoint(Operation.HEARTBEAT_TICK, Phase.PRE): HeartbeatTickPre,
        HookPoint(Operation.ACTIVITY_FAILED, Phase.PRE): ActivityFailedPre,
        HookPoint(Operation.ACTIVITY_RETRIED, Phase.PRE): ActivityRetriedPre,
        HookPoint(Operation.SHUTDOWN, Phase.PRE): ShutdownPre,
        HookPoint(Operation.SKILL_LOADED, Phase.PRE): SkillLoadedPre,
        HookPoint(Operation.SKILL_UNLOADED, Phase.PRE): SkillUnloadedPre,
    }
)
"""The context class of every point that exists in the code today."""


def context_type(point: HookPoint) -> type[HookContext]:
    """The context class that travels at `point`; raises `UnknownHookPointError` for a point
    no context is defined for yet."""
    try:
        return CONTEXTS[point]
    except KeyError:
        raise UnknownHookPointError(f"no hook context is defined for {point} yet") from None

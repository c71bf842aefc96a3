"""Sample contexts and executors for the hook tests; `load_executor` imports from here too."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from a2a.types import Message, Part, Role, Task, TaskState

from tiny_harness.harness.channels.help import HelpDecision, HelpNeed, HelpRoute
from tiny_harness.harness.context.window import ContextBudget, ContextWindowManager
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.hooks import (
    ActivityFailedPre,
    ActivityRetriedPre,
    CompactionKeepIn,
    CompactionSummariseIn,
    CompactionTriggerIn,
    HeartbeatTickPre,
    HelpDecidedIn,
    HookContext,
    HookPoint,
    LLMInvokedPost,
    LLMInvokedPre,
    PersistenceWriteIn,
    PlanCreatedIn,
    RequestReceivedPre,
    ShutdownPre,
    SkillLoadedPre,
    SkillUnloadedPre,
    StepFinishedPre,
    StepStartedPre,
    TaskStateChangedPre,
    ToolCallsExtractedPre,
    ToolInvokedPost,
    ToolInvokedPre,
)
from tiny_harness.harness.models.llm import (
    AssistantItem,
    LLMModelInfo,
    LLMRequest,
    LLMResponse,
    UserItem,
)
from tiny_harness.harness.persistence.records import PlanRecord
from tiny_harness.harness.persistence.store import TaskRecord
from tiny_harness.harness.runtime.monitor import MonitorSnapshot, OpenTask
from tiny_harness.harness.tasks.extension import TaskExtensionData
from tiny_harness.harness.tasks.plan import Plan, Step
from tiny_harness.harness.tools.definition import JsonObject, ToolCall, ToolResult

TOOL_PRE = HookPoint.parse("tool.invoked.pre")
PLAN_IN = HookPoint.parse("plan.created.in")

IDS = {"task_id": "task-1", "correlation_id": "corr-1"}


def tool_pre(name: str = "search", arguments: JsonObject | None = None) -> ToolInvokedPre:
    call = ToolCall(call_id="call-1", name=name, arguments=arguments or {"q": "weather"})
    return ToolInvokedPre(**IDS, call=call)


def steps() -> tuple[Step, ...]:
    return (Step(id="s1", name="look up"), Step(id="s2", name="answer", depends_on=("s1",)))


def plan_in() -> PlanCreatedIn:
    return PlanCreatedIn(**IDS, steps=steps())


def every_context() -> list[HookContext]:
    """One instance of every context class."""
    call = ToolCall(call_id="call-1", name="search", arguments={"q": "weather", "n": 3})
    request = LLMRequest(instructions="be brief", input=(UserItem(message_id="m1", text="hi"),))
    response = LLMResponse(
        output_text="", tool_calls=(call,), model="scripted", finish="tool_calls"
    )
    message = Message(message_id="m1", role=Role.ROLE_USER, parts=[Part(text="hello")])
    record = TaskRecord(
        task=Task(id="task-1", context_id="ctx-1"),
        version=3,
        updated_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    )
    skill = EntityRef(kind=EntityKind.SKILL, id="pdf", version="1.0.0")
    conversation = (UserItem(message_id="m1", text="hi"), AssistantItem(text="Hello."))
    window = ContextWindowManager().assemble(system_prompt="be brief", conversation=conversation)
    model = LLMModelInfo(provider="scripted", model="demo", context_window=128_000)
    return [
        RequestReceivedPre(**IDS, message=message),
        TaskStateChangedPre(
            **IDS,
            before=TaskState.TASK_STATE_SUBMITTED,
            after=TaskState.TASK_STATE_WORKING,
        ),
        LLMInvokedPre(**IDS, request=request, attempt=2),
        LLMInvokedPost(**IDS, request=request, response=response),
        ToolCallsExtractedPre(**IDS, response=response, calls=(call,)),
        ToolInvokedPre(**IDS, call=call, entity=EntityRef(kind=EntityKind.TOOL, id="search")),
        ToolInvokedPost(**IDS, call=call, result=ToolResult(call_id="call-1", name="s", text="x")),
        PlanCreatedIn(**IDS, steps=steps(), result=Plan(steps=steps())),
        StepStartedPre(**IDS, step=steps()[0]),
        StepFinishedPre(**IDS, step=steps()[0], output="sunny"),
        PersistenceWriteIn(**IDS, record=record, result="stored"),
        ActivityFailedPre(**IDS, activity="invoke_llm", error="HTTP 503", attempt=2),
        ActivityRetriedPre(**IDS, activity="invoke_llm", next_delay=timedelta(seconds=1.5)),
        ShutdownPre(**IDS, reason="SIGTERM"),
        SkillLoadedPre(**IDS, skill=skill),
        SkillUnloadedPre(**IDS, skill=skill),
        CompactionTriggerIn(**IDS, window=window, model=model, budget=ContextBudget()),
        CompactionKeepIn(**IDS, window=window, conversation=conversation, result=conversation[:1]),
        CompactionSummariseIn(**IDS, window=window, removed=conversation[:1], result="Asked."),
        HelpDecidedIn(
            **IDS,
            need=HelpNeed(question="Which size?", options=("S", "M")),
            task=TaskExtensionData(name="Order"),
            refused="carol is not a participant",
            result=HelpDecision(route=HelpRoute.ASK, participant_id="bob"),
        ),
        HeartbeatTickPre(
            **IDS,
            snapshot=MonitorSnapshot(
                taken_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
                open_tasks=1,
                listed=(OpenTask(task_id="task-1"),),
            ),
        ),
        PersistenceWriteIn(
            **IDS,
            record=PlanRecord(
                task_id="task-1",
                context_id="ctx-1",
                revision=1,
                recorded_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
                plan=Plan(steps=steps()),
            ),
        ),
    ]


type Action = Callable[[HookContext], HookContext | None]


@dataclass
class ScriptedExecutor:
    """An executor that records what it saw (in a shared trail) and answers with `action`."""

    name: str
    priority: int
    points: frozenset[HookPoint]
    action: Action = lambda _ctx: None
    trail: list[str] = field(default_factory=list)
    seen: list[HookContext] = field(default_factory=list)

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        self.trail.append(self.name)
        self.seen.append(ctx)
        return self.action(ctx)


# Targets of load_executor tests.


class PassingExecutor:
    name = "sample.pass"
    priority = 10
    points = frozenset({TOOL_PRE})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        return None


class Holder:
    hook = PassingExecutor()


instance = PassingExecutor()


def factory() -> PassingExecutor:
    return PassingExecutor()


def failing_factory() -> PassingExecutor:
    raise RuntimeError("the factory is broken")


def junk_factory() -> object:
    return "not an executor"


class SyncHandle:
    name = "sample.sync"
    priority = 10
    points = frozenset({TOOL_PRE})

    def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        return None


class StringPoints:
    name = "sample.strings"
    priority = 10
    points = frozenset({"tool.invoked.pre"})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        return None


not_an_executor = 42

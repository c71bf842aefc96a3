"""The intrinsic tools: what the model calls to plan, report progress and ask for help.

Intrinsics have no side effects of their own. `invoke_intrinsic` validates a call's
arguments and turns it into a `WorkflowCommand`; the workflow applies the command to the
task's state. A call the model gets wrong comes back as a typed error the loop shows the
model, never as a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from pydantic import BaseModel, Field, JsonValue, ValidationError

from tiny_harness.errors import PlanError, ToolArgumentError, ToolNotFoundError
from tiny_harness.harness.a2ui.messages import ServerMessage
from tiny_harness.harness.tasks.extension import ParticipantRole
from tiny_harness.harness.tasks.plan import Plan, Step
from tiny_harness.harness.tools.definition import (
    Execution,
    Idempotency,
    ToolCall,
    ToolDefinition,
    ToolResult,
    WorkflowCommand,
)
from tiny_harness.harness.tools.tool import Tool, tool_ref


class PlanStepArgs(BaseModel, extra="forbid", frozen=True):
    """One step as the model proposes it."""

    id: str | None = Field(default=None, description="Short unique id; s1, s2, … if omitted.")
    name: str = Field(min_length=1)
    description: str = ""
    depends_on: tuple[str, ...] = ()


class CreatePlanArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `create_plan`."""

    steps: tuple[PlanStepArgs, ...] = Field(min_length=1)


class CompleteStepArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `complete_step`."""

    step_id: str = Field(min_length=1)
    output: str = ""


class AskParticipantArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `ask_participant`."""

    question: str = Field(min_length=1)
    options: tuple[str, ...] = ()
    participant_id: str | None = Field(
        default=None,
        description="Who to ask; if omitted, the harness decides who (or hands the work over).",
    )


class CreateTaskForParticipantArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `create_task_for_participant`."""

    participant_id: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=200)
    goal: str = Field(min_length=1, max_length=10_000)
    description: str = Field(default="", max_length=10_000)
    acceptance_criteria: tuple[str, ...] = Field(default=(), max_length=50)


class EmitUiArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `emit_ui`."""

    text: str = Field(default="", max_length=10_000)
    messages: tuple[dict[str, JsonValue], ...] = Field(
        min_length=1,
        max_length=20,
        description="A2UI v0.9.1 server messages: createSurface, updateComponents, "
        "updateDataModel or deleteSurface, one per object.",
    )


class SetParticipantRoleArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `set_participant_role`."""

    participant_id: str = Field(min_length=1, max_length=200)
    role: ParticipantRole


def _step_ids(args: CreatePlanArgs) -> list[str]:
    """The model's ids, and s1, s2, … for steps without one, skipping ids already taken."""
    taken = {s.id for s in args.steps if s.id}
    counter = 0
    ids: list[str] = []
    for step in args.steps:
        if step.id:
            ids.append(step.id)
            continue
        counter += 1
        while f"s{counter}" in taken:
            counter += 1
        ids.append(f"s{counter}")
    return ids


def _create_plan(call: ToolCall, args: CreatePlanArgs) -> WorkflowCommand:
    steps = tuple(
        Step(id=step_id, name=s.name, description=s.description, depends_on=s.depends_on)
        for step_id, s in zip(_step_ids(args), args.steps, strict=True)
    )
    try:
        plan = Plan(steps=steps)
    except PlanError as error:
        raise ToolArgumentError(f"create_plan: {error.message}") from error
    text = f"Plan created with {len(steps)} steps:\n{plan.render()}"
    return WorkflowCommand(
        kind="attach_plan",
        call_id=call.call_id,
        payload={"plan": plan.model_dump(mode="json")},
        result=ToolResult(call_id=call.call_id, name=call.name, text=text),
    )


def _complete_step(call: ToolCall, args: CompleteStepArgs) -> WorkflowCommand:
    return WorkflowCommand(
        kind="complete_step",
        call_id=call.call_id,
        payload=args.model_dump(mode="json"),
        result=ToolResult(call_id=call.call_id, name=call.name, text=f"Step {args.step_id} done."),
    )


def _ask_participant(call: ToolCall, args: AskParticipantArgs) -> WorkflowCommand:
    return WorkflowCommand(
        kind="wait_for_reply",
        call_id=call.call_id,
        payload=args.model_dump(mode="json"),
        result=ToolResult(call_id=call.call_id, name=call.name, text="Waiting for the reply."),
    )


def _create_task_for_participant(
    call: ToolCall, args: CreateTaskForParticipantArgs
) -> WorkflowCommand:
    return WorkflowCommand(
        kind="create_participant_task",
        call_id=call.call_id,
        payload=args.model_dump(mode="json"),
        result=ToolResult(call_id=call.call_id, name=call.name, text="Task created."),
    )


def _set_participant_role(call: ToolCall, args: SetParticipantRoleArgs) -> WorkflowCommand:
    return WorkflowCommand(
        kind="set_participant_role",
        call_id=call.call_id,
        payload=args.model_dump(mode="json"),
        result=ToolResult(
            call_id=call.call_id,
            name=call.name,
            text=f"{args.participant_id} is now {args.role.value} of this task.",
        ),
    )


def _emit_ui(call: ToolCall, args: EmitUiArgs) -> WorkflowCommand:
    try:
        shown = [ServerMessage.model_validate(m) for m in args.messages]
    except ValidationError as error:
        raise ToolArgumentError(f"{call.name}: messages: {_summarise(error)}") from error
    surfaces = sorted({m.surface_id for m in shown})
    return WorkflowCommand(
        kind="emit_ui",
        call_id=call.call_id,
        payload={
            "text": args.text,
            "messages": [m.model_dump(mode="json", exclude_none=True) for m in shown],
        },
        result=ToolResult(
            call_id=call.call_id, name=call.name, text=f"Shown on {', '.join(surfaces)}."
        ),
    )


class IntrinsicTool[A: BaseModel](Tool):
    """An intrinsic as a tool entity: validates its arguments and returns a command."""

    def __init__(
        self,
        name: str,
        description: str,
        args: type[A],
        build: Callable[[ToolCall, A], WorkflowCommand],
    ) -> None:
        self.ref = tool_ref(name)
        self.definition = ToolDefinition(
            name=name,
            description=description,
            input_schema=args.model_json_schema(),
            idempotency=Idempotency.IDEMPOTENT,
            execution=Execution.INTRINSIC,
        )
        self._args = args
        self._build = build

    def command(self, call: ToolCall) -> WorkflowCommand:
        """Validate `call` and build its command; raises `ToolArgumentError`."""
        return self._build(call, parse_arguments(self._args, call))

    async def invoke(self, call: ToolCall) -> WorkflowCommand:
        """The command for `call`."""
        return self.command(call)


type AnyIntrinsic = (
    IntrinsicTool[CreatePlanArgs]
    | IntrinsicTool[CompleteStepArgs]
    | IntrinsicTool[AskParticipantArgs]
    | IntrinsicTool[CreateTaskForParticipantArgs]
    | IntrinsicTool[SetParticipantRoleArgs]
    | IntrinsicTool[EmitUiArgs]
)

INTRINSIC_TOOLS: Final[tuple[AnyIntrinsic, ...]] = (
    IntrinsicTool(
        "create_plan",
        "Break the task into steps. Call once, before starting the work.",
        CreatePlanArgs,
        _create_plan,
    ),
    IntrinsicTool(
        "complete_step",
        "Mark a plan step done and record what it produced.",
        CompleteStepArgs,
        _complete_step,
    ),
    IntrinsicTool(
        "ask_participant",
        "Ask a participant of the task a question and wait for the answer.",
        AskParticipantArgs,
        _ask_participant,
    ),
    IntrinsicTool(
        "create_task_for_participant",
        "Hand a piece of work to a participant of the task as a task of their own; you "
        "are told when they finish it, and this task waits for it before it completes.",
        CreateTaskForParticipantArgs,
        _create_task_for_participant,
    ),
    IntrinsicTool(
        "set_participant_role",
        "Give a participant a role on this task (assignee, reporter, watcher or admin). "
        "Only done when an admin of the task asked for it.",
        SetParticipantRoleArgs,
        _set_participant_role,
    ),
    IntrinsicTool(
        "emit_ui",
        "Show the user an A2UI surface (buttons, choices, forms); what they do on it comes "
        "back to you as a message.",
        EmitUiArgs,
        _emit_ui,
    ),
)
"""The intrinsic tools of the loop, registered by the built-in plugin."""

_BY_NAME: Final[Mapping[str, AnyIntrinsic]] = {t.definition.name: t for t in INTRINSIC_TOOLS}


def intrinsic_definitions() -> tuple[ToolDefinition, ...]:
    """The definitions of every intrinsic tool, in a stable order."""
    return tuple(tool.definition for tool in INTRINSIC_TOOLS)


def invoke_intrinsic(call: ToolCall) -> WorkflowCommand:
    """Validate `call` and turn it into a command.

    Raises `ToolNotFoundError` for a name that is not an intrinsic and `ToolArgumentError`
    for arguments that fail the tool's schema.
    """
    tool = _BY_NAME.get(call.name)
    if tool is None:
        raise ToolNotFoundError(f"no tool named {call.name!r}")
    return tool.command(call)


def parse_arguments[M: BaseModel](model: type[M], call: ToolCall) -> M:
    """`call`'s arguments as `model`; `ToolArgumentError` naming each problem otherwise.
    Every intrinsic (plans, skills, delegation) reads its arguments through here."""
    try:
        return model.model_validate(call.arguments)
    except ValidationError as error:
        raise ToolArgumentError(f"{call.name}: {_summarise(error)}") from error


def _summarise(error: ValidationError) -> str:
    errors = error.errors()
    locs = [tuple(e["loc"]) for e in errors]
    parts = [
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
        for e, loc in zip(errors, locs, strict=True)
        # A container error that only repeats a failure inside it says nothing new.
        if not any(other != loc and other[: len(loc)] == loc for other in locs)
    ]
    return "; ".join(parts)

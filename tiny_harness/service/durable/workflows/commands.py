"""`CommandApplier`: what an intrinsic tool's command changes in its task.

Workflow-side code, deterministic. A command changes the task's state (plan, steps, the
open question, participants' roles, loaded skills, what it drew): the applier reads the
loop's state and the task, and returns the change (`CommandOutcome`) for the workflow to
apply, with the result the model reads next turn (None when the result comes later: the
reply to a question) and what the task's readers are told. It tells the hooks and the
milestones of a finished step, a loaded skill and a new plan itself. A command that does
not fit the task's state (an unknown step, a second question, a role change nobody with
the right asked for) becomes an error result, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from a2a.types import Part, Task
    from pydantic import TypeAdapter

    from tiny_harness.errors import A2uiMessageError, PlanError, RoleChangeError
    from tiny_harness.harness.a2ui.messages import ServerMessage, ui_part
    from tiny_harness.harness.a2ui.surfaces import draw
    from tiny_harness.harness.hooks import Operation
    from tiny_harness.harness.tasks.extension import (
        ParticipantRole,
        TaskExtensionData,
        participant_ids,
    )
    from tiny_harness.harness.tasks.participants import not_on_task, with_role
    from tiny_harness.harness.tasks.plan import PLAN_TEXT_PREFIX, Plan
    from tiny_harness.harness.tools.definition import ToolResult, WorkflowCommand
    from tiny_harness.service.durable.payloads import LoadedSkill, LoopState, PendingQuestion
    from tiny_harness.service.durable.workflows.dispatch import HookDispatcher
    from tiny_harness.service.durable.workflows.milestones import Milestones


@dataclass(frozen=True)
class Said:
    """A progress message for the task's readers: its text, the plan it shows (a plan
    change), and parts after its own (what was drawn)."""

    text: str
    plan: Plan | None = None
    extra: tuple[Part, ...] = ()


@dataclass(frozen=True)
class CommandOutcome:
    """What a command changed, for the workflow to apply: the loop's state as it is now
    (`loop`, the same object when nothing changed), the task's extension data when it
    changed, what the readers are told, and the result the model reads (None: later)."""

    result: ToolResult | None
    loop: LoopState
    ext: TaskExtensionData | None = None
    said: Said | None = None


class CommandApplier:
    """Decides what commands change in one run's state."""

    def __init__(self, hooks: HookDispatcher, milestones: Milestones) -> None:
        self._hooks = hooks
        self._milestones = milestones

    def apply(self, command: WorkflowCommand, loop: LoopState, task: Task) -> CommandOutcome:
        """What `command` changes in `loop` and `task`, which stay as they are."""
        try:
            if command.kind == "attach_plan":
                return self._attach_plan(command, loop)
            if command.kind == "complete_step":
                return self._complete_step(command, loop)
            if command.kind == "wait_for_reply":
                return _ask(command, loop, task)
            if command.kind == "set_participant_role":
                return _set_role(command, loop, task)
            if command.kind == "emit_ui":
                return _show(command, loop)
            return self._change_skills(command, loop)
        except RoleChangeError as error:
            # A denial, like the access policy's: recorded, and told to the model.
            workflow.logger.warning("task %s: %s", task.id, error.message)
            return CommandOutcome(error_result(command, f"{error.code}: {error.message}"), loop)
        except (PlanError, A2uiMessageError) as error:
            return CommandOutcome(error_result(command, f"{error.code}: {error.message}"), loop)

    def _attach_plan(self, command: WorkflowCommand, loop: LoopState) -> CommandOutcome:
        plan = Plan.model_validate(command.payload["plan"])
        steps = len(plan.steps)
        self._milestones.mark(
            Operation.PLAN_CREATED,
            command.call_id,
            outcome="ok",
            detail=f"{steps} steps",
            attributes={"tiny_harness.plan.steps": steps},
        )
        # The plan as text for clients that read text only; renderers that draw the plan
        # part know the prefix and leave the text out.
        said = Said(PLAN_TEXT_PREFIX + plan.render(), plan=plan)
        return CommandOutcome(command.result, _planned(loop, plan), said=said)

    def _complete_step(self, command: WorkflowCommand, loop: LoopState) -> CommandOutcome:
        step_id, output = str(command.payload["step_id"]), str(command.payload["output"])
        if loop.plan is None:
            raise PlanError("there is no plan yet; call create_plan first")
        plan = loop.plan.complete(step_id, output)
        self._hooks.step_finished(plan.step(step_id), output)
        # The step's place, not its id: the model chose the id, and records hold no content.
        place = next(n for n, step in enumerate(plan.steps, 1) if step.id == step_id)
        self._milestones.mark(
            Operation.STEP_FINISHED,
            command.call_id,
            outcome="done",
            detail=f"step {place} of {len(plan.steps)}",
            attributes={
                "tiny_harness.step.index": place,
                "tiny_harness.plan.steps": len(plan.steps),
            },
        )
        said = Said(f"Step {step_id} done: {output}".rstrip(": "), plan=plan)
        return CommandOutcome(command.result, _planned(loop, plan), said=said)

    def _change_skills(self, command: WorkflowCommand, loop: LoopState) -> CommandOutcome:
        name = str(command.payload["name"])
        kept = [s for s in loop.loaded_skills if s.name != name]
        loaded = command.kind == "skill_loaded"
        if loaded:
            fields = {k: command.payload[k] for k in ("name", "body", "tools")}
            kept.append(LoadedSkill.model_validate(fields))
        self._hooks.skill_changed(name, loaded=loaded)
        return CommandOutcome(
            command.result, loop.model_copy(update={"loaded_skills": tuple(kept)})
        )


def _planned(loop: LoopState, plan: Plan) -> LoopState:
    """`loop` with `plan`, one revision on."""
    return loop.model_copy(update={"plan": plan, "plan_revision": loop.plan_revision + 1})


def _ask(command: WorkflowCommand, loop: LoopState, task: Task) -> CommandOutcome:
    if loop.pending_question is not None:
        text = "one question at a time: wait for the first reply"
        return CommandOutcome(error_result(command, text), loop)
    options = command.payload.get("options") or []
    addressee = command.payload.get("participant_id")
    refusal = not_on_task(addressee, participant_ids(task)) if isinstance(addressee, str) else None
    if refusal is not None:
        return CommandOutcome(error_result(command, refusal), loop)
    question = PendingQuestion(
        call_id=command.call_id,
        question=str(command.payload["question"]),
        options=tuple(str(o) for o in options) if isinstance(options, list) else (),
        participant_id=addressee if isinstance(addressee, str) else None,
    )
    return CommandOutcome(None, loop.model_copy(update={"pending_question": question}))


def _set_role(command: WorkflowCommand, loop: LoopState, task: Task) -> CommandOutcome:
    """Only an admin's request changes a role: the newest message the model acts on must
    come from one, so text from anyone else (a tool result, a channel post) cannot."""
    participant_id = str(command.payload["participant_id"])
    role = ParticipantRole(str(command.payload["role"]))
    ext = with_role(task, participant_id, role, by=loop.principal)
    said = Said(f"{participant_id} is now {role.value} of this task.")
    return CommandOutcome(command.result, loop, ext=ext, said=said)


def _show(command: WorkflowCommand, loop: LoopState) -> CommandOutcome:
    """Record what is drawn (all or nothing), then send it to the task's renderers."""
    shown = _SHOWN.validate_python(command.payload["messages"])
    surfaces = {k: list(v) for k, v in loop.surfaces.items()}
    for message in shown:
        draw(surfaces, message)
    said = Said(str(command.payload["text"]), extra=tuple(ui_part(m) for m in shown))
    return CommandOutcome(command.result, loop.model_copy(update={"surfaces": surfaces}), said=said)


_SHOWN: TypeAdapter[list[ServerMessage]] = TypeAdapter(list[ServerMessage])
"""An `emit_ui` command's messages (checked by the intrinsic) as models again."""


def error_result(command: WorkflowCommand, text: str) -> ToolResult:
    """An error result for `command`'s call."""
    return ToolResult(call_id=command.call_id, name=command.result.name, text=text, is_error=True)

"""`CommandApplier`: what the workflow does with an intrinsic tool's command.

Workflow-side code, deterministic. A command changes the task's state (plan, steps, the
open question, participants' roles, loaded skills) and yields the result the model reads
next turn, or None when the result comes later (the reply to a question). A command that
does not fit the task's state (an unknown step, a second question, a role change nobody
with the right asked for) becomes an error result, never a crash.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import TypeAdapter

    from tiny_harness.errors import A2uiMessageError, PlanError, RoleChangeError
    from tiny_harness.harness.a2ui.messages import ServerMessage, ui_part
    from tiny_harness.harness.a2ui.surfaces import draw
    from tiny_harness.harness.hooks import Operation
    from tiny_harness.harness.tasks.extension import ParticipantRole, participant_ids
    from tiny_harness.harness.tasks.participants import not_on_task, set_role
    from tiny_harness.harness.tasks.plan import Plan
    from tiny_harness.harness.tools.definition import ToolResult, WorkflowCommand
    from tiny_harness.service.durable.payloads import LoadedSkill, PendingQuestion, TaskRun
    from tiny_harness.service.durable.workflows.dispatch import HookDispatcher
    from tiny_harness.service.durable.workflows.milestones import Milestones
    from tiny_harness.service.durable.workflows.narrator import Narrator


class CommandApplier:
    """Applies commands to one run's state."""

    def __init__(
        self, run: TaskRun, narrator: Narrator, hooks: HookDispatcher, milestones: Milestones
    ) -> None:
        self._run = run
        self._narrator = narrator
        self._hooks = hooks
        self._milestones = milestones

    def apply(self, command: WorkflowCommand) -> ToolResult | None:
        """Apply `command`; the result the model reads, or None if it comes later."""
        try:
            if command.kind == "attach_plan":
                self._attach_plan(command)
            elif command.kind == "complete_step":
                self._complete_step(command)
            elif command.kind == "wait_for_reply":
                return self._ask(command)
            elif command.kind == "set_participant_role":
                self._set_role(command)
            elif command.kind == "emit_ui":
                self._show(command)
            else:
                self._change_skills(command)
        except RoleChangeError as error:
            # A denial, like the access policy's: recorded, and told to the model.
            workflow.logger.warning("task %s: %s", self._run.task.id, error.message)
            return error_result(command, f"{error.code}: {error.message}")
        except (PlanError, A2uiMessageError) as error:
            return error_result(command, f"{error.code}: {error.message}")
        return command.result

    def _attach_plan(self, command: WorkflowCommand) -> None:
        self._run.plan = Plan.model_validate(command.payload["plan"])
        self._narrator.say("Plan:\n" + self._run.plan.render(), plan=True)
        steps = len(self._run.plan.steps)
        self._milestones.mark(
            Operation.PLAN_CREATED,
            command.call_id,
            outcome="ok",
            detail=f"{steps} steps",
            attributes={"tiny_harness.plan.steps": steps},
        )

    def _complete_step(self, command: WorkflowCommand) -> None:
        step_id, output = str(command.payload["step_id"]), str(command.payload["output"])
        if self._run.plan is None:
            raise PlanError("there is no plan yet; call create_plan first")
        self._run.plan = self._run.plan.complete(step_id, output)
        self._narrator.say(f"Step {step_id} done: {output}".rstrip(": "), plan=True)
        self._hooks.step_finished(self._run.plan.step(step_id), output)
        # The step's place, not its id: the model chose the id, and records hold no content.
        steps = self._run.plan.steps
        place = next(n for n, step in enumerate(steps, 1) if step.id == step_id)
        self._milestones.mark(
            Operation.STEP_FINISHED,
            command.call_id,
            outcome="done",
            detail=f"step {place} of {len(steps)}",
            attributes={"tiny_harness.step.index": place, "tiny_harness.plan.steps": len(steps)},
        )

    def _ask(self, command: WorkflowCommand) -> ToolResult | None:
        if self._run.pending_question is not None:
            return error_result(command, "one question at a time: wait for the first reply")
        options = command.payload.get("options") or []
        addressee = command.payload.get("participant_id")
        refusal = (
            not_on_task(addressee, participant_ids(self._run.task))
            if isinstance(addressee, str)
            else None
        )
        if refusal is not None:
            return error_result(command, refusal)
        self._run.pending_question = PendingQuestion(
            call_id=command.call_id,
            question=str(command.payload["question"]),
            options=tuple(str(o) for o in options) if isinstance(options, list) else (),
            participant_id=addressee if isinstance(addressee, str) else None,
        )
        return None

    def _set_role(self, command: WorkflowCommand) -> None:
        """Only an admin's request changes a role: the newest message the model acts on must
        come from one, so text from anyone else (a tool result, a channel post) cannot."""
        participant_id = str(command.payload["participant_id"])
        role = ParticipantRole(str(command.payload["role"]))
        set_role(self._run.task, participant_id, role, by=self._run.principal)
        self._narrator.say(f"{participant_id} is now {role.value} of this task.")

    def _show(self, command: WorkflowCommand) -> None:
        """Record what is drawn (all or nothing), then send it to the task's renderers."""
        shown = _SHOWN.validate_python(command.payload["messages"])
        surfaces = {k: list(v) for k, v in self._run.surfaces.items()}
        for message in shown:
            draw(surfaces, message)
        self._run.surfaces = surfaces
        self._narrator.say(str(command.payload["text"]), extra=[ui_part(m) for m in shown])

    def _change_skills(self, command: WorkflowCommand) -> None:
        name = str(command.payload["name"])
        kept = [s for s in self._run.loaded_skills if s.name != name]
        loaded = command.kind == "skill_loaded"
        if loaded:
            fields = {k: command.payload[k] for k in ("name", "body", "tools")}
            kept.append(LoadedSkill.model_validate(fields))
        self._run.loaded_skills = kept
        self._hooks.skill_changed(name, loaded=loaded)


_SHOWN: TypeAdapter[list[ServerMessage]] = TypeAdapter(list[ServerMessage])
"""An `emit_ui` command's messages (checked by the intrinsic) as models again."""


def error_result(command: WorkflowCommand, text: str) -> ToolResult:
    """An error result for `command`'s call."""
    return ToolResult(call_id=command.call_id, name=command.result.name, text=text, is_error=True)

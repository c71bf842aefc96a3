"""`Narrator`: turns what happens to a task into its A2A events.

Workflow-side code. State changes, progress messages and the answer become events in the
task's log (ids from `workflow.uuid4()`, times from `workflow.now()`), which `LogWriter`
takes to the store; a state change also goes to the task.state_changed hooks and to the
workflow's `A2ATaskState` search attribute.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from collections.abc import Sequence

    from a2a.types import Part, TaskState
    from pydantic import JsonValue

    from tiny_harness.harness.channels.extension import help_request
    from tiny_harness.harness.tasks import states as task_states
    from tiny_harness.harness.tasks.calls import CallEvent, call_part
    from tiny_harness.harness.tasks.plan import PLAN_MEDIA_TYPE, Plan
    from tiny_harness.service.durable import search_attributes
    from tiny_harness.service.durable.payloads import PendingQuestion
    from tiny_harness.service.durable.workflows import events
    from tiny_harness.service.durable.workflows.dispatch import HookDispatcher
    from tiny_harness.service.durable.workflows.task_log import TaskLog


class Narrator:
    """Records one run's events in its log."""

    def __init__(self, log: TaskLog, hooks: HookDispatcher) -> None:
        self._log = log
        self._hooks = hooks

    @property
    def final(self) -> bool:
        """Whether the task is in a state it never leaves."""
        return self._log.task.status.state in task_states.FINAL

    def set_state(
        self,
        state: TaskState,
        text: str | None = None,
        *,
        data: dict[str, JsonValue] | None = None,
        extra: Sequence[Part] = (),
    ) -> None:
        """Move the task to `state`, with an agent message when `text` is given (and the
        `extra` parts after its own)."""
        task = self._log.task
        message = None
        if text is not None:
            message = events.agent_message(task, str(workflow.uuid4()), text, data)
            message.parts.extend(extra)
        before = task.status.state
        task_states.check_transition(before, state)
        self._log.record(events.status_event(task, state, workflow.now(), message))
        if before != state:
            self._hooks.state_changed(before, state)
            search_attributes.note_state(state)

    def ask(self, question: PendingQuestion) -> None:
        """INPUT_REQUIRED with `question` (its options as a data part; for an addressed
        question, a help request on the task's channel)."""
        options: list[JsonValue] = list(question.options)
        extra = help_request(self._log.task.id, question.question, question.participant_id)
        self.set_state(
            TaskState.TASK_STATE_INPUT_REQUIRED,
            question.question,
            data={"options": options} if options else None,
            extra=extra,
        )

    def say(self, text: str, *, plan: Plan | None = None, extra: Sequence[Part] = ()) -> None:
        """A progress message while WORKING (and the `extra` parts after its own); a plan
        change carries the `plan` as a data part, and the task's extension data shows it,
        so GetTask and a late subscriber read the plan as it stands."""
        task = self._log.task
        data = plan.model_dump(mode="json") if plan is not None else None
        if plan is not None:
            self._log.show_plan(plan)
        message = events.agent_message(
            task, str(workflow.uuid4()), text, data=data, media_type=PLAN_MEDIA_TYPE
        )
        message.parts.extend(extra)
        state = TaskState.TASK_STATE_WORKING
        self._log.record(events.status_event(task, state, workflow.now(), message))

    def note(self, text: str, *, extra: Sequence[Part] = ()) -> None:
        """News for the task's readers in its current state (no change of state), with the
        `extra` parts after its text; nothing once the task is final."""
        if self.final:
            return
        task = self._log.task
        message = events.agent_message(task, str(workflow.uuid4()), text)
        message.parts.extend(extra)
        self._log.record(events.status_event(task, task.status.state, workflow.now(), message))

    def call(self, event: CallEvent) -> None:
        """A model or tool call starting or ending, told in the task's current state (its
        message holds only the call's data part); nothing once the task is final."""
        if self.final:
            return
        task = self._log.task
        message = events.agent_parts(task, str(workflow.uuid4()), [call_part(event)])
        self._log.record(events.status_event(task, task.status.state, workflow.now(), message))

    def complete(self, answer: str) -> None:
        """The answer as an artifact, then COMPLETED."""
        task = self._log.task
        self._log.record(events.artifact_event(task, str(workflow.uuid4()), "answer", answer))
        self.set_state(TaskState.TASK_STATE_COMPLETED)

    def fail(self, reason: str) -> None:
        """FAILED with `reason`, unless the task is final already."""
        workflow.logger.warning("task %s failed: %s", self._log.task.id, reason)
        if not self.final:
            self.set_state(TaskState.TASK_STATE_FAILED, reason)

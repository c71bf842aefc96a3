"""`ToolRunner`: the model's tool calls, run one by one, and what their results change.

Workflow-side code, deterministic. Each call is one `invoke_tool` activity under the
workflow's retry policy; a tool that is not idempotent is never run twice, and the model
reads `tool_not_retried` instead. A call that returns a command changes the task's state:
delegation commands start or signal stand-ins, the others go to `CommandApplier`, and a
changed plan is queued for the store. The result, if any, joins the conversation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from tiny_harness.errors import ToolNotRetriedError
    from tiny_harness.harness.models.llm import ToolResultItem
    from tiny_harness.harness.settings.retry import NOT_IDEMPOTENT_POLICY
    from tiny_harness.harness.tasks.extension import ext_of
    from tiny_harness.harness.tools.definition import (
        Idempotency,
        ToolCall,
        ToolDefinition,
        ToolResult,
    )
    from tiny_harness.service.durable.activities.task import TaskActivities, ToolOutcome
    from tiny_harness.service.durable.payloads import InvokeToolInput, TaskRun, TaskStart
    from tiny_harness.service.durable.workflows import read_model
    from tiny_harness.service.durable.workflows.attempts import Attempts
    from tiny_harness.service.durable.workflows.commands import CommandApplier
    from tiny_harness.service.durable.workflows.delegation import Delegation
    from tiny_harness.service.durable.workflows.log_writer import LogWriter

DELEGATION_COMMANDS = frozenset({"spawn_subtask", "reply_subtask", "create_participant_task"})
"""Commands the delegation applies (they start or signal stand-in workflows)."""

_TIMEOUT = timedelta(minutes=5)


class ToolRunner:
    """Runs one task run's tool calls."""

    def __init__(
        self,
        start: TaskStart,
        run: TaskRun,
        attempts: Attempts,
        commands: CommandApplier,
        delegation: Delegation,
        writer: LogWriter,
        *,
        cancelled: Callable[[], bool],
    ) -> None:
        self._start = start
        self._run = run
        self._attempts = attempts
        self._commands = commands
        self._delegation = delegation
        self._writer = writer
        self._cancelled = cancelled
        self.offered: dict[str, ToolDefinition] = {}
        """The tools of the request the calls answer, by name (their idempotency)."""

    async def run(self, call: ToolCall) -> None:
        """Run `call`, apply its command if any, and add its result to the conversation."""
        outcome = await self._invoke(call)
        result: ToolResult | None = outcome.result
        command = outcome.command
        if command is not None and command.kind in DELEGATION_COMMANDS:
            result = await self._delegation.apply(command)
        elif command is not None:
            plan = self._run.plan
            result = self._commands.apply(command)
            if self._run.plan is not plan:
                self._run.plan_revision += 1
                record = read_model.plan_record(self._run, workflow.now())
                if record is not None:
                    self._writer.add(record)
        if result is not None:
            self._run.conversation.append(
                ToolResultItem(
                    call_id=result.call_id,
                    name=result.name,
                    text=result.text,
                    is_error=result.is_error,
                )
            )

    async def _invoke(self, call: ToolCall) -> ToolOutcome:
        loaded = tuple(s.name for s in self._run.loaded_skills)
        offered = self.offered.get(call.name)

        def attempt_once(attempt: int) -> Awaitable[ToolOutcome]:
            return workflow.execute_activity_method(
                TaskActivities.invoke_tool,
                InvokeToolInput(
                    task_id=self._start.task_id,
                    call=call,
                    loaded_skills=loaded,
                    attempt=attempt,
                    iteration=self._run.llm_calls,
                    # Who may be asked, and what each must do, when the harness decides.
                    task=ext_of(self._run.task) if call.name == "ask_participant" else None,
                ),
                start_to_close_timeout=_TIMEOUT,
                heartbeat_timeout=self._start.retries.heartbeat_timeout,
                retry_policy=RetryPolicy(maximum_attempts=1),
            )

        safe = offered is None or offered.idempotency is Idempotency.IDEMPOTENT
        retries = self._start.retries
        policy = retries.for_activity("invoke_tool") if safe else NOT_IDEMPOTENT_POLICY
        try:
            return await self._attempts.run("invoke_tool", policy, attempt_once)
        except ActivityError as error:
            if safe or self._cancelled():
                raise
            # Running it again could repeat its side effect: the model hears why instead.
            text = (
                f"{ToolNotRetriedError.code}: {call.name} failed and is not retried: {error.cause}"
            )
            return ToolOutcome(
                result=ToolResult(call_id=call.call_id, name=call.name, text=text, is_error=True)
            )

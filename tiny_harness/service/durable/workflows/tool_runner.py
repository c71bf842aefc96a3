"""`ToolRunner`: the model's tool calls, run one at a time.

Workflow-side code, deterministic. Each call is one `invoke_tool` activity under the
workflow's retry policy; a tool that is not idempotent is never run twice, and the model
reads `tool_not_retried` instead. What a call returns (its result, and for an intrinsic
the command that changes the task) goes back to the workflow, which applies it. Each call
is told to the task's readers as it starts and as it ends (`CallEvent`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from a2a.types import Task

    from tiny_harness.errors import ToolNotRetriedError
    from tiny_harness.harness.models.llm import LLMRequest
    from tiny_harness.harness.settings.retry import NOT_IDEMPOTENT_POLICY
    from tiny_harness.harness.tasks import calls
    from tiny_harness.harness.tasks.calls import CallEvent, CallState
    from tiny_harness.harness.tasks.extension import ext_of
    from tiny_harness.harness.tools.definition import (
        Idempotency,
        ToolCall,
        ToolResult,
    )
    from tiny_harness.service.durable.activities.task import TaskActivities, ToolOutcome
    from tiny_harness.service.durable.payloads import (
        InvokeToolInput,
        LoopState,
        TaskStart,
        ToolsetRef,
    )
    from tiny_harness.service.durable.workflows.attempts import Attempts, failure_text

_TIMEOUT = timedelta(minutes=5)
_CANCELLED = "cancelled with the task"


class ToolRunner:
    """Runs one task run's tool calls."""

    def __init__(
        self,
        start: TaskStart,
        attempts: Attempts,
        tell: Callable[[CallEvent], None],
        cancelled: Callable[[], bool],
    ) -> None:
        """`tell` records a call's start or end; `cancelled` says whether the task is
        being cancelled: a failed call then ends the run instead of being told to the
        model."""
        self._start = start
        self._attempts = attempts
        self._cancelled = cancelled
        self._tell = tell
        self._offered: dict[str, Idempotency] = {}
        """The tools of the request the calls answer: each one's idempotency, by name."""

    def offer(self, request: LLMRequest, toolset: ToolsetRef | None) -> None:
        """The calls to come answer `request`, whose tools are `toolset`'s when it has one
        (a history from before tools went by reference has them in the request)."""
        offered = toolset.offered if toolset is not None else request.tools
        self._offered = {tool.name: tool.idempotency for tool in offered}

    async def invoke(self, call: ToolCall, loop: LoopState, task: Task) -> ToolOutcome:
        """Run `call`: its result, and for an intrinsic its command. Its start and its
        end are told; a call that fails the run is told as failed."""
        detailed = self._start.show_call_details
        started = calls.tool_started(call, workflow.now(), detailed=detailed)
        self._tell(started)
        try:
            outcome, state = await self._run(call, loop, task)
        except (ActivityError, asyncio.CancelledError) as error:
            why = (
                failure_text(error)
                if isinstance(error, ActivityError)
                else "cancelled with the task"
            )
            self._tell(
                calls.ended(started, CallState.FAILED, workflow.now(), why, detailed=detailed)
            )
            raise
        text = outcome.result.text
        self._tell(calls.ended(started, state, workflow.now(), text, detailed=detailed))
        return outcome

    async def _run(
        self, call: ToolCall, loop: LoopState, task: Task
    ) -> tuple[ToolOutcome, CallState]:
        """Run `call` under its retry policy: what it returned, and how it ended."""
        loaded = tuple(s.name for s in loop.loaded_skills)
        idempotency = self._offered.get(call.name)

        def attempt_once(attempt: int) -> Awaitable[ToolOutcome]:
            return workflow.execute_activity_method(
                TaskActivities.invoke_tool,
                InvokeToolInput(
                    task_id=self._start.task_id,
                    call=call,
                    loaded_skills=loaded,
                    attempt=attempt,
                    iteration=loop.llm_calls,
                    # Who may be asked, and what each must do, when the harness decides.
                    task=ext_of(task) if call.name == "ask_participant" else None,
                ),
                start_to_close_timeout=_TIMEOUT,
                heartbeat_timeout=self._start.retries.heartbeat_timeout,
                retry_policy=RetryPolicy(maximum_attempts=1),
            )

        safe = idempotency is None or idempotency is Idempotency.IDEMPOTENT
        retries = self._start.retries
        policy = retries.for_activity("invoke_tool") if safe else NOT_IDEMPOTENT_POLICY
        try:
            outcome = await self._attempts.run("invoke_tool", policy, attempt_once)
        except ActivityError as error:
            if safe or self._cancelled():
                raise
            # Running it again could repeat its side effect: the model hears why instead.
            text = (
                f"{ToolNotRetriedError.code}: {call.name} failed and is not retried: {error.cause}"
            )
            result = ToolResult(call_id=call.call_id, name=call.name, text=text, is_error=True)
            return ToolOutcome(result=result), CallState.NOT_RETRIED
        if outcome.vetoed:
            return outcome, CallState.VETOED
        return outcome, CallState.FAILED if outcome.result.is_error else CallState.COMPLETED

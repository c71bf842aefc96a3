"""`ModelCaller`: the loop's model calls, each one `invoke_llm` activity.

Workflow-side code, deterministic. A call runs under the workflow's own retry loop
(`Attempts`: Temporal's retry is off, so the activity.failed and activity.retried hooks
run between attempts) with the task's heartbeat timeout; the answer goes back to the
workflow, which applies it. Each call is told to the task's readers as it starts (`begin`,
before the turn's preparation, so its write carries the start) and as it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from tiny_harness.harness.models.llm import LLMRequest, LLMResponse
    from tiny_harness.harness.tasks import calls
    from tiny_harness.harness.tasks.calls import CallEvent, CallState
    from tiny_harness.service.durable.activities.task import TaskActivities
    from tiny_harness.service.durable.payloads import InvokeLLMInput, TaskStart, ToolsetRef
    from tiny_harness.service.durable.workflows import metering
    from tiny_harness.service.durable.workflows.attempts import Attempts, failure_text

_ONE_ATTEMPT = RetryPolicy(maximum_attempts=1)
"""The workflow retries the call itself (`Attempts`)."""

_TIMEOUT = timedelta(minutes=5)


class ModelCaller:
    """Calls one task run's model."""

    def __init__(
        self, start: TaskStart, attempts: Attempts, tell: Callable[[CallEvent], None]
    ) -> None:
        """`tell` records a call's start or end."""
        self._start = start
        self._attempts = attempts
        self._tell = tell
        self._started: CallEvent | None = None

    def begin(self, number: int) -> None:
        """The task's `number`-th model call starts (told now, made by `call`)."""
        self._started = calls.model_started(number, workflow.now())
        self._tell(self._started)

    async def call(self, request: LLMRequest, toolset: ToolsetRef | None) -> LLMResponse:
        """The model's answer to `request` offering `toolset`'s tools; raises the
        `ActivityError` of the last attempt when the retries are spent. Ends the call
        `begin` told of."""
        started = self._started or calls.model_started(0, workflow.now())
        self._started = None
        try:
            answer = await self._answer(request, toolset)
        except (ActivityError, asyncio.CancelledError) as error:
            why = failure_text(error) if isinstance(error, ActivityError) else "cancelled"
            detailed = self._start.show_call_details
            self._tell(
                calls.ended(started, CallState.FAILED, workflow.now(), why, detailed=detailed)
            )
            raise
        cost = metering.cost_of(answer, self._start.prices)
        self._tell(calls.model_answered(started, answer, cost, workflow.now()))
        return answer

    async def _answer(self, request: LLMRequest, toolset: ToolsetRef | None) -> LLMResponse:
        task_id = self._start.task_id

        def attempt_once(attempt: int) -> Awaitable[LLMResponse]:
            return workflow.execute_activity_method(
                TaskActivities.invoke_llm,
                InvokeLLMInput(task_id=task_id, request=request, attempt=attempt, toolset=toolset),
                start_to_close_timeout=_TIMEOUT,
                heartbeat_timeout=self._start.retries.heartbeat_timeout,
                retry_policy=_ONE_ATTEMPT,
            )

        policy = self._start.retries.for_activity("invoke_llm")
        return await self._attempts.run("invoke_llm", policy, attempt_once)

"""`ModelCaller`: the loop's model calls, each one `invoke_llm` activity.

Workflow-side code, deterministic. A call runs under the workflow's own retry loop
(`Attempts`: Temporal's retry is off, so the activity.failed and activity.retried hooks
run between attempts) with the task's heartbeat timeout; the answer goes back to the
workflow, which applies it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from tiny_harness.harness.models.llm import LLMRequest, LLMResponse
    from tiny_harness.service.durable.activities.task import TaskActivities
    from tiny_harness.service.durable.payloads import InvokeLLMInput, TaskStart, ToolsetRef
    from tiny_harness.service.durable.workflows.attempts import Attempts

_ONE_ATTEMPT = RetryPolicy(maximum_attempts=1)
"""The workflow retries the call itself (`Attempts`)."""

_TIMEOUT = timedelta(minutes=5)


class ModelCaller:
    """Calls one task run's model."""

    def __init__(self, start: TaskStart, attempts: Attempts) -> None:
        self._start = start
        self._attempts = attempts

    async def call(self, request: LLMRequest, toolset: ToolsetRef | None) -> LLMResponse:
        """The model's answer to `request` offering `toolset`'s tools; raises the
        `ActivityError` of the last attempt when the retries are spent."""
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

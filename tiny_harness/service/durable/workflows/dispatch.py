"""`HookDispatcher`: workflow-level transitions, run through their hook chains.

Workflow-side code. State changes, finished steps and skills loaded or unloaded happen in
the workflow, where hooks must not run; each is sent to the `dispatch_hooks` local activity,
in the background and only for points some executor subscribes to on this worker (which
every `persist` and `prepare_turn` tells: `learn`, so asking costs no activity; a dispatch
before the first of them waits for it). A hook that aborts a transition fails the task:
the dispatcher records the reason and tells the workflow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from a2a.types import TaskState

    from tiny_harness.harness.entities import EntityKind, EntityRef
    from tiny_harness.harness.hooks import (
        ActivityFailedPre,
        ActivityRetriedPre,
        HookContext,
        SkillLoadedPre,
        SkillUnloadedPre,
        StepFinishedPre,
        TaskStateChangedPre,
    )
    from tiny_harness.harness.tasks.plan import Step
    from tiny_harness.harness.tools.definition import JsonObject
    from tiny_harness.service.durable.activities.task import HOOK_ABORT_ERROR, TaskActivities
    from tiny_harness.service.durable.payloads import DispatchInput

_TIMEOUT = timedelta(seconds=30)
_RETRY = RetryPolicy(maximum_attempts=3)


class HookDispatcher:
    """Sends a run's workflow-level transitions to their hooks."""

    def __init__(self, task_id: str, on_abort: Callable[[str], None]) -> None:
        self._task_id = task_id
        self._on_abort = on_abort
        self._points: frozenset[str] | None = None
        self._pending: list[asyncio.Task[None]] = []
        self.abort_reason: str | None = None

    def state_changed(self, before: TaskState, after: TaskState) -> None:
        """task.state_changed.pre"""
        self._send(
            "task.state_changed.pre",
            TaskStateChangedPre(
                task_id=self._task_id,
                correlation_id=self._correlation(),
                before=before,
                after=after,
            ),
        )

    def step_finished(self, step: Step, output: str) -> None:
        """step.finished.pre"""
        self._send(
            "step.finished.pre",
            StepFinishedPre(
                task_id=self._task_id, correlation_id=self._correlation(), step=step, output=output
            ),
        )

    def skill_changed(self, name: str, *, loaded: bool) -> None:
        """skill.loaded.pre or skill.unloaded.pre"""
        ref = EntityRef(kind=EntityKind.SKILL, id=name)
        correlation = self._correlation()
        if loaded:
            ctx: HookContext = SkillLoadedPre(
                task_id=self._task_id, correlation_id=correlation, skill=ref
            )
            self._send("skill.loaded.pre", ctx)
        else:
            ctx = SkillUnloadedPre(task_id=self._task_id, correlation_id=correlation, skill=ref)
            self._send("skill.unloaded.pre", ctx)

    async def between_attempts(
        self, activity: str, error: str, attempt: int, delay: timedelta
    ) -> timedelta:
        """Run activity.failed and activity.retried hooks before attempt `attempt + 1`.

        Returns the delay to wait (a retried hook may rewrite it); a hook's abort raises
        the `ActivityError` of the dispatch, which ends the retrying.
        """
        correlation = self._correlation()
        failed = ActivityFailedPre(
            task_id=self._task_id,
            correlation_id=correlation,
            activity=activity,
            error=error,
            attempt=attempt,
        )
        await self._dispatch_now("activity.failed.pre", failed)
        retried = ActivityRetriedPre(
            task_id=self._task_id,
            correlation_id=correlation,
            activity=activity,
            next_delay=delay,
            attempt=attempt,
        )
        answer = await self._dispatch_now("activity.retried.pre", retried)
        if answer is None:
            return delay
        return ActivityRetriedPre.model_validate(answer).next_delay

    async def _dispatch_now(self, point: str, ctx: HookContext) -> JsonObject | None:
        if point not in await self._subscribed():
            return None
        data = DispatchInput(point=point, context=ctx.model_dump(mode="json"))
        return await workflow.execute_local_activity_method(
            TaskActivities.dispatch_hooks,
            data,
            start_to_close_timeout=_TIMEOUT,
            retry_policy=_RETRY,
        )

    async def settle(self) -> None:
        """Wait for every dispatch sent so far."""
        while self._pending:
            pending, self._pending = self._pending, []
            await asyncio.gather(*pending)

    def _send(self, point: str, ctx: HookContext) -> None:
        data = DispatchInput(point=point, context=ctx.model_dump(mode="json"))
        self._pending.append(asyncio.create_task(self._dispatch(data)))

    async def _dispatch(self, data: DispatchInput) -> None:
        if data.point not in await self._subscribed():
            return
        try:
            await workflow.execute_local_activity_method(
                TaskActivities.dispatch_hooks,
                data,
                start_to_close_timeout=_TIMEOUT,
                retry_policy=_RETRY,
            )
        except ActivityError as error:
            cause = error.cause
            if isinstance(cause, ApplicationError) and cause.type == HOOK_ABORT_ERROR:
                reason = f"Refused by a hook at {data.point}: {cause.message}"
            else:
                reason = f"The hooks of {data.point} failed: {cause or error}"
            workflow.logger.warning("task %s: %s", self._task_id, reason)
            if self.abort_reason is None:
                self.abort_reason = reason
                self._on_abort(reason)

    def learn(self, points: tuple[str, ...]) -> None:
        """The points some executor subscribes to on the worker, as it last told."""
        self._points = frozenset(points)

    async def _subscribed(self) -> frozenset[str]:
        await workflow.wait_condition(lambda: self._points is not None)
        return self._points or frozenset()

    def _correlation(self) -> str:
        return str(workflow.uuid4())

"""`Attempts`: the workflow's own retry loop around an activity.

Workflow-side code. Each attempt is scheduled with Temporal's retry switched off; when it
fails, the workflow decides: give up (the policy's attempts are spent, the error is marked
non-retryable or named in the policy, or the activity was cancelled), or run the
activity.failed / activity.retried hooks, sleep the backoff (jitter from `workflow.random()`)
and try again with the next attempt number.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

with workflow.unsafe.imports_passed_through():
    from tiny_harness.harness.settings.retry import RetryPolicySpec
    from tiny_harness.service.durable.activities.task import HOOK_ABORT_ERROR
    from tiny_harness.service.durable.workflows.dispatch import HookDispatcher


class Attempts:
    """Runs activities under retry policies, with hooks between attempts."""

    def __init__(self, hooks: HookDispatcher) -> None:
        self._hooks = hooks

    async def run[T](
        self, activity: str, policy: RetryPolicySpec, attempt_once: Callable[[int], Awaitable[T]]
    ) -> T:
        """`attempt_once(n)` for n = 1, 2, … until it succeeds or the policy gives up, in
        which case the last `ActivityError` is raised."""
        attempt = 1
        while True:
            try:
                return await attempt_once(attempt)
            except ActivityError as error:
                if not _retryable(error, policy, attempt):
                    raise
                delay = policy.delay(attempt, workflow.random().random())
                delay = await self._hooks.between_attempts(
                    activity, _describe(error), attempt, delay
                )
                workflow.logger.info(
                    "%s attempt %d failed (%s); retrying in %s",
                    activity,
                    attempt,
                    _describe(error),
                    delay,
                )
                await workflow.sleep(delay)
                attempt += 1


def _retryable(error: ActivityError, policy: RetryPolicySpec, attempt: int) -> bool:
    cause = error.cause
    if attempt >= policy.maximum_attempts or isinstance(cause, CancelledError):
        return False
    if isinstance(cause, ApplicationError):
        return not cause.non_retryable and cause.type not in policy.non_retryable_error_types
    return True


def _describe(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError):
        return f"{cause.type}: {cause.message}"
    return str(cause or error)


def failure_text(error: ActivityError) -> str:
    """What the task's readers are told of an activity that failed after its retries."""
    cause = error.cause
    if isinstance(cause, ApplicationError):
        if cause.type == HOOK_ABORT_ERROR:
            return f"Refused by a hook: {cause.message}"
        return f"An activity failed after its retries: {cause.type}: {cause.message}"
    return f"An activity failed after its retries: {cause or error}"

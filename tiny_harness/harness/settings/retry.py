"""Retry policies: how often, and how far apart, the workflow tries an activity again.

Temporal's own retry is switched off for the loop's activities (one attempt each); the
workflow retries them itself so that `activity.failed` and `activity.retried` hooks run
between attempts and a tool that is not idempotent is never run twice. The backoff is
computed here from the policy, the attempt and a jitter drawn by the caller (the workflow
draws it from `workflow.random()`, so replays agree).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from pydantic import BaseModel, Field

from tiny_harness.harness.settings.duration import Duration


class RetryPolicySpec(BaseModel, frozen=True, extra="forbid"):
    """One activity's retry policy."""

    initial_interval: Duration = timedelta(seconds=1)
    """The wait before the first retry."""
    backoff_coefficient: float = Field(default=2.0, ge=1.0)
    """Each wait is the last one times this."""
    maximum_interval: Duration = timedelta(seconds=60)
    """The longest wait between two attempts."""
    maximum_attempts: int = Field(default=5, ge=1)
    """Attempts in all, the first included (a tool that is not idempotent gets one)."""
    non_retryable_error_types: tuple[str, ...] = ()
    """Error types never retried, by name."""
    jitter: float = Field(default=0.2, ge=0.0, le=1.0)
    """Each delay is scaled by a factor drawn from [1 - jitter, 1 + jitter]."""

    def delay(self, attempt: int, draw: float) -> timedelta:
        """The wait before attempt `attempt + 1`, for a uniform `draw` in [0, 1)."""
        base = self.initial_interval * (self.backoff_coefficient ** (attempt - 1))
        capped = min(base, self.maximum_interval)
        return capped * (1 - self.jitter + 2 * self.jitter * draw)


NOT_IDEMPOTENT_POLICY = RetryPolicySpec(maximum_attempts=1)
"""The policy of a tool that is not safe to run twice: one attempt, ever."""


class RetryPolicies(BaseModel, frozen=True, extra="forbid"):
    """The default policy and per-activity overrides (`invoke_llm`, `invoke_tool`)."""

    default: RetryPolicySpec = RetryPolicySpec()
    per_activity: Mapping[str, RetryPolicySpec] = {}
    """A policy per activity, by its name (`invoke_llm`, `invoke_tool`, ...), in place of
    `default`."""
    heartbeat_timeout: Duration = Field(default=timedelta(seconds=30), gt=timedelta(0))
    """A model or tool call whose worker stops heartbeating for this long has failed (its
    worker died) and goes down the retry path; the call heartbeats at a third of it."""

    def for_activity(self, name: str) -> RetryPolicySpec:
        """The policy of activity `name`."""
        return self.per_activity.get(name, self.default)

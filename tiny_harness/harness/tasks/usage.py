"""A task's usage: how many model and tool calls it made, the tokens they took, their cost.

The workflow counts every call it makes (`UsageTotals.plus_call`, `plus_tool_call`) and
keeps `TaskUsage` in its run and in the task extension, so GetTask shows it and the store
keeps it. A sub-task that ran on this harness reports its own totals when it ends; they
are kept apart (`TaskUsage.sub_tasks`) and count toward the task's budget (`total`).
Pure data: no I/O.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from tiny_harness.harness.models.llm import Usage
from tiny_harness.harness.protocol.extension_json import EXTENSION_MODEL

_Count = Annotated[int, Field(ge=0)]


class UsageTotals(BaseModel):
    """Counts of calls and tokens, and their cost."""

    model_config = EXTENSION_MODEL

    model_calls: _Count = 0
    """Model calls answered."""
    tool_calls: _Count = 0
    """Tool calls run."""
    input_tokens: _Count = 0
    """Input tokens, cached ones included."""
    cached_tokens: _Count = 0
    """Input tokens read from the provider's cache."""
    output_tokens: _Count = 0
    """Output tokens."""
    cost_usd: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    """The cost in US dollars of the calls whose model has a configured price; null when
    none has."""
    unpriced_calls: _Count = 0
    """Model calls whose model has no configured price (their cost is not counted)."""

    @property
    def tokens(self) -> int:
        """Input plus output tokens: what a budget counts."""
        return self.input_tokens + self.output_tokens

    def plus_call(self, usage: Usage, cost_usd: float | None) -> UsageTotals:
        """These totals and one model call billed `usage` (`cost_usd` None: unpriced)."""
        return self.plus(
            UsageTotals(
                model_calls=1,
                input_tokens=usage.input_tokens,
                cached_tokens=usage.cached_tokens,
                output_tokens=usage.output_tokens,
                cost_usd=cost_usd,
                unpriced_calls=0 if cost_usd is not None else 1,
            )
        )

    def plus_tool_call(self) -> UsageTotals:
        """These totals and one tool call."""
        return self.model_copy(update={"tool_calls": self.tool_calls + 1})

    def plus(self, other: UsageTotals) -> UsageTotals:
        """The sum of these totals and `other`."""
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return UsageTotals(
            model_calls=self.model_calls + other.model_calls,
            tool_calls=self.tool_calls + other.tool_calls,
            input_tokens=self.input_tokens + other.input_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=sum(costs) if costs else None,
            unpriced_calls=self.unpriced_calls + other.unpriced_calls,
        )


class TaskUsage(BaseModel):
    """What a task used: its own calls, and those of its sub-tasks that ran on this harness.
    Set by the server; a client's value in a task envelope is ignored."""

    model_config = EXTENSION_MODEL

    own: UsageTotals = UsageTotals()
    """The task's own model and tool calls."""
    sub_tasks: UsageTotals = UsageTotals()
    """The totals of its sub-tasks that ran on this harness, counted when each reports them
    (a sub-task on another agent is not counted)."""

    @property
    def total(self) -> UsageTotals:
        """Its own and its sub-tasks' usage together: what the task's budget counts."""
        return self.own.plus(self.sub_tasks)

"""`Meter`: counts a task's calls, tokens and cost, and says when it is past its budget.

The task workflow tells the meter of every model call it made and every tool call it ran,
and of a sub-task's totals when the sub-task reports them. The meter keeps `TaskUsage` in
the run (carried across continue-as-new) and mirrors it into the task extension, so GetTask
shows it and the store keeps it with the task. Deterministic: no I/O, no clock.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from tiny_harness.harness.models.llm import LLMResponse
    from tiny_harness.harness.models.prices import price_of
    from tiny_harness.harness.tasks.extension import TaskExtensionData, ext_of, with_ext
    from tiny_harness.harness.tasks.usage import TaskUsage, UsageTotals
    from tiny_harness.service.durable.payloads import TaskRun, TaskStart


class Meter:
    """One task run's usage and budget."""

    def __init__(self, start: TaskStart, run: TaskRun) -> None:
        self._start = start
        self._run = run

    @property
    def usage(self) -> TaskUsage:
        """The task's usage so far."""
        return self._run.usage

    def model_call(self, response: LLMResponse) -> None:
        """Count one answered model call, priced by the model that answered it."""
        price = price_of(self._start.prices, response.model)
        cost = price.cost(response.usage) if price is not None else None
        own = self._run.usage.own.plus_call(response.usage, cost)
        self._set(self._run.usage.model_copy(update={"own": own}))

    def tool_call(self) -> None:
        """Count one tool call run."""
        own = self._run.usage.own.plus_tool_call()
        self._set(self._run.usage.model_copy(update={"own": own}))

    def sub_tasks(self, totals: list[UsageTotals]) -> None:
        """Take the totals the task's sub-tasks reported (each sub-task's latest)."""
        summed = UsageTotals()
        for each in totals:
            summed = summed.plus(each)
        if summed != self._run.usage.sub_tasks:
            self._set(self._run.usage.model_copy(update={"sub_tasks": summed}))

    def over_budget(self) -> str | None:
        """Why the task must stop, when its tokens passed `loop.max_task_tokens`; else None."""
        limit = self._start.max_task_tokens
        used = self._run.usage.total.tokens
        if limit is None or used <= limit:
            return None
        counted = "its own and its sub-tasks'" if self._run.usage.sub_tasks.tokens else "its own"
        return (
            f"The task used {used} tokens ({counted}), more than its budget "
            f"(loop.max_task_tokens = {limit})."
        )

    def _set(self, usage: TaskUsage) -> None:
        self._run.usage = usage
        ext = ext_of(self._run.task) or TaskExtensionData()
        with_ext(self._run.task, ext.model_copy(update={"usage": usage}))

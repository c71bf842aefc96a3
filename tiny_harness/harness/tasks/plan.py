"""Plans and steps: the structure `create_plan` gives a task and `complete_step` advances.

A plan is validated when it is made (unique step ids, known dependencies, no cycles) and
every change returns a new plan, so the workflow can hold it as plain state.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Self

from pydantic import BaseModel, ConfigDict, model_validator

from tiny_harness.errors import PlanCycleError, PlanError
from tiny_harness.harness.protocol.extension_json import CAMEL_KEYS

PLAN_MEDIA_TYPE: Final = "application/vnd.tiny-harness.plan+json"
"""The media type of the data part that carries a plan on a task's progress message."""
PLAN_TEXT_PREFIX: Final = "Plan:\n"
"""How the message that makes a plan begins its text, the plan for clients that read text
only; a renderer that draws the plan's data part leaves that text out."""


class StepState(StrEnum):
    """Where a step stands."""

    PENDING = "pending"
    DONE = "done"


class Step(BaseModel):
    """One step of a plan (in the task extension's JSON, with camelCase keys)."""

    model_config = ConfigDict(frozen=True, **CAMEL_KEYS)

    id: str
    name: str
    description: str = ""
    depends_on: tuple[str, ...] = ()
    state: StepState = StepState.PENDING
    output: str | None = None


class Plan(BaseModel, frozen=True):
    """An ordered set of steps whose dependencies form a DAG."""

    steps: tuple[Step, ...]

    @model_validator(mode="after")
    def _well_formed(self) -> Self:
        ids = [step.id for step in self.steps]
        if len(set(ids)) != len(ids):
            raise PlanError(f"step ids must be unique, got {ids}")
        for step in self.steps:
            unknown = [dep for dep in step.depends_on if dep not in ids]
            if unknown:
                raise PlanError(f"step {step.id!r} depends on unknown steps {unknown}")
        _check_acyclic(self.steps)
        return self

    def step(self, step_id: str) -> Step:
        """The step with this id; raises `PlanError` when there is none."""
        for step in self.steps:
            if step.id == step_id:
                return step
        raise PlanError(f"no step {step_id!r} in the plan; steps are {[s.id for s in self.steps]}")

    def complete(self, step_id: str, output: str) -> Plan:
        """A copy of the plan with `step_id` done; refuses a step whose dependencies are open."""
        target = self.step(step_id)
        open_deps = [d for d in target.depends_on if self.step(d).state is not StepState.DONE]
        if open_deps:
            raise PlanError(f"step {step_id!r} waits on steps not done yet: {open_deps}")
        done = target.model_copy(update={"state": StepState.DONE, "output": output})
        return Plan(steps=tuple(done if s.id == step_id else s for s in self.steps))

    def render(self) -> str:
        """The plan as a short checklist, for the model and for status messages."""
        lines = []
        for step in self.steps:
            mark = "x" if step.state is StepState.DONE else " "
            deps = f" (after {', '.join(step.depends_on)})" if step.depends_on else ""
            lines.append(f"- [{mark}] {step.id}: {step.name}{deps}")
        return "\n".join(lines)


def _check_acyclic(steps: tuple[Step, ...]) -> None:
    graph = {step.id: step.depends_on for step in steps}
    visiting: set[str] = set()
    done: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> None:
        if node in done:
            return
        if node in visiting:
            loop = (*path[path.index(node) :], node)
            raise PlanCycleError(f"plan steps form a cycle: {' -> '.join(loop)}")
        visiting.add(node)
        for dep in graph[node]:
            visit(dep, (*path, node))
        visiting.discard(node)
        done.add(node)

    for step_id in graph:
        visit(step_id, ())

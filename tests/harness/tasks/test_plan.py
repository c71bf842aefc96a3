"""Plans: validated when made (unique ids, known dependencies, no cycles), changed by copy."""

from __future__ import annotations

import pytest

from tiny_harness.errors import PlanCycleError, PlanError
from tiny_harness.harness.tasks.plan import Plan, Step, StepState


def step(step_id: str, *depends_on: str) -> Step:
    return Step(id=step_id, name=f"Step {step_id}", depends_on=depends_on)


def chain() -> Plan:
    """read -> write -> review, each waiting on the one before."""
    return Plan(steps=(step("read"), step("write", "read"), step("review", "write")))


def test_well_formed_plan_keeps_its_steps_in_order_and_pending() -> None:
    plan = chain()

    assert [s.id for s in plan.steps] == ["read", "write", "review"]
    assert all(s.state is StepState.PENDING and s.output is None for s in plan.steps)


def test_duplicate_step_ids_are_refused() -> None:
    with pytest.raises(PlanError, match="unique") as caught:
        Plan(steps=(step("a"), step("b"), step("a")))

    assert not isinstance(caught.value, PlanCycleError)


def test_dependency_on_unknown_step_is_refused_and_named() -> None:
    with pytest.raises(PlanError, match="ghost") as caught:
        Plan(steps=(step("a"), step("b", "a", "ghost")))

    assert "'b'" in caught.value.message
    assert not isinstance(caught.value, PlanCycleError)


def test_step_depending_on_itself_is_a_cycle() -> None:
    with pytest.raises(PlanCycleError) as caught:
        Plan(steps=(step("a"), step("loop", "loop")))

    assert "loop -> loop" in caught.value.message


def test_three_step_cycle_is_refused_with_every_step_of_the_cycle_named() -> None:
    # a waits on c, c waits on b, b waits on a.
    with pytest.raises(PlanCycleError) as caught:
        Plan(steps=(step("a", "c"), step("b", "a"), step("c", "b")))

    message = caught.value.message
    assert "a -> c -> b -> a" in message


def test_cycle_is_a_plan_error_so_callers_catching_plan_errors_see_it() -> None:
    with pytest.raises(PlanError):
        Plan(steps=(step("x", "y"), step("y", "x")))


def test_plan_loaded_from_json_is_validated_too() -> None:
    with pytest.raises(PlanCycleError):
        Plan.model_validate({"steps": [{"id": "a", "name": "A", "depends_on": ["a"]}]})


def test_diamond_dependencies_are_not_a_cycle() -> None:
    plan = Plan(
        steps=(step("top"), step("left", "top"), step("right", "top"), step("end", "left", "right"))
    )

    assert plan.step("end").depends_on == ("left", "right")


def test_complete_returns_a_new_plan_and_leaves_the_old_one_unchanged() -> None:
    plan = chain()

    after = plan.complete("read", "read the request")

    assert after is not plan
    assert after.step("read").state is StepState.DONE
    assert after.step("read").output == "read the request"
    assert after.step("write").state is StepState.PENDING
    assert [s.id for s in after.steps] == ["read", "write", "review"]
    assert plan.step("read").state is StepState.PENDING
    assert plan.step("read").output is None


def test_complete_refuses_a_step_whose_dependencies_are_open() -> None:
    plan = chain()

    with pytest.raises(PlanError, match="read") as caught:
        plan.complete("write", "too early")

    assert "'write'" in caught.value.message
    assert plan.step("write").state is StepState.PENDING


def test_complete_accepts_a_step_once_its_dependencies_are_done() -> None:
    plan = chain().complete("read", "r").complete("write", "w").complete("review", "ok")

    assert [s.state for s in plan.steps] == [StepState.DONE] * 3
    assert [s.output for s in plan.steps] == ["r", "w", "ok"]


def test_complete_refuses_an_unknown_step_and_lists_the_known_ones() -> None:
    with pytest.raises(PlanError, match="nope") as caught:
        chain().complete("nope", "")

    assert "read" in caught.value.message


def test_step_lookup_refuses_an_unknown_id() -> None:
    with pytest.raises(PlanError, match="missing"):
        chain().step("missing")


def test_render_marks_done_steps_and_shows_dependencies() -> None:
    plan = chain().complete("read", "done")

    assert plan.render().splitlines() == [
        "- [x] read: Step read",
        "- [ ] write: Step write (after read)",
        "- [ ] review: Step review (after write)",
    ]


def test_render_of_a_fresh_plan_marks_nothing_done() -> None:
    assert "[x]" not in chain().render()


def test_cycle_error_names_only_the_steps_in_the_loop() -> None:
    steps = (
        Step(id="a", name="a", depends_on=("b",)),
        Step(id="b", name="b", depends_on=("c",)),
        Step(id="c", name="c", depends_on=("b",)),
    )
    with pytest.raises(PlanCycleError) as caught:
        Plan(steps=steps)
    assert "b -> c -> b" in caught.value.message
    assert "a ->" not in caught.value.message

"""The A2A task state machine the workflow checks every change against."""

from __future__ import annotations

import pytest
from a2a.types import TaskState

from tiny_harness.errors import IllegalTransitionError
from tiny_harness.harness.tasks.states import FINAL, NEXT, check_transition, may_follow

ALL = [s for s in TaskState.values() if s != TaskState.TASK_STATE_UNSPECIFIED]


@pytest.mark.parametrize("final", sorted(FINAL))
def test_final_states_have_no_exits(final: int) -> None:
    for after in ALL:
        with pytest.raises(IllegalTransitionError, match="cannot move to"):
            check_transition(final, after)


@pytest.mark.parametrize("before", [s for s in ALL if s != TaskState.TASK_STATE_SUBMITTED])
def test_rejected_only_from_submitted(before: int) -> None:
    assert may_follow(TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_REJECTED)
    assert not may_follow(before, TaskState.TASK_STATE_REJECTED)


def test_a_paused_task_goes_back_to_working_before_it_completes() -> None:
    for paused in (TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED):
        assert may_follow(paused, TaskState.TASK_STATE_WORKING)
        assert may_follow(paused, TaskState.TASK_STATE_CANCELED)
        assert not may_follow(paused, TaskState.TASK_STATE_COMPLETED)
    assert not may_follow(TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_INPUT_REQUIRED)


def test_working_may_repeat_for_progress_messages() -> None:
    assert may_follow(TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_WORKING)


def test_nothing_moves_to_or_from_unspecified() -> None:
    assert TaskState.TASK_STATE_UNSPECIFIED not in NEXT
    assert all(TaskState.TASK_STATE_UNSPECIFIED not in targets for targets in NEXT.values())
    with pytest.raises(IllegalTransitionError):
        check_transition(TaskState.TASK_STATE_UNSPECIFIED, TaskState.TASK_STATE_WORKING)

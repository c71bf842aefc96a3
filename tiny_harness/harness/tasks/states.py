"""The A2A task state machine: which state may follow which.

    SUBMITTED ──► WORKING ◄──► INPUT_REQUIRED / AUTH_REQUIRED
        │            │
        ├──► REJECTED (only from SUBMITTED: the agent declined before starting)
        └────────────┴──► COMPLETED · FAILED · CANCELED

A final state (COMPLETED, FAILED, CANCELED, REJECTED) has no exits. WORKING may repeat (a
progress message is a WORKING status update). The workflow checks every change against
this table, so a transition the protocol forbids raises rather than reaching a client.
"""

from __future__ import annotations

from typing import Final

from a2a.types import TaskState

from tiny_harness.errors import IllegalTransitionError

FINAL: Final = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
    }
)
"""States a task never leaves."""
_ENDINGS: Final = frozenset(
    {TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED}
)
PAUSED: Final = frozenset({TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED})
"""States in which a task waits for a participant."""

NEXT: Final[dict[int, frozenset[int]]] = {
    TaskState.TASK_STATE_SUBMITTED: frozenset(
        {TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_REJECTED} | _ENDINGS
    ),
    TaskState.TASK_STATE_WORKING: frozenset({TaskState.TASK_STATE_WORKING} | PAUSED | _ENDINGS),
    TaskState.TASK_STATE_INPUT_REQUIRED: frozenset(
        {TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED}
    ),
    TaskState.TASK_STATE_AUTH_REQUIRED: frozenset(
        {TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED}
    ),
    **{state: frozenset() for state in FINAL},
}
"""Every state a task may move to from each state; a state not listed has no exits."""


def may_follow(before: int, after: int) -> bool:
    """Whether a task in `before` may move to `after`."""
    return after in NEXT.get(before, frozenset())


def check_transition(before: int, after: int) -> None:
    """Raise `IllegalTransitionError` unless a task in `before` may move to `after`."""
    if not may_follow(before, after):
        raise IllegalTransitionError(
            f"a task in {TaskState.Name(before)} cannot move to {TaskState.Name(after)}"
        )

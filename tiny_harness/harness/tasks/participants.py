"""Participants' roles on a task: who is an admin, and how a role is changed.

A task's participants live in its task extension data (`task_ext`). The same rules serve
the A2A boundary (a task envelope that sets participants) and the `set_participant_role`
intrinsic, so a role can change only one way: by an admin's request, never leaving the
task without an admin.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from a2a.types import Task

from tiny_harness.errors import RoleChangeError
from tiny_harness.harness.tasks.extension import (
    Participant,
    ParticipantRole,
    TaskExtensionData,
    ext_of,
    with_ext,
)

ANONYMOUS: Final = ""
"""The participant of a call (or message) that asserts no id."""


def participants_of(task: Task) -> tuple[Participant, ...]:
    """The task's participants (none: the task belongs to the anonymous participant)."""
    ext = ext_of(task)
    return () if ext is None else ext.participants


def members_of(task: Task) -> frozenset[str]:
    """Who takes part in `task`: its participants' ids, or, for a task nobody claimed, the
    anonymous participant alone."""
    return frozenset(p.id for p in participants_of(task)) or frozenset({ANONYMOUS})


def not_on_task(participant: str, people: Collection[str]) -> str | None:
    """Why `participant` cannot be asked or handed work (not one of `people`, the task's
    participants' ids), or None when they can."""
    if participant in people:
        return None
    known = ", ".join(sorted(people)) or "none"
    return f"{participant} is not a participant of this task (participants: {known})"


def is_admin(participant: str, task: Task) -> bool:
    """Whether `participant` holds the admin role on `task` (the anonymous participant is
    the admin of a task nobody claimed)."""
    people = participants_of(task)
    if not people:
        return participant == ANONYMOUS
    return any(p.id == participant and p.role == ParticipantRole.ADMIN for p in people)


def set_role(task: Task, participant_id: str, role: ParticipantRole, *, by: str) -> None:
    """Give `participant_id` the `role` on `task` (see `with_role`)."""
    with_ext(task, with_role(task, participant_id, role, by=by))


def with_role(
    task: Task, participant_id: str, role: ParticipantRole, *, by: str
) -> TaskExtensionData:
    """The task's extension data with `participant_id` given the `role` (added as a person
    if they are not a participant yet), at the request of participant `by`; the task is
    left as it is.

    Raises `RoleChangeError` when `by` is not an admin of the task, or when the change
    would leave the task with no admin.
    """
    if not is_admin(by, task):
        who = repr(by) if by else "an anonymous participant"
        raise RoleChangeError(f"only an admin may change roles; the request came from {who}")
    current = ext_of(task) or TaskExtensionData()
    people = list(current.participants)
    index = next((i for i, p in enumerate(people) if p.id == participant_id), None)
    if index is None:
        people.append(
            Participant(id=participant_id, kind="human", role=role, display_name=participant_id)
        )
    else:
        people[index] = people[index].model_copy(update={"role": role})
    if not any(p.role == ParticipantRole.ADMIN for p in people):
        raise RoleChangeError(f"{participant_id} is the task's last admin; name another first")
    return current.model_copy(update={"participants": tuple(people)})

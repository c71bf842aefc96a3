"""Role changes on a task: only an admin's request changes a role, and a task always keeps
an admin."""

from __future__ import annotations

import pytest
from a2a.types import Task

from tiny_harness.errors import RoleChangeError
from tiny_harness.harness.tasks.extension import (
    Participant,
    ParticipantRole,
    TaskExtensionData,
    ext_of,
    with_ext,
)
from tiny_harness.harness.tasks.participants import is_admin, set_role


def task_with(*people: tuple[str, ParticipantRole]) -> Task:
    task = Task(id="t1", context_id="c1")
    participants = tuple(
        Participant(id=pid, kind="human", role=role, display_name=pid) for pid, role in people
    )
    with_ext(task, TaskExtensionData(name="n", participants=participants))
    return task


def roles(task: Task) -> dict[str, ParticipantRole]:
    ext = ext_of(task)
    assert ext is not None
    return {p.id: p.role for p in ext.participants}


def test_an_admin_changes_a_role_and_the_rest_of_the_data_is_kept() -> None:
    task = task_with(("alice", ParticipantRole.ADMIN), ("bob", ParticipantRole.WATCHER))

    set_role(task, "bob", ParticipantRole.ASSIGNEE, by="alice")

    assert roles(task) == {"alice": ParticipantRole.ADMIN, "bob": ParticipantRole.ASSIGNEE}
    ext = ext_of(task)
    assert ext is not None
    assert ext.name == "n"


def test_an_admin_adds_someone_new_as_a_person() -> None:
    task = task_with(("alice", ParticipantRole.ADMIN))

    set_role(task, "carol", ParticipantRole.WATCHER, by="alice")

    ext = ext_of(task)
    assert ext is not None
    assert ext.participants[-1] == Participant(
        id="carol", kind="human", role=ParticipantRole.WATCHER, display_name="carol"
    )


@pytest.mark.parametrize("by", ["bob", "", "mallory"])
def test_a_request_from_a_non_admin_is_refused_and_nothing_changes(by: str) -> None:
    task = task_with(("alice", ParticipantRole.ADMIN), ("bob", ParticipantRole.WATCHER))
    before = roles(task)

    with pytest.raises(RoleChangeError, match="only an admin may change roles"):
        set_role(task, "bob", ParticipantRole.ADMIN, by=by)

    assert roles(task) == before


def test_the_last_admin_cannot_step_down() -> None:
    task = task_with(("alice", ParticipantRole.ADMIN), ("bob", ParticipantRole.WATCHER))

    with pytest.raises(RoleChangeError, match="alice is the task's last admin"):
        set_role(task, "alice", ParticipantRole.WATCHER, by="alice")

    set_role(task, "bob", ParticipantRole.ADMIN, by="alice")
    set_role(task, "alice", ParticipantRole.WATCHER, by="alice")
    assert roles(task) == {"alice": ParticipantRole.WATCHER, "bob": ParticipantRole.ADMIN}


def test_nobody_but_the_anonymous_participant_administers_an_unclaimed_task() -> None:
    task = Task(id="t1", context_id="c1")

    assert is_admin("", task)
    assert not is_admin("alice", task)

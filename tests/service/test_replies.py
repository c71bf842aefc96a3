"""The one reply path (`replies.py`): what a task that exists refuses before anything is
recorded or sent, and the record kept of each channel post (no text, once per message).

The messages are admitted first (`admit_message`), as both ways in admit them; the store is
a real SQLite file."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from a2a.types import Message, Task, TaskState, TaskStatus

from tests.service.a2a.test_channels import posting
from tests.support import send_request, user_message, with_task_envelope
from tiny_harness.errors import (
    ChannelMembershipError,
    FinalTaskError,
    InvalidMessageError,
    RoleChangeError,
)
from tiny_harness.harness.channels.a2a import A2AChannel
from tiny_harness.harness.channels.extension import ChannelMessageData, channel_part
from tiny_harness.harness.persistence.records import ChannelMessageRecord, RecordKind
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tasks.extension import (
    Participant,
    ParticipantRole,
    TaskExtensionData,
    with_ext,
)
from tiny_harness.service.admission import AdmittedMessage, admit_message
from tiny_harness.service.replies import check_reply, record_posts

A2A = A2AChannel()
AT = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SECRET_TEXT = "the launch code is 0000, keep it to yourself"


def admitted(message: Message, participant: str) -> AdmittedMessage:
    return admit_message(message, participant, Redactor())


def claimed_task(task_id: str = "t-1", *members: str, admin: str = "") -> Task:
    """A task under way whose participants are `members` (`admin` the admin, else all)."""
    task = Task(
        id=task_id, context_id="ctx-1", status=TaskStatus(state=TaskState.TASK_STATE_WORKING)
    )
    people = tuple(
        Participant(
            id=m,
            kind="human",
            role=ParticipantRole.ADMIN if admin in ("", m) else ParticipantRole.WATCHER,
            display_name=m,
        )
        for m in members
    )
    with_ext(task, TaskExtensionData(participants=people))
    return task


# --- check_reply ----------------------------------------------------------------------------


def test_the_channel_members_are_the_tasks_participants_or_else_the_anonymous_one() -> None:
    assert A2A.members(claimed_task("t-1", "alice", "bob")) == {"alice", "bob"}
    assert A2A.members(Task(id="t-1")) == {""}


def test_a_member_may_post_and_a_message_without_posts_is_not_checked() -> None:
    task = claimed_task("t-1", "alice", "bob")

    check_reply(A2A, admitted(posting("t-1", sender="bob"), "bob"), task)
    check_reply(A2A, admitted(user_message("hi", task_id="t-1"), "mallory"), task)


@pytest.mark.parametrize(
    "task",
    [claimed_task("t-1", "alice"), Task(id="t-1", context_id="ctx-1")],
    ids=["non-member", "unclaimed-task"],
)
def test_a_post_by_someone_not_on_the_channel_is_refused(task: Task) -> None:
    with pytest.raises(ChannelMembershipError):
        check_reply(A2A, admitted(posting("t-1", sender="bob"), "bob"), task)


def test_a_final_task_takes_no_reply() -> None:
    task = claimed_task("t-1", "alice")
    task.status.state = TaskState.TASK_STATE_COMPLETED

    with pytest.raises(FinalTaskError, match="final"):
        check_reply(A2A, admitted(user_message("more", task_id="t-1"), "alice"), task)


def test_a_reply_naming_another_context_is_refused() -> None:
    message = user_message("M", task_id="t-1", context_id="ctx-other")

    with pytest.raises(InvalidMessageError, match="ctx-other does not match"):
        check_reply(A2A, admitted(message, "alice"), claimed_task("t-1", "alice"))


def test_only_an_admin_may_set_the_participants_and_a_refusal_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    task = claimed_task("t-1", "alice", "bob", admin="alice")
    bob = Participant(id="bob", kind="human", role=ParticipantRole.ADMIN, display_name="bob")
    people = TaskExtensionData(participants=(bob,))

    def setting_participants(by: str) -> AdmittedMessage:
        request = with_task_envelope(send_request("x", task_id="t-1"), people)
        return admitted(request.message, by)

    check_reply(A2A, setting_participants("alice"), task)
    with caplog.at_level(logging.WARNING), pytest.raises(RoleChangeError, match="only an admin"):
        check_reply(A2A, setting_participants("bob"), task)

    (denial,) = [r.getMessage() for r in caplog.records if "access denied" in r.getMessage()]
    assert "'bob'" in denial
    assert "t-1" in denial


# --- record_posts ---------------------------------------------------------------------------


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "tasks.db")
    yield opened
    await opened.close()


async def test_each_post_is_recorded_without_its_text(store: SqliteStore) -> None:
    message = posting("t-1", text=SECRET_TEXT, kind="help_request")
    reply = ChannelMessageData(channel_id="t-1", sender="alice", text="", kind="help_reply")
    message.parts.append(channel_part(reply))

    written = await record_posts(store, admitted(message, "alice"), AT)
    stored = await store.records(RecordKind.CHANNEL_MESSAGE, "t-1")
    with sqlite3.connect(store.path) as peek:
        documents = [row[0] for row in peek.execute("SELECT json FROM channel_messages")]
    peek.close()

    assert stored == written
    assert written == (
        ChannelMessageRecord(
            id=f"{message.message_id}/0",
            task_id="t-1",
            channel_id="t-1",
            sender="alice",
            message_kind="help_request",
            text_chars=len(SECRET_TEXT),
            text_sha256=hashlib.sha256(SECRET_TEXT.encode()).hexdigest(),
            recorded_at=AT,
        ),
        ChannelMessageRecord(
            id=f"{message.message_id}/1",
            task_id="t-1",
            channel_id="t-1",
            sender="alice",
            message_kind="help_reply",
            text_chars=0,
            text_sha256=hashlib.sha256(b"").hexdigest(),
            recorded_at=AT,
        ),
    )
    assert len(documents) == 2
    assert all(SECRET_TEXT not in document for document in documents)


async def test_a_message_without_posts_records_nothing(store: SqliteStore) -> None:
    message = user_message("hi", task_id="t-1")

    assert await record_posts(store, admitted(message, "alice"), AT) == ()
    assert await store.records(RecordKind.CHANNEL_MESSAGE, "t-1") == ()


async def test_the_same_message_recorded_twice_is_kept_once(store: SqliteStore) -> None:
    message = admitted(posting("t-1"), "alice")

    await record_posts(store, message, AT)
    await record_posts(store, message, AT)

    assert len(await store.records(RecordKind.CHANNEL_MESSAGE, "t-1")) == 1

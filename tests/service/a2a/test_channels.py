"""A task's channel at the A2A boundary: a channel message on a new task, to another
channel or as someone else is invalid params and changes nothing; a non-member gets what a
missing task gets (`check_membership`); each post is recorded before delivery, without
its text (`record_channel_messages`)."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from a2a.client import ClientCallContext
from a2a.helpers import new_text_part
from a2a.types import GetTaskRequest, Message, Role, SendMessageRequest, Task
from a2a.utils.errors import InvalidParamsError, TaskNotFoundError
from temporalio.client import Client

from tests.support import (
    ASKS_WHICH_SIZE,
    BINDINGS,
    RunningHarness,
    as_participant,
    collect,
    running_harness,
    send_request,
    states,
    user_message,
    watchers,
    with_task_envelope,
)
from tiny_harness.errors import ChannelMessageError
from tiny_harness.harness.channels.a2a import A2A_CHANNEL_REF, A2AChannel
from tiny_harness.harness.channels.extension import (
    CHANNEL_MEDIA_TYPE,
    ChannelMessageData,
    ChannelMessageKind,
    channel_part,
)
from tiny_harness.harness.persistence.records import ChannelMessageRecord, RecordKind
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.tasks.extension import (
    Participant,
    ParticipantRole,
    TaskExtensionData,
    with_ext,
)
from tiny_harness.harness.tasks.participants import participants_of
from tiny_harness.service.a2a.access import not_found
from tiny_harness.service.a2a.channels import (
    check_membership,
    record_channel_messages,
)

ALICE = as_participant("alice")
BOB = as_participant("bob")
AT = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SECRET_TEXT = "the launch code is 0000, keep it to yourself"


def posting(
    task_id: str,
    *,
    channel_id: str | None = None,
    sender: str = "alice",
    text: str = "can you look at the size chart?",
    kind: ChannelMessageKind = "message",
) -> Message:
    """A message to `task_id` carrying one channel message (to the task's own channel
    unless `channel_id` says otherwise)."""
    message = user_message("see my note", task_id=task_id)
    data = ChannelMessageData(channel_id=channel_id or task_id, sender=sender, text=text, kind=kind)
    message.parts.append(channel_part(data))
    return message


async def send(h: RunningHarness, message: Message, who: ClientCallContext | None) -> list[object]:
    client = await h.client()
    return list(
        await collect(client.send_message(SendMessageRequest(message=message), context=who))
    )


async def started_by_alice(h: RunningHarness) -> Task:
    """A task alice started, parked INPUT_REQUIRED."""
    client = await h.client()
    events = await collect(client.send_message(send_request("order a shirt"), context=ALICE))
    assert states(events)[-1] == "TASK_STATE_INPUT_REQUIRED"
    return events[0].task


# --- admission, over the real boundary ---------------------------------------------------


async def test_a_channel_message_on_a_new_task_is_invalid_params_and_starts_nothing(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        message = posting("a-guessed-id")
        message.task_id = ""
        with pytest.raises(InvalidParamsError, match="existing task's channel"):
            await send(h, message, ALICE)
        workflows = await h.workflow_ids()

    assert workflows == []


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_channel_message_to_another_channel_or_as_someone_else_is_invalid_params(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        task = await started_by_alice(h)
        client = await h.client(binding)
        before = await client.get_task(GetTaskRequest(id=task.id), context=ALICE)
        other_channel = posting(task.id, channel_id="another-task")
        impostor = posting(task.id, sender="bob")
        with pytest.raises(InvalidParamsError, match="must name the channel") as wrong_channel:
            await collect(
                client.send_message(SendMessageRequest(message=other_channel), context=ALICE)
            )
        with pytest.raises(InvalidParamsError, match="sender must be the participant"):
            await collect(client.send_message(SendMessageRequest(message=impostor), context=ALICE))
        after = await client.get_task(GetTaskRequest(id=task.id), context=ALICE)
        records = await h.store.records(RecordKind.CHANNEL_MESSAGE, task.id)

    assert "another-task" not in str(wrong_channel.value)
    assert after.status.state == before.status.state
    assert list(after.history) == list(before.history)
    assert records == ()


async def test_a_bad_channel_part_is_invalid_params_without_its_values(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        task = await started_by_alice(h)
        message = posting(task.id, text=SECRET_TEXT)
        message.parts[-1].data.struct_value["colour"] = SECRET_TEXT
        with pytest.raises(InvalidParamsError, match="unknown field") as refused:
            await send(h, message, ALICE)

    assert SECRET_TEXT not in str(refused.value)


async def test_a_non_member_posting_as_itself_gets_what_a_missing_task_gets(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        task = await started_by_alice(h)
        with pytest.raises(TaskNotFoundError) as missing:
            await send(h, posting("no-such-task", sender="bob"), BOB)
        with pytest.raises(TaskNotFoundError) as foreign:
            await send(h, posting(task.id, sender="bob"), BOB)

    assert str(foreign.value).replace(task.id, "<id>") == str(missing.value).replace(
        "no-such-task", "<id>"
    )


async def test_a_member_posting_to_its_tasks_channel_is_taken(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h:
        task = await started_by_alice(h)
        events = await send(h, posting(task.id, kind="help_reply"), ALICE)
        kept = await h.store.records(RecordKind.CHANNEL_MESSAGE, task.id)

    assert states(events)[-1] == "TASK_STATE_COMPLETED"  # type: ignore[arg-type]
    # Kept by the server before the workflow had it: sender and kind, not the text.
    posts = [r for r in kept if isinstance(r, ChannelMessageRecord)]
    assert [(r.sender, r.message_kind) for r in posts] == [("alice", "help_reply")]
    assert len(kept) == 1


class AdminsOnly(A2AChannel):
    """A replacement channel: only a task's admins may post to it."""

    def members(self, task: Task) -> frozenset[str]:
        return frozenset(p.id for p in participants_of(task) if p.role == ParticipantRole.ADMIN)


async def test_the_server_applies_the_channel_it_is_given_and_registers_the_default(
    temporal_client: Client, tmp_path: Path
) -> None:
    script = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Size?", participant_id: alice}}]
  - text: "Ordered."
"""
    async with running_harness(temporal_client, tmp_path, script, channel=AdminsOnly()) as h:
        client = await h.client()
        bob_watches = with_task_envelope(
            send_request("order a shirt"), TaskExtensionData(participants=watchers("bob"))
        )
        task = (await collect(client.send_message(bob_watches, context=ALICE)))[0].task
        # Bob takes part (the default channel would take his post), but is no admin.
        with pytest.raises(TaskNotFoundError):
            await send(h, posting(task.id, sender="bob"), BOB)
        events = await send(h, posting(task.id, kind="help_reply"), ALICE)
        registered = await h.harness.registry.get(A2A_CHANNEL_REF, A2AChannel)

    assert states(events)[-1] == "TASK_STATE_COMPLETED"  # type: ignore[arg-type]
    assert type(registered) is A2AChannel


# --- check_membership --------------------------------------------------------------------


A2A = A2AChannel()


def claimed_task(task_id: str = "t-1", *members: str) -> Task:
    task = Task(id=task_id, context_id="ctx-1")
    people = tuple(
        Participant(id=m, kind="human", role=ParticipantRole.ADMIN, display_name=m) for m in members
    )
    with_ext(task, TaskExtensionData(participants=people))
    return task


def test_the_channel_members_are_the_tasks_participants_or_else_the_anonymous_one() -> None:
    assert A2A.members(claimed_task("t-1", "alice", "bob")) == {"alice", "bob"}
    assert A2A.members(Task(id="t-1")) == {""}


def test_a_member_may_post_and_a_message_without_channel_parts_is_not_checked() -> None:
    task = claimed_task("t-1", "alice", "bob")

    check_membership(A2A, posting("t-1", sender="bob"), task, "bob")
    check_membership(A2A, user_message("hi", task_id="t-1"), task, "mallory")


@pytest.mark.parametrize(
    ("task", "message", "participant"),
    [
        (claimed_task("t-1", "alice"), posting("t-1", sender="bob"), "bob"),
        (Task(id="t-1"), posting("t-1", sender="bob"), "bob"),
        (claimed_task("t-1", "alice"), posting("t-1", channel_id="t-2"), "alice"),
        (claimed_task("t-1", "alice", "bob"), posting("t-1", sender="bob"), "alice"),
    ],
    ids=["non-member", "unclaimed-task", "other-channel", "sender-not-caller"],
)
def test_a_refused_post_gets_the_text_of_a_missing_task_and_is_logged(
    task: Task, message: Message, participant: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING), pytest.raises(TaskNotFoundError) as refused:
        check_membership(A2A, message, task, participant)

    assert str(refused.value) == str(not_found(task.id))
    assert refused.value.message == not_found(task.id).message
    (denial,) = [r.getMessage() for r in caplog.records if "access denied" in r.getMessage()]
    assert task.id in denial


def test_membership_of_an_invalid_channel_part_raises_channel_message_error() -> None:
    message = posting("t-1")
    message.parts[-1].data.struct_value["text"] = 3

    with pytest.raises(ChannelMessageError):
        check_membership(A2A, message, claimed_task("t-1", "alice"), "alice")


# --- record_channel_messages -------------------------------------------------------------


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "tasks.db")
    yield opened
    await opened.close()


async def test_each_channel_part_is_recorded_without_its_text(store: SqliteStore) -> None:
    message = posting("t-1", text=SECRET_TEXT, kind="help_request")
    reply = ChannelMessageData(channel_id="t-1", sender="alice", text="", kind="help_reply")
    message.parts.append(channel_part(reply))

    written = await record_channel_messages(store, message, "t-1", AT)
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


async def test_a_message_without_channel_parts_records_nothing(store: SqliteStore) -> None:
    message = Message(message_id="m-1", role=Role.ROLE_USER, parts=[new_text_part("hi")])

    assert await record_channel_messages(store, message, "t-1", AT) == ()
    assert await store.records(RecordKind.CHANNEL_MESSAGE, "t-1") == ()


async def test_the_same_message_recorded_twice_is_kept_once(store: SqliteStore) -> None:
    message = posting("t-1")

    await record_channel_messages(store, message, "t-1", AT)
    await record_channel_messages(store, message, "t-1", AT)

    assert len(await store.records(RecordKind.CHANNEL_MESSAGE, "t-1")) == 1


async def test_an_invalid_channel_part_records_nothing(store: SqliteStore) -> None:
    message = posting("t-1")
    message.parts.insert(0, channel_part(ChannelMessageData(channel_id="t-1", sender="a", text="")))
    message.parts[-1].media_type = CHANNEL_MEDIA_TYPE
    message.parts[-1].data.struct_value["extra"] = 1

    with pytest.raises(ChannelMessageError):
        await record_channel_messages(store, message, "t-1", AT)

    assert await store.records(RecordKind.CHANNEL_MESSAGE, "t-1") == ()

"""A task's channel at the A2A boundary: a channel message on a new task, to another
channel or as someone else is invalid params and changes nothing; a non-member gets what a
missing task gets; a member's post is taken. The reply path's own checks and records are
`tests/service/test_replies.py`'s."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from a2a.client import ClientCallContext
from a2a.types import GetTaskRequest, Message, SendMessageRequest, Task
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
from tiny_harness.harness.channels.a2a import A2A_CHANNEL_REF, A2AChannel
from tiny_harness.harness.channels.extension import (
    ChannelMessageData,
    ChannelMessageKind,
    channel_part,
)
from tiny_harness.harness.persistence.records import ChannelMessageRecord, RecordKind
from tiny_harness.harness.tasks.extension import (
    ParticipantRole,
    TaskExtensionData,
)
from tiny_harness.harness.tasks.participants import participants_of

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

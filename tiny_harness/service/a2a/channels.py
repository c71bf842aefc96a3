"""A task's channel at the A2A boundary: who may post to it, and the record kept of each post.

For now a task has one channel, the A2A channel of the task itself (its id is the task's
id); the registered `A2AChannel` says who may post to it (by default the task's
participants; a task nobody claimed: the anonymous participant only). `admission.py` has
already refused a channel message that is invalid, names another channel, or names a
sender other than the caller; what needs the task is here, for the handler to call once
it has the task's snapshot:

    SendMessage to task T ── admit ── snapshot(T) ── check_membership ──┐
                                                                         │
          gateway.send(T, message) ◄── record_channel_messages(store) ◄──┘

A sender who is not a member gets the task-not-found answer a missing task gets, word for
word (abuse case 4). The records keep no text: its length and SHA-256 only.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from a2a.types import Message, Task

from tiny_harness.errors import ChannelMembershipError
from tiny_harness.harness.channels.a2a import A2AChannel
from tiny_harness.harness.channels.extension import ChannelMessageData, channel_messages_in
from tiny_harness.harness.persistence.records import ChannelMessageRecord
from tiny_harness.harness.persistence.store import Store
from tiny_harness.service.a2a.access import deny

CHANNEL_OPERATION = "post to the channel of"
"""How a refused post is named in the denial log line."""


def check_membership(channel: A2AChannel, message: Message, task: Task, participant: str) -> None:
    """Refuse (the uniform task-not-found, logged) a message with a channel message the
    task's channel does not take from `participant` (`A2AChannel.check_posts`).

    Call it on an admitted message to an existing task, with that task's snapshot.
    Raises `ChannelMessageError` for channel parts that do not validate (admission has
    refused those already).
    """
    try:
        channel.check_posts(message, task, participant)
    except ChannelMembershipError as error:
        raise deny(CHANNEL_OPERATION, participant, task.id) from error


async def record_channel_messages(
    store: Store, message: Message, task_id: str, at: datetime
) -> tuple[ChannelMessageRecord, ...]:
    """Write one `ChannelMessageRecord` per channel part of `message` (for the task
    `task_id`, at `at`), in part order; the records written (none without channel parts).

    Call it before the task is given the message, so the record exists before delivery. A
    message sent again (same message id) writes the same entries again.
    Raises `ChannelMessageError` for invalid channel parts, `StoreError` when a write fails.
    """
    records = tuple(
        _record(post, f"{message.message_id}/{ordinal}", task_id, at)
        for ordinal, post in enumerate(channel_messages_in(message))
    )
    for record in records:
        await store.put_record(record)
    return records


def _record(
    post: ChannelMessageData, record_id: str, task_id: str, at: datetime
) -> ChannelMessageRecord:
    return ChannelMessageRecord(
        id=record_id,
        task_id=task_id,
        channel_id=post.channel_id,
        sender=post.sender,
        message_kind=post.kind,
        text_chars=len(post.text),
        text_sha256=hashlib.sha256(post.text.encode("utf-8")).hexdigest(),
        recorded_at=at,
    )

"""The one way an admitted message reaches a task that exists, whichever way it came in.

Both ways in end here: a SendMessage naming a task (the A2A handler, once the access
policy has let the caller see it) and a delivery a pull channel hands the heartbeat.

    admitted ─► check_reply(task) ─┬─ final task                     FinalTaskError
                                   ├─ another context                InvalidMessageError
                                   ├─ a post by a non-member         ChannelMembershipError
                                   └─ participants set by a
                                      non-admin                      RoleChangeError
             ─► send_reply ─► each post recorded (no text) ─► TaskGateway.send

Every refusal leaves the task as it was: nothing is recorded or sent before the checks
pass. The A2A handler answers a non-member with the task-not-found a missing task gets;
the heartbeat counts every refusal as a refused delivery.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime

from a2a.types import Task

from tiny_harness.errors import FinalTaskError, InvalidMessageError, RoleChangeError
from tiny_harness.harness.channels.a2a import A2AChannel
from tiny_harness.harness.channels.extension import ChannelMessageData
from tiny_harness.harness.persistence.records import ChannelMessageRecord
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.tasks.participants import is_admin
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.service.admission import AdmittedMessage
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.payloads import InboxReceipt

logger = logging.getLogger(__name__)


def check_reply(channel: A2AChannel, admitted: AdmittedMessage, task: Task) -> None:
    """Refuse, before anything is recorded or sent, a reply `task` cannot take (see the
    module docstring); `channel` is the task's channel, which says who may post to it."""
    message = admitted.message
    if task.status.state in FINAL:
        raise FinalTaskError(f"task {task.id} is final and takes no more messages")
    if message.context_id and message.context_id != task.context_id:
        raise InvalidMessageError(f"context {message.context_id} does not match the task's context")
    channel.check_posts(admitted.posts, task)
    if admitted.sets_participants and not is_admin(admitted.participant, task):
        logger.warning(
            "access denied: participant %r may not change the participants of task %s",
            admitted.participant,
            task.id,
        )
        raise RoleChangeError("only an admin of the task may change participants")


async def send_reply(gateway: TaskGateway, admitted: AdmittedMessage, at: datetime) -> InboxReceipt:
    """Give a checked reply to its task; its posts are recorded first, so a channel post is
    never delivered unrecorded. Raises what `TaskGateway.send` raises, and `StoreError`."""
    task_id = admitted.message.task_id
    await record_posts(gateway.store, admitted, at)
    return await gateway.send(task_id, admitted.message)


async def record_posts(
    store: Store, admitted: AdmittedMessage, at: datetime
) -> tuple[ChannelMessageRecord, ...]:
    """Write one `ChannelMessageRecord` per post of `admitted`, in part order, and return
    them (none without posts). The records keep no text: its length and SHA-256 only. A
    message sent again (same message id) writes the same records again."""
    message = admitted.message
    records = tuple(
        _record(post, f"{message.message_id}/{ordinal}", message.task_id, at)
        for ordinal, post in enumerate(admitted.posts)
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

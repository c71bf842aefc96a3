"""`admit_message`: what every message must pass before it reaches a task, whichever way in.

Both ways a person's message reaches a task go through it: a SendMessage
(`service/a2a/admission.py` adds the A2A-only checks around it) and a delivery a pull
channel hands the heartbeat (`service/heartbeat/activities.py`). In order:

    role AGENT, no parts                    refused
    credential-shaped values, the secrets   masked (never refused): history never holds them
    an event envelope that does not validate,
      or news of a sub-task on a new task   refused
    an A2UI part that is no client message  refused
    a channel message that does not validate,
      is on a new task, names another channel
      or a sender other than the participant refused

The participant is who the sender says it is (`participant_id` checks the id is one
printable line): the A2A caller's header, or a channel delivery's own metadata. The
admitted message carries it in its metadata, so the workflow knows who sent it. Every
refusal is an `InvalidMessageError` naming what was wrong, never the values.
"""

from __future__ import annotations

from typing import Final

from a2a.types import Message, Role

from tiny_harness.errors import (
    A2uiMessageError,
    ChannelMessageError,
    InvalidMessageError,
    TaskExtensionError,
)
from tiny_harness.harness.a2ui.messages import actions_in
from tiny_harness.harness.channels.extension import channel_messages_in, has_channel_parts
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tasks.extension import PARTICIPANT_METADATA_KEY, envelopes_in

MAX_PARTICIPANT_ID: Final = 200


def participant_id(asserted: str) -> str:
    """`asserted` as a participant id: trimmed; refused unless it is one printable line."""
    trimmed = asserted.strip()
    if len(trimmed) > MAX_PARTICIPANT_ID or not trimmed.isprintable():
        raise InvalidMessageError("the participant id must be one printable line")
    return trimmed


def admit_message(message: Message, participant: str, redactor: Redactor) -> int:
    """Check `message` from `participant` ("" for anonymous) and prepare it in place:
    masked, stamped. How many values were masked; raises `InvalidMessageError`."""
    if message.role == Role.ROLE_AGENT:
        raise InvalidMessageError("a client message must have role ROLE_USER")
    if not message.parts:
        raise InvalidMessageError("a message needs at least one part")
    # Masked before anything reads or records it: the update argument in Temporal history,
    # and so every record after it, never holds the credential.
    redacted = redactor.counted_message(message)
    message.CopyFrom(redacted.value)
    _check_envelopes(message)
    try:
        actions_in(message)
    except A2uiMessageError as error:
        raise InvalidMessageError(error.message) from error
    if participant:
        message.metadata[PARTICIPANT_METADATA_KEY] = participant
    _check_channel_messages(message, participant)
    return redacted.masked


def _check_envelopes(message: Message) -> None:
    """Refuse a message whose envelopes do not validate, or that starts a task with news
    of a sub-task (a status or artifact update, which only a task with sub-tasks takes;
    the workflow checks the sub-task is its own)."""
    try:
        envelopes = envelopes_in(message)
    except TaskExtensionError as error:
        raise InvalidMessageError(error.message) from error
    for envelope in envelopes:
        if envelope.kind != "task" and not message.task_id:
            raise InvalidMessageError(
                f"a {envelope.kind} envelope is news of a sub-task: send it to the "
                "task that delegated the sub-task (set taskId)"
            )


def _check_channel_messages(message: Message, participant: str) -> None:
    """Refuse a message whose channel messages do not validate, or post anywhere but the
    channel of the task the message is for, or as anyone but the participant.

    A new task's channel is its own, whose id the sender cannot know yet: a message that
    starts a task carries no channel message.
    """
    if not has_channel_parts(message):
        return
    if not message.task_id:
        raise InvalidMessageError(
            "a channel message may only be sent to an existing task's channel"
        )
    try:
        posts = channel_messages_in(message)
    except ChannelMessageError as error:
        raise InvalidMessageError(error.message) from error
    for post in posts:
        if post.channel_id != message.task_id:
            raise InvalidMessageError(
                "a channel message must name the channel of the task it is sent to"
            )
        if post.sender != participant:
            raise InvalidMessageError(
                "a channel message's sender must be the participant sending it"
            )

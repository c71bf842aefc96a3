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

The data parts are read here once, into the `AdmittedMessage` everything after admission
takes (`replies.py`: the channel's membership check, the post records, the participants
check). The workflow reads them again for itself: what reaches it through Temporal is not
trusted to have come this way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from a2a.types import Message, Role

from tiny_harness.errors import (
    A2uiMessageError,
    ChannelMessageError,
    InvalidMessageError,
    TaskExtensionError,
)
from tiny_harness.harness.a2ui.messages import Action, actions_in
from tiny_harness.harness.channels.extension import (
    ChannelMessageData,
    channel_messages_in,
    has_channel_parts,
)
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tasks.extension import (
    PARTICIPANT_METADATA_KEY,
    EventEnvelope,
    TaskExtensionData,
    envelopes_in,
)

MAX_PARTICIPANT_ID: Final = 200


@dataclass(frozen=True)
class AdmittedMessage:
    """A message that passed admission, masked and stamped, with its data parts as read."""

    message: Message
    participant: str
    """Who sent it ("" for anonymous); also in the message's metadata."""
    masked: int
    """How many credential-shaped values were masked in it (never what they were)."""
    envelopes: tuple[EventEnvelope, ...]
    actions: tuple[tuple[int, Action], ...]
    """Each A2UI action with the index of its part."""
    posts: tuple[ChannelMessageData, ...]
    """Its channel messages: to its task's channel, each naming `participant` as sender."""

    @property
    def sets_participants(self) -> bool:
        """Whether a task envelope in it sets the task's participants (or their roles)."""
        return any(
            isinstance(e.payload, TaskExtensionData)
            and "participants" in e.payload.model_fields_set
            for e in self.envelopes
        )


def participant_id(asserted: str) -> str:
    """`asserted` as a participant id: trimmed; refused unless it is one printable line."""
    trimmed = asserted.strip()
    if len(trimmed) > MAX_PARTICIPANT_ID or not trimmed.isprintable():
        raise InvalidMessageError("the participant id must be one printable line")
    return trimmed


def admit_message(message: Message, participant: str, redactor: Redactor) -> AdmittedMessage:
    """Check `message` from `participant` ("" for anonymous) and prepare it in place:
    masked, stamped, its data parts read. Raises `InvalidMessageError`."""
    if message.role == Role.ROLE_AGENT:
        raise InvalidMessageError("a client message must have role ROLE_USER")
    if not message.parts:
        raise InvalidMessageError("a message needs at least one part")
    # Masked before anything reads or records it: the update argument in Temporal history,
    # and so every record after it, never holds the credential.
    redacted = redactor.counted_message(message)
    message.CopyFrom(redacted.value)
    envelopes = _envelopes(message)
    try:
        actions = tuple(actions_in(message))
    except A2uiMessageError as error:
        raise InvalidMessageError(error.message) from error
    if participant:
        message.metadata[PARTICIPANT_METADATA_KEY] = participant
    posts = _posts(message, participant)
    return AdmittedMessage(message, participant, redacted.masked, envelopes, actions, posts)


def _envelopes(message: Message) -> tuple[EventEnvelope, ...]:
    """The message's envelopes; refused if one does not validate, or if the message starts
    a task with news of a sub-task (a status or artifact update, which only a task with
    sub-tasks takes; the workflow checks the sub-task is its own)."""
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
    return tuple(envelopes)


def _posts(message: Message, participant: str) -> tuple[ChannelMessageData, ...]:
    """The message's channel messages; refused if one does not validate, posts anywhere
    but the channel of the task the message is for, or as anyone but the participant.

    A new task's channel is its own, whose id the sender cannot know yet: a message that
    starts a task carries no channel message.
    """
    if not has_channel_parts(message):
        return ()
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
    return tuple(posts)

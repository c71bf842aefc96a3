"""`admit`: what a SendMessage must pass before it may reach a task.

In order, each refusal the A2A error the specification names, before any workflow is
touched:

    required fields, historyLength          InvalidParams
    an extension the card does not offer    UnsupportedOperation
    role AGENT, no parts                    InvalidParams
    credential-shaped values                masked (never refused): history never holds them
    an event envelope that does not validate,
      or news of a sub-task on a new task   InvalidParams
    an A2UI part that is no client message  InvalidParams
    a participant id that is not one line   InvalidParams
    a channel message that does not validate,
      is on a new task, names another channel
      or a sender other than the caller     InvalidParams
    a push config on a server without push  PushNotificationNotSupported

The admitted message carries the asserted participant in its metadata, so the workflow
knows who started a task (its admin). Whether a channel message's sender is a member of
the channel needs the task, so the handler checks it (`channels.check_membership`).
"""

from __future__ import annotations

from dataclasses import dataclass

from a2a.server.context import ServerCallContext
from a2a.types import AgentCard, Message, Role, SendMessageRequest, TaskPushNotificationConfig
from a2a.utils.errors import (
    InvalidParamsError,
    PushNotificationNotSupportedError,
    UnsupportedOperationError,
)
from a2a.utils.proto_utils import validate_proto_required_fields
from a2a.utils.task import validate_history_length

from tiny_harness.errors import A2uiMessageError, ChannelMessageError, TaskExtensionError
from tiny_harness.harness.channels.extension import channel_messages_in, has_channel_parts
from tiny_harness.harness.core.task_ext import (
    PARTICIPANT_METADATA_KEY,
    TaskExtensionData,
    envelopes_in,
)
from tiny_harness.harness.security import Redactor
from tiny_harness.interaction.a2ui.messages import actions_in
from tiny_harness.service.a2a.access import asserted_participant


@dataclass(frozen=True)
class Admitted:
    """A message that may go to a task: who sent it, the push config riding on it, and how
    many credential-shaped values were masked in it."""

    message: Message
    participant: str
    push: TaskPushNotificationConfig | None
    masked: int


def admit(
    params: SendMessageRequest,
    context: ServerCallContext,
    *,
    card: AgentCard,
    redactor: Redactor,
    push_offered: bool,
) -> Admitted:
    """Check `params` (see the module docstring); its message, masked and stamped."""
    validate_proto_required_fields(params)
    validate_history_length(params.configuration)
    check_extensions(context, card)
    message = params.message
    if message.role == Role.ROLE_AGENT:
        raise InvalidParamsError(message="a client message must have role ROLE_USER")
    if not message.parts:
        raise InvalidParamsError(message="a message needs at least one part")
    # Masked before anything reads or records it: the update argument in Temporal history,
    # and so every record after it, never holds the credential.
    redacted = redactor.counted_message(message)
    message.CopyFrom(redacted.value)
    _check_envelopes(message)
    try:
        actions_in(message)
    except A2uiMessageError as error:
        raise InvalidParamsError(message=error.message) from error
    participant = asserted_participant(context, message)
    if participant:
        message.metadata[PARTICIPANT_METADATA_KEY] = participant
    _check_channel_messages(message, participant)
    wants_push = params.configuration.HasField("task_push_notification_config")
    if wants_push and not push_offered:
        raise PushNotificationNotSupportedError
    push = params.configuration.task_push_notification_config if wants_push else None
    return Admitted(message, participant, push, redacted.masked)


def check_extensions(context: ServerCallContext, card: AgentCard) -> None:
    """Refuse a request that asks for an extension the card does not offer."""
    offered = {e.uri for e in card.capabilities.extensions}
    unknown = sorted(context.requested_extensions - offered)
    if unknown:
        raise UnsupportedOperationError(
            message=f"extension not supported by this agent: {', '.join(unknown)}"
        )


def sets_participants(message: Message) -> bool:
    """Whether a task envelope in the message sets the task's participants (or roles)."""
    return any(
        isinstance(e.payload, TaskExtensionData) and "participants" in e.payload.model_fields_set
        for e in envelopes_in(message)
    )


def _check_envelopes(message: Message) -> None:
    """Refuse a message whose envelopes do not validate, or that starts a task with news
    of a sub-task (a status or artifact update, which only a task with sub-tasks takes;
    the workflow checks the sub-task is its own)."""
    try:
        envelopes = envelopes_in(message)
    except TaskExtensionError as error:
        raise InvalidParamsError(message=error.message) from error
    for envelope in envelopes:
        if envelope.kind != "task" and not message.task_id:
            raise InvalidParamsError(
                message=f"a {envelope.kind} envelope is news of a sub-task: send it to the "
                "task that delegated the sub-task (set taskId)"
            )


def _check_channel_messages(message: Message, participant: str) -> None:
    """Refuse a message whose channel messages do not validate, or post anywhere but the
    channel of the task the message is for, or as anyone but the caller.

    A new task's channel is its own, whose id the client cannot know yet: a message that
    starts a task carries no channel message.
    """
    if not has_channel_parts(message):
        return
    if not message.task_id:
        raise InvalidParamsError(
            message="a channel message may only be sent to an existing task's channel"
        )
    try:
        posts = channel_messages_in(message)
    except ChannelMessageError as error:
        raise InvalidParamsError(message=error.message) from error
    for post in posts:
        if post.channel_id != message.task_id:
            raise InvalidParamsError(
                message="a channel message must name the channel of the task it is sent to"
            )
        if post.sender != participant:
            raise InvalidParamsError(
                message="a channel message's sender must be the participant sending it"
            )

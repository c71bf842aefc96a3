"""`admit`: what a SendMessage must pass before it may reach a task.

In order, each refusal the A2A error the specification names, before any workflow is
touched:

    required fields, historyLength          InvalidParams
    an extension the card does not offer    UnsupportedOperation
    a participant id that is not one line   InvalidParams
    what every message must pass, whichever
      way it comes in (`admit_message`)     InvalidParams (credentials masked, never refused)
    a push config on a server without push  PushNotificationNotSupported

The admitted message carries the asserted participant in its metadata, so the workflow
knows who started a task (its admin). Whether a channel message's sender is a member of
the channel needs the task, so the reply path checks it (`replies.check_reply`).
"""

from __future__ import annotations

from dataclasses import dataclass

from a2a.server.context import ServerCallContext
from a2a.types import AgentCard, SendMessageRequest, TaskPushNotificationConfig
from a2a.utils.errors import (
    PushNotificationNotSupportedError,
    UnsupportedOperationError,
)
from a2a.utils.proto_utils import validate_proto_required_fields
from a2a.utils.task import validate_history_length

from tiny_harness.errors import InvalidMessageError
from tiny_harness.harness.security import Redactor
from tiny_harness.service.a2a.access import asserted_participant
from tiny_harness.service.admission import AdmittedMessage, admit_message
from tiny_harness.service.refusals import a2a_error


@dataclass(frozen=True)
class AdmittedRequest:
    """A SendMessage that may go to a task: its message as admitted, and the push config
    riding on it."""

    admitted: AdmittedMessage
    push: TaskPushNotificationConfig | None


def admit(
    params: SendMessageRequest,
    context: ServerCallContext,
    *,
    card: AgentCard,
    redactor: Redactor,
    push_offered: bool,
) -> AdmittedRequest:
    """Check `params` (see the module docstring); its message, masked, stamped and read."""
    validate_proto_required_fields(params)
    validate_history_length(params.configuration)
    check_extensions(context, card)
    message = params.message
    participant = asserted_participant(context, message)
    try:
        admitted = admit_message(message, participant, redactor)
    except InvalidMessageError as error:
        raise a2a_error(error) from error
    wants_push = params.configuration.HasField("task_push_notification_config")
    if wants_push and not push_offered:
        raise PushNotificationNotSupportedError
    push = params.configuration.task_push_notification_config if wants_push else None
    return AdmittedRequest(admitted, push)


def check_extensions(context: ServerCallContext, card: AgentCard) -> None:
    """Refuse a request that asks for an extension the card does not offer."""
    offered = {e.uri for e in card.capabilities.extensions}
    unknown = sorted(context.requested_extensions - offered)
    if unknown:
        raise UnsupportedOperationError(
            message=f"extension not supported by this agent: {', '.join(unknown)}"
        )

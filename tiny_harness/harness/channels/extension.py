"""The channel extension: a message posted to a task's channel, carried in an A2A message.

A participant posts to a channel by sending an A2A message whose data part (media type
`CHANNEL_MEDIA_TYPE`) holds `ChannelMessageData`: which channel, who sends, the text and
its kind (a plain message, a request for help, or the reply to one). The harness posts
the same way, as an A2A message event on the task. A channel's members are the task's
participants; `require_member` is the rule, the A2A server decides who the members are.

`ChannelMessageData` is the contract with other agents and renderers: its JSON schema
(`channel_message_schema`) is generated from it and committed under docs/a2a/ext/ (see
`tiny_harness.harness.tasks.extension_schemas`). This module is pure data and helpers: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Final, Literal

from a2a.helpers import new_data_part
from a2a.types import Message, Part
from pydantic import BaseModel, JsonValue, StringConstraints
from pydantic_core import ErrorDetails

from tiny_harness.errors import ChannelMembershipError, ChannelMessageError
from tiny_harness.harness.protocol.data_parts import describe, has_parts, typed_parts
from tiny_harness.harness.protocol.extension_json import EXTENSION_MODEL

CHANNEL_EXTENSION_URI: Final = "https://madarauchiha-314.github.io/tiny-harness/a2a/ext/channel/v1"
CHANNEL_MEDIA_TYPE: Final = "application/vnd.tiny-harness.channel+json"
SCHEMA_FILE: Final = "channel.schema.json"

# Bounds as the task extension's: a hostile part stays small; real messages far below.
_Id = Annotated[str, StringConstraints(min_length=1, max_length=200)]
MAX_TEXT: Final = 10_000
_Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]

# A plain alias, not a `type` statement, so the schema inlines the enum.
ChannelMessageKind = Literal["message", "help_request", "help_reply"]


class ChannelMessageData(BaseModel):
    """A message posted to a task's channel, sent as a data part of media type
    application/vnd.tiny-harness.channel+json in an A2A message."""

    model_config = EXTENSION_MODEL

    channel_id: _Id
    """The channel posted to: for now a task has one channel, whose id is the task's id."""
    sender: _Id
    """The participant posting, as asserted for the call (a member of the channel)."""
    text: _Text
    """What the message says."""
    kind: ChannelMessageKind = "message"
    """"message", "help_request" (the sender asks for help) or "help_reply" (answers one)."""
    to: _Id | None = None
    """The member a help request is addressed to: only that member's reply answers it."""


AGENT_SENDER: Final = "agent"
"""The sender name of the agent's own posts (a help request it makes)."""


def help_request(task_id: str, question: str, to: str | None) -> tuple[Part, ...]:
    """The channel part of a question addressed to participant `to` (none for a question
    to whoever answers first): a help request on the task's channel."""
    if to is None:
        return ()
    data = ChannelMessageData(
        channel_id=task_id,
        sender=AGENT_SENDER,
        text=question[:MAX_TEXT],
        kind="help_request",
        to=to,
    )
    return (channel_part(data),)


def channel_part(data: ChannelMessageData) -> Part:
    """The data part that carries `data` in an A2A message."""
    return new_data_part(data.model_dump(mode="json"), media_type=CHANNEL_MEDIA_TYPE)


def channel_messages_in(message: Message) -> list[ChannelMessageData]:
    """Every channel message in `message`, in part order; other parts are skipped.

    Raises `ChannelMessageError` naming the first part of the channel media type that is
    not a data part holding valid channel message data, and its first problem (never the
    values sent).
    """
    return typed_parts(
        message,
        CHANNEL_MEDIA_TYPE,
        ChannelMessageData,
        noun="a channel message",
        refuse=ChannelMessageError,
        explain=_explain,
    )


def has_channel_parts(message: Message) -> bool:
    """Whether any part of `message` is of the channel media type (valid or not)."""
    return has_parts(message, CHANNEL_MEDIA_TYPE)


def require_member(data: ChannelMessageData, members: Collection[str]) -> None:
    """Raise `ChannelMembershipError` unless the sender of `data` is one of `members` (the
    message names neither the sender nor the members)."""
    if data.sender not in members:
        raise ChannelMembershipError("the sender is not a member of the channel")


def channel_message_schema() -> dict[str, JsonValue]:
    """The JSON schema of `ChannelMessageData`, as committed in docs/a2a/ext/."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{CHANNEL_EXTENSION_URI}/{SCHEMA_FILE}",
        **ChannelMessageData.model_json_schema(),
    }


def _explain(detail: ErrorDetails) -> str:
    # An unknown field's location is the sender's own key, so it is not repeated.
    if detail["type"] == "extra_forbidden":
        return "unknown field; expected only channel_id, sender, text, kind and to"
    return describe(detail)

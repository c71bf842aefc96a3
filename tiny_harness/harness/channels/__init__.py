"""Channels: how messages reach a task's participants and come back from them.

The default medium is A2A itself (`A2AChannel`: who may post to a task's channel). A pull
channel is polled by the heartbeat; what it returns is sent to its task as a
participant's reply (`channel`). The channel extension (`extension`) is the data part a
message posted to a task's channel travels in over A2A. How help is got from a
participant (ask them, or hand them a task) is decided by the rules in `help`."""

from tiny_harness.harness.channels.a2a import A2A_CHANNEL_REF, A2AChannel
from tiny_harness.harness.channels.channel import Channel, ChannelDelivery, channel_ref
from tiny_harness.harness.channels.extension import (
    CHANNEL_EXTENSION_URI,
    CHANNEL_MEDIA_TYPE,
    ChannelMessageData,
    ChannelMessageKind,
    channel_message_schema,
    channel_messages_in,
    channel_part,
    has_channel_parts,
    require_member,
)

__all__ = [
    "A2A_CHANNEL_REF",
    "CHANNEL_EXTENSION_URI",
    "CHANNEL_MEDIA_TYPE",
    "A2AChannel",
    "Channel",
    "ChannelDelivery",
    "ChannelMessageData",
    "ChannelMessageKind",
    "channel_message_schema",
    "channel_messages_in",
    "channel_part",
    "channel_ref",
    "has_channel_parts",
    "require_member",
]

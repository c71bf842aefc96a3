"""Channels: how messages for existing tasks arrive from outside A2A. A pull channel is
polled by the heartbeat; what it returns is sent to its task as a participant's reply."""

from tiny_harness.harness.channels.channel import Channel, ChannelDelivery, channel_ref

__all__ = ["Channel", "ChannelDelivery", "channel_ref"]

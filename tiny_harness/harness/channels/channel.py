"""`Channel`: a way messages for existing tasks reach the harness from outside A2A.

A channel is an entity (kind `channel`, id = the channel's name) a plugin registers. A *push*
channel delivers on its own; a *pull* channel (`pull = True`) is asked by the heartbeat on
every tick (`poll`), and each `ChannelDelivery` it returns is sent to its task exactly as a
client's reply is (the `poll_channels` heartbeat activity). A channel only produces
deliveries: it never talks to Temporal or the store itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from a2a.types import Message
from pydantic import BaseModel, Field

from tiny_harness.harness.entities import Entity, EntityKind, EntityRef
from tiny_harness.harness.protocol.proto_fields import ProtoJson


class ChannelDelivery(BaseModel, frozen=True):
    """One message a channel has for an existing task (`task_id`).

    The message is sent as a participant's reply: it is taken with role USER and the
    delivery's task id, whatever the channel set; an empty `message_id` is given one. A
    channel that may hand over the same message twice gives it a stable `message_id`,
    since a task takes each `message_id` only once.
    """

    task_id: str = Field(min_length=1)
    message: ProtoJson[Message]


class Channel(Entity):
    """The base of every channel; a subclass sets `ref` and, to be polled, `pull = True`.

    Contract of `poll` (pull channels only): return what arrived since the previous poll,
    each delivery once. The heartbeat sends each delivery once and does not hand anything
    back, so what `poll` returned is the channel's to forget. Raising skips the channel
    for this tick only; it is logged, and the other channels are still polled.
    """

    pull: bool = False
    """Whether the heartbeat polls this channel; push channels deliver on their own."""

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.CHANNEL`."""
        return EntityKind.CHANNEL

    @property
    def name(self) -> str:
        """The id the channel is registered under (what logs name it by)."""
        return self.ref.id

    async def poll(self) -> Sequence[ChannelDelivery]:
        """The deliveries that arrived since the previous poll; by default, none."""
        return ()


def channel_ref(name: str) -> EntityRef:
    """The registry reference of the channel registered as `name`."""
    return EntityRef(kind=EntityKind.CHANNEL, id=name)

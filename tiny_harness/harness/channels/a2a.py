"""`A2AChannel`: the default channel medium, A2A itself.

A task's channel has the task's id; its members are the task's participants (for a task
nobody claimed, the anonymous participant alone). A participant posts by sending the task
a message with a channel extension part (`extension.ChannelMessageData`); the agent posts
(a help request, say) as a channel part on the task's status message. The A2A server asks
the A2A channel registered under `A2A_CHANNEL_REF` (the built-in one unless code replaced
it: `registry.add(..., override=True)` with a subclass) whether a post may go to a task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from a2a.types import Task

from tiny_harness.harness.channels.channel import Channel, channel_ref
from tiny_harness.harness.channels.extension import ChannelMessageData, require_member
from tiny_harness.harness.entities import EntityRef
from tiny_harness.harness.tasks.participants import members_of

A2A_CHANNEL_REF: Final[EntityRef] = channel_ref("a2a")
"""Where the A2A channel is registered."""


class A2AChannel(Channel):
    """Channels over A2A messages; push (never polled: posts arrive as SendMessage)."""

    def __init__(self) -> None:
        self.ref = A2A_CHANNEL_REF

    def members(self, task: Task) -> frozenset[str]:
        """The members of the task's channel: whoever takes part in the task."""
        return members_of(task)

    def check_posts(self, posts: Sequence[ChannelMessageData], task: Task) -> None:
        """Refuse (`ChannelMembershipError`) posts to `task`'s channel by someone not a
        member. Admission has already made sure each post names this channel and its
        sender; a subclass may refuse more."""
        members = self.members(task)
        for post in posts:
            require_member(post, members)

"""`Channel` and `ChannelDelivery`: a channel's defaults, the delivery model, and how the
`Harness` lists registered channels."""

from __future__ import annotations

import pytest
from a2a.types import Message, Part, Role
from pydantic import ValidationError

import tiny_harness.harness.channels as channels
from tiny_harness.harness.channels import Channel, ChannelDelivery, channel_ref
from tiny_harness.harness.entities import EntityKind, EntityRef, Registry, RegistryEntry
from tiny_harness.harness.hooks import HookManager
from tiny_harness.harness.hooks.providers import default_providers
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.harness.skills import SkillCatalog

pytestmark = pytest.mark.timeout(10)


class PlainChannel(Channel):
    """A channel that overrides nothing but its ref."""

    def __init__(self, name: str) -> None:
        self.ref = channel_ref(name)


class PullChannel(PlainChannel):
    pull = True


def text_message(text: str) -> Message:
    return Message(message_id="m-1", role=Role.ROLE_USER, parts=[Part(text=text)])


def test_a_channel_is_a_push_channel_unless_it_says_pull() -> None:
    assert PlainChannel("mail").pull is False
    assert PullChannel("inbox").pull is True


async def test_a_channel_polls_nothing_by_default() -> None:
    assert list(await PlainChannel("mail").poll()) == []


def test_a_channel_is_a_channel_entity_named_by_its_id() -> None:
    channel = PlainChannel("mail")

    assert channel.kind is EntityKind.CHANNEL
    assert channel.ref == EntityRef(kind=EntityKind.CHANNEL, id="mail")
    assert channel.name == "mail"


def test_a_delivery_round_trips_its_message_as_protojson() -> None:
    delivery = ChannelDelivery(task_id="t-1", message=text_message("hello"))

    dumped = delivery.model_dump(mode="json")
    assert dumped == {
        "task_id": "t-1",
        "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]},
    }
    assert ChannelDelivery.model_validate(dumped) == delivery


def test_a_delivery_is_frozen_and_names_a_task() -> None:
    delivery = ChannelDelivery(task_id="t-1", message=text_message("hello"))

    with pytest.raises(ValidationError):
        delivery.task_id = "t-2"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="task_id"):
        ChannelDelivery(task_id="", message=text_message("hello"))


def test_a_delivery_refuses_a_message_that_is_not_one() -> None:
    with pytest.raises(ValidationError, match="not a valid Message"):
        ChannelDelivery.model_validate({"task_id": "t-1", "message": {"nope": 1}})


async def test_the_harness_lists_every_registered_channel_push_and_pull() -> None:
    registry = Registry()
    harness = Harness(
        registry=registry,
        hooks=HookManager(),
        providers=default_providers(),
        skills=SkillCatalog(),
        system_prompt="",
    )
    assert await harness.channels() == ()

    mail, inbox = PlainChannel("mail"), PullChannel("inbox")
    for channel in (mail, inbox):
        await registry.add(RegistryEntry(ref=channel.ref, instance=channel))

    assert await harness.channels() == (inbox, mail)


def test_the_package_exports_exactly_its_public_names() -> None:
    public = {name for name in vars(channels) if not name.startswith("_")}

    assert set(channels.__all__) == public - {"a2a", "channel", "extension", "help"}
    assert sorted(channels.__all__) == [
        "A2AChannel",
        "A2A_CHANNEL_REF",
        "CHANNEL_EXTENSION_URI",
        "CHANNEL_MEDIA_TYPE",
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

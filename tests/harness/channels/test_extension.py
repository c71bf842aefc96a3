"""The channel extension: channel message data in a message's data part, its validation
(errors that never repeat the values sent), membership, and the committed schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from a2a.helpers import new_data_part, new_text_part
from a2a.types import Message, Part, Role
from pydantic import JsonValue, ValidationError

from tiny_harness.errors import ChannelMembershipError, ChannelMessageError
from tiny_harness.harness.channels.extension import (
    CHANNEL_EXTENSION_URI,
    CHANNEL_MEDIA_TYPE,
    ChannelMessageData,
    channel_message_schema,
    channel_messages_in,
    channel_part,
    has_channel_parts,
    require_member,
)
from tiny_harness.harness.tasks.extension import EVENT_MEDIA_TYPE
from tiny_harness.harness.tasks.extension_schemas import SCHEMA_DIR, drift, main, rendered_schemas

pytestmark = pytest.mark.timeout(10)

SECRET_LOOKING = "hunter2-value-never-echoed"


def message_of(*parts: Part) -> Message:
    return Message(message_id="m-1", role=Role.ROLE_USER, parts=list(parts))


def post(**fields: str) -> ChannelMessageData:
    values = {"channel_id": "t-1", "sender": "alice", "text": "can you look?"} | fields
    return ChannelMessageData.model_validate(values)


def refusal(*parts: Part) -> ChannelMessageError:
    with pytest.raises(ChannelMessageError) as caught:
        channel_messages_in(message_of(*parts))
    return caught.value


def test_channel_message_round_trips_through_a_data_part() -> None:
    sent = post(kind="help_request")
    message = message_of(new_text_part("hello"), channel_part(sent))

    received = channel_messages_in(Message.FromString(message.SerializeToString()))

    assert received == [sent]
    assert message.parts[1].media_type == CHANNEL_MEDIA_TYPE


def test_kind_defaults_to_a_plain_message() -> None:
    assert post().kind == "message"


def test_every_channel_part_is_found_in_part_order_and_other_parts_skipped() -> None:
    first, second = post(text="one"), post(text="two", kind="help_reply")
    envelope = new_data_part({"kind": "task", "payload": {}}, media_type=EVENT_MEDIA_TYPE)
    message = message_of(
        channel_part(first), new_text_part("between"), envelope, channel_part(second)
    )

    assert channel_messages_in(message) == [first, second]
    assert has_channel_parts(message)


def test_a_message_without_channel_parts_has_none() -> None:
    message = message_of(new_text_part("hello"))

    assert channel_messages_in(message) == []
    assert not has_channel_parts(message)


def test_the_media_type_is_matched_without_parameters_or_case() -> None:
    part = channel_part(post())
    part.media_type = "Application/VND.tiny-harness.channel+json; charset=utf-8"

    assert channel_messages_in(message_of(part)) == [post()]


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"channel_id": "t-1", "sender": "alice"}, "text: Field required"),
        (
            {"channel_id": "t-1", "sender": "alice", "text": "x", SECRET_LOOKING: 1},
            "unknown field",
        ),
        ({"channel_id": "t-1", "sender": "", "text": "x"}, "sender: String should have at"),
        ({"channel_id": "c" * 201, "sender": "a", "text": "x"}, "channel_id: String should"),
        ({"channel_id": "t-1", "sender": "a", "text": "x" * 10_001}, "text: String should"),
        ({"channel_id": "t-1", "sender": "a", "text": 3}, "text: Input should be a valid"),
        (
            {"channel_id": "t-1", "sender": "a", "text": "x", "kind": SECRET_LOOKING},
            "kind: Input should be",
        ),
        ([SECRET_LOOKING], "expected a JSON object"),
    ],
    ids=[
        "missing",
        "extra",
        "empty-sender",
        "long-id",
        "long-text",
        "not-text",
        "kind",
        "not-object",
    ],
)
def test_invalid_channel_data_is_refused_naming_the_part_not_the_values(
    data: JsonValue, problem: str
) -> None:
    error = refusal(new_text_part("hi"), new_data_part(data, media_type=CHANNEL_MEDIA_TYPE))

    assert error.message.startswith(f"part 1 ({CHANNEL_MEDIA_TYPE}): ")
    assert problem in error.message
    assert SECRET_LOOKING not in error.message
    assert "x" * 201 not in error.message
    assert error.code == "channel.message_invalid"


def test_a_channel_part_that_is_not_data_is_refused() -> None:
    part = new_text_part(SECRET_LOOKING)
    part.media_type = CHANNEL_MEDIA_TYPE

    error = refusal(part)

    assert error.message == f"part 0 ({CHANNEL_MEDIA_TYPE}): a channel message must be a data part"


def test_the_model_itself_refuses_extra_fields_and_is_frozen() -> None:
    with pytest.raises(ValidationError):
        ChannelMessageData.model_validate({"channel_id": "t", "sender": "a", "text": "", "x": 1})
    with pytest.raises(ValidationError):
        post().text = "changed"


def test_a_member_passes_and_a_stranger_is_refused_without_naming_anyone() -> None:
    require_member(post(sender="alice"), frozenset({"alice", "bob"}))

    with pytest.raises(ChannelMembershipError) as refused:
        require_member(post(sender="mallory"), frozenset({"alice", "bob"}))

    assert isinstance(refused.value, ChannelMessageError)
    assert refused.value.code == "channel.not_a_member"
    assert "mallory" not in refused.value.message
    assert "alice" not in refused.value.message


def test_the_schema_carries_its_id_under_the_extension_uri_and_refuses_extras() -> None:
    schema = channel_message_schema()

    assert schema["$id"] == f"{CHANNEL_EXTENSION_URI}/channel.schema.json"
    assert schema["additionalProperties"] is False


def test_the_committed_schema_is_what_the_model_generates() -> None:
    assert "channel.schema.json" in rendered_schemas()
    assert drift(SCHEMA_DIR) == [], "regenerate with task_ext_schemas --write"


def test_the_schema_check_catches_a_changed_channel_schema(tmp_path: Path) -> None:
    assert main(["--write", "--dir", str(tmp_path)]) == 0
    (tmp_path / "channel.schema.json").write_text("{}\n", encoding="utf-8")

    assert main(["--check", "--dir", str(tmp_path)]) == 1
    assert any("channel.schema.json" in problem for problem in drift(tmp_path))


def test_the_committed_schema_accepts_a_post_and_refuses_what_the_model_refuses() -> None:
    schema = json.loads((SCHEMA_DIR / "channel.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    good = post(kind="help_reply").model_dump(mode="json")

    validator.validate(good)
    validator.validate({"channelId": "t-1", "sender": "a", "text": ""})
    for bad in (
        {**good, "extra": 1},
        {**good, "kind": "shout"},
        {**good, "sender": ""},
        {"channelId": "t-1", "sender": "a"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(bad)

"""The agent card: both bindings, A2A 1.0, streaming, push when offered, and a card clients
can parse."""

from __future__ import annotations

from a2a.client.card_resolver import parse_agent_card
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.types import AgentCard
from google.protobuf import json_format

from tiny_harness.harness.a2ui.messages import A2UI_EXTENSION_URI, BASIC_CATALOG_ID
from tiny_harness.harness.agents.remote import SUPPORTED_EXTENSIONS
from tiny_harness.harness.channels.extension import CHANNEL_EXTENSION_URI
from tiny_harness.harness.tasks.extension import TASK_EXTENSION_URI
from tiny_harness.service.a2a.card import build_agent_card

BASE_URL = "http://127.0.0.1:8080"


def card() -> AgentCard:
    return build_agent_card(BASE_URL, model="demo", push=True)


def test_card_advertises_jsonrpc_at_root_and_rest_under_rest() -> None:
    interfaces = {i.protocol_binding: i for i in card().supported_interfaces}

    assert set(interfaces) == {"JSONRPC", "HTTP+JSON"}
    assert interfaces["JSONRPC"].url == BASE_URL + "/"
    assert interfaces["HTTP+JSON"].url == BASE_URL + "/rest"


def test_every_interface_speaks_protocol_version_1_0() -> None:
    assert [i.protocol_version for i in card().supported_interfaces] == ["1.0", "1.0"]


def test_jsonrpc_is_the_preferred_interface() -> None:
    # The first entry of supported_interfaces is the one clients prefer.
    assert card().supported_interfaces[0].protocol_binding == "JSONRPC"


def test_card_offers_streaming_and_push_notifications_but_no_extended_card() -> None:
    capabilities = card().capabilities

    assert capabilities.streaming is True
    assert capabilities.push_notifications is True
    assert not capabilities.extended_agent_card


def test_a_server_without_outbound_push_says_so_on_its_card() -> None:
    capabilities = build_agent_card(BASE_URL, model="demo", push=False).capabilities

    assert capabilities.HasField("push_notifications")
    assert capabilities.push_notifications is False


def test_card_has_at_least_one_described_skill() -> None:
    skills = card().skills

    assert len(skills) >= 1
    for skill in skills:
        assert skill.id
        assert skill.name
        assert skill.description


def test_card_names_itself_and_the_model() -> None:
    built = build_agent_card(BASE_URL, model="my-model", push=True)

    assert built.name == "tiny-harness"
    assert built.version
    assert "my-model" in built.description
    assert list(built.default_input_modes) == ["text/plain"]


def test_card_round_trips_through_the_sdk_wire_form() -> None:
    built = card()

    wire = agent_card_to_dict(built)

    assert wire["supportedInterfaces"][0]["url"] == BASE_URL + "/"
    assert wire["capabilities"]["streaming"] is True
    assert parse_agent_card(wire) == built


def test_card_offers_the_task_channel_and_a2ui_extensions_none_required() -> None:
    extensions = {e.uri: e for e in card().capabilities.extensions}

    assert list(extensions) == [TASK_EXTENSION_URI, CHANNEL_EXTENSION_URI, A2UI_EXTENSION_URI]
    assert not any(e.required for e in extensions.values())
    assert all(e.description for e in extensions.values())
    # As a client of other agents the harness speaks the first two; A2UI is for renderers.
    assert set(extensions) - {A2UI_EXTENSION_URI} <= SUPPORTED_EXTENSIONS
    params = json_format.MessageToDict(extensions[A2UI_EXTENSION_URI].params)
    assert params == {"supportedCatalogIds": [BASIC_CATALOG_ID], "acceptsInlineCatalogs": False}

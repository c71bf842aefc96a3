"""Delegation to an agent that requires a credential: the parent harness holds a key of the
child harness (`[[agents]] auth`, the key read from the environment) and presents it on
every call its stand-in makes; the key is in no history, no store and no log line. An agent
whose card the configured credential does not fit is refused with the reason."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from temporalio.client import Client

from tests.harness.agents.plain_agent import plain_agent, plain_card, with_bearer_scheme
from tests.support import (
    collect,
    delegating_to,
    running_harness,
    send_request,
    states,
)
from tiny_harness.errors import ConfigError
from tiny_harness.harness.agents.remote import RemoteAgent, card_refusal
from tiny_harness.harness.agents.spec import AgentAuth, RemoteAgentSpec
from tiny_harness.service.a2a.authentication import ApiKeys, key_digest, new_key
from tiny_harness.service.a2a.card import build_agent_card

CHILD = "turns:\n  - text: ordered, size M\n"
PARENT = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: shop, name: shirt, goal: order a shirt}}]
  - when: "^order"
    text: "Waiting for the sub-task."
  - when: "COMPLETED"
    text: "All done: the shirt is ordered."
"""
VARIABLE = "SHOP_KEY_FOR_TESTS"


async def test_a_sub_task_on_an_agent_that_requires_a_key_completes_and_the_key_stays_out(
    temporal_client: Client,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    key = new_key()
    monkeypatch.setenv(VARIABLE, key)
    keys = ApiKeys([(key_digest(key), "the-parent-harness")])
    async with (
        running_harness(
            temporal_client, tmp_path / "child", CHILD, auth=keys, auth_mode="api_key"
        ) as child,
        running_harness(temporal_client, tmp_path / "parent", PARENT) as parent,
        delegating_to(parent, "shop", child.url, auth={"scheme": "bearer", "token_env": VARIABLE}),
    ):
        client = await parent.client()
        events = await collect(client.send_message(send_request("order a shirt")))
        histories = [
            (await h.temporal.get_workflow_handle(wf).fetch_history()).to_json()
            for h in (parent, child)
            for wf in await h.workflow_ids()
        ]
        stored = [h.store.path.read_bytes() for h in (parent, child)]

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    assert len(histories) >= 3  # the parent, its stand-in, the child's task
    assert not any(key in history for history in histories)
    assert not any(key.encode() in data for data in stored)
    assert not any(key in record.getMessage() for record in caplog.records)


PLAIN_PARENT = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: plain, name: echo, goal: echo it}}]
  - when: "^echo"
    text: "Waiting for the sub-task."
  - when: "COMPLETED"
    text: "The plain agent answered."
"""


async def test_a_sub_task_on_a_plain_agent_that_requires_a_bearer_token_completes(
    temporal_client: Client,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    token = new_key()
    monkeypatch.setenv(VARIABLE, token)
    card = lambda url: with_bearer_scheme(plain_card(url))  # noqa: E731
    async with (
        plain_agent(card=card, bearer=token) as remote,
        running_harness(temporal_client, tmp_path, PLAIN_PARENT) as parent,
        delegating_to(
            parent, "plain", remote.url, auth={"scheme": "bearer", "token_env": VARIABLE}
        ),
    ):
        client = await parent.client()
        events = await collect(client.send_message(send_request("echo this")))
        histories = [
            (await parent.temporal.get_workflow_handle(wf).fetch_history()).to_json()
            for wf in await parent.workflow_ids()
        ]
        stored = parent.store.path.read_bytes()

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    assert remote.rpc_calls("SendStreamingMessage") or remote.rpc_calls("SendMessage")
    assert not any(token in history for history in histories)
    assert token.encode() not in stored
    # The plain agent runs in this process: its own executor logs each call's headers at
    # DEBUG (a2a.server.agent_execution, which the harness does not use). What it logs is
    # the remote side's business; the harness's own records must not hold the token.
    ours = [r for r in caplog.records if not r.name.startswith("a2a.server.agent_execution")]
    assert not any(token in record.getMessage() for record in ours)


def test_a_credential_that_fits_no_scheme_of_the_card_is_refused_with_the_reason() -> None:
    card = build_agent_card("http://127.0.0.1:1", model="m", push=False, auth="api_key")
    bearer = AgentAuth(scheme="bearer", token_env=VARIABLE)
    other_header = AgentAuth(scheme="api_key", key_env=VARIABLE, header="X-Shop-Key")
    right_header = AgentAuth(scheme="api_key", key_env=VARIABLE, header="x-api-key")
    jwt_card = build_agent_card("http://127.0.0.1:1", model="m", push=False, auth="jwt")
    api_key_only = AgentAuth(scheme="api_key", key_env=VARIABLE)

    assert card_refusal(card, bearer) is None  # the key card takes a bearer too
    assert card_refusal(card, right_header) is None
    refused = card_refusal(card, other_header)
    assert refused is not None
    assert "does not fit" in refused
    assert "api_key, bearer" in refused
    assert card_refusal(jwt_card, api_key_only) is not None
    assert card_refusal(card) == "its card declares security schemes (api_key, bearer)"
    assert card_refusal(plain_card("http://127.0.0.1:1"), bearer) is None


async def test_a_credential_missing_from_the_environment_stops_the_start_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    card = build_agent_card("http://127.0.0.1:1", model="m", push=False, auth="api_key")
    spec = RemoteAgentSpec.model_validate(
        {
            "id": "shop",
            "url": "http://127.0.0.1:1",
            "auth": {"scheme": "bearer", "token_env": VARIABLE},
        }
    )

    with pytest.raises(ConfigError) as caught:
        await RemoteAgent.connect(spec, card=card)

    assert caught.value.variable == VARIABLE
    assert VARIABLE in caught.value.message


def test_an_auth_table_without_its_variable_is_refused() -> None:
    with pytest.raises(ValueError, match="needs token_env"):
        AgentAuth(scheme="bearer")

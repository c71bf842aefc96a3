"""Harnesses of one process know each other's cards: announced at start, used instead of a
fetch by a harness configured to delegate to another one, withdrawn at the end."""

from __future__ import annotations

import base64
import os
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.types import StreamResponse, TaskState
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from tests.support import collect, send_request, states
from tiny_harness.config import Settings
from tiny_harness.harness.agents.turns import RemoteTurn
from tiny_harness.harness.models.scripted import ScriptedLLM, parse_script
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.plugins.install import build_harness
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.delegates import register_agents
from tiny_harness.service.http import free_port
from tiny_harness.service.local_cards import LOCAL_CARDS, LocalCards
from tiny_harness.service.runtime import RunningHarness, open_harness

SHOP = "turns:\n  - text: the shirt is ordered\n"
BUYER = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: shop, name: shirt, goal: order}}]
  - when: "^buy"
    text: "Waiting for the shop."
  - when: "COMPLETED"
    text: "Bought."
"""


def test_an_announced_card_answers_for_its_urls_until_withdrawn() -> None:
    cards = LocalCards()
    card = build_agent_card("http://127.0.0.1:9", model="m", push=True)
    withdraw = cards.announce(("http://127.0.0.1:9", "http://peer.test/base/"), card)

    assert cards.card_at("http://127.0.0.1:9/") is card
    assert cards.card_at("http://peer.test/base") is card
    assert cards.card_at("http://127.0.0.1:10") is None
    withdraw()
    assert cards.card_at("http://127.0.0.1:9") is None


async def test_an_agent_at_an_announced_url_takes_that_card_without_fetching(
    tmp_path: Path,
) -> None:
    nobody = f"http://127.0.0.1:{free_port()}"  # nothing listens: a fetch would fail
    card = build_agent_card(nobody, model="peer model", push=True)
    settings = Settings.model_validate({"agents": [{"id": "peer", "url": nobody}]})
    store = SqliteStore(tmp_path / "store.sqlite3")
    llm = ScriptedLLM(parse_script("turns: []", source="<test>"))
    harness: Harness
    harness, _ = await build_harness(llm=llm, store=store, plugins=(), data_dir=tmp_path)
    withdraw = LOCAL_CARDS.announce((nobody,), card)
    try:
        async with AsyncExitStack() as stack:
            own = build_agent_card(settings.advertised_url, model="own", push=True)
            await register_agents(harness, settings, own, stack)
            peer = await harness.agent("peer")
            ids = harness.agent_ids()
    finally:
        withdraw()
        await harness.close()
        await store.close()

    assert ids == ("peer", "self")
    assert peer.card is card


async def send(running: RunningHarness, text: str) -> list[StreamResponse]:
    async with httpx.AsyncClient(timeout=30) as http:
        client = await ClientFactory(ClientConfig(httpx_client=http)).create_from_url(running.url)
        return await collect(client.send_message(send_request(text)))


def settings_for(
    env: WorkflowEnvironment, tmp_path: Path, name: str, script: str, agents: list[object]
) -> Settings:
    script_file = tmp_path / f"{name}.yaml"
    script_file.write_text(script)
    return Settings.model_validate(
        {
            "data_dir": tmp_path / name,
            "temporal": {
                "address": env.client.service_client.config.target_host,
                "task_queue": f"{name}-{tmp_path.name}",
            },
            "server": {"host": "127.0.0.1", "port": free_port()},
            "model": {"script": script_file},
            "heartbeat": {"enabled": False},
            "push_key": base64.b64encode(os.urandom(32)).decode(),
            "agents": agents,
        }
    )


async def test_two_harnesses_in_one_process_delegate_with_the_card_built_at_start(
    temporal_env: WorkflowEnvironment, temporal_client: Client, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        shop_settings = settings_for(temporal_env, tmp_path, "shop", SHOP, [])
        shop = await open_harness(shop_settings, stack)
        announced = LOCAL_CARDS.card_at(shop.url)
        buyer_settings = settings_for(
            temporal_env, tmp_path, "buyer", BUYER, [{"id": "shop", "url": shop.url}]
        )
        buyer = await open_harness(buyer_settings, stack)
        events = await send(buyer, "buy a shirt")
        task_id = events[0].task.id
        final = await temporal_client.get_workflow_handle(
            f"{task_id}.sub-1", result_type=RemoteTurn
        ).result()
    after = LOCAL_CARDS.card_at(shop.url)

    assert announced is not None
    assert announced.supported_interfaces[0].url == shop.url + "/"
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    # The shop answers in an artifact; the buyer's stand-in carries its text.
    assert (final.state, final.text) == (TaskState.TASK_STATE_COMPLETED, "the shirt is ordered")
    assert after is None  # withdrawn when the shop closed

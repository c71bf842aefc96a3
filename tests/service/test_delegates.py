"""Which agents a harness registers at start: itself, and every usable configured agent."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from tests.harness.agents.plain_agent import plain_agent
from tiny_harness.config import Settings
from tiny_harness.harness.models.scripted import ScriptedLLM, parse_script
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.plugins.install import build_harness
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.delegates import register_agents
from tiny_harness.service.http import free_port


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    store = SqliteStore(tmp_path / "store.sqlite3")
    llm = ScriptedLLM(parse_script("turns: []", source="<test>"))
    built, _ = await build_harness(llm=llm, store=store, plugins=(), data_dir=tmp_path)
    try:
        yield built
    finally:
        await built.close()
        await store.close()


async def test_self_and_configured_agents_are_registered_and_a_bad_one_left_out(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    own_port = free_port()
    dead_port = free_port()
    async with plain_agent() as remote, AsyncExitStack() as stack:
        settings = Settings.model_validate(
            {
                "server": {"port": own_port},
                "agents": [
                    {"id": "plain", "url": remote.url},
                    {"id": "gone", "url": f"http://127.0.0.1:{dead_port}"},
                    # Our own address: nothing listens yet, so the card is built, not fetched.
                    {"id": "again", "url": f"http://127.0.0.1:{own_port}"},
                ],
            }
        )
        card = build_agent_card(settings.advertised_url, model="scripted", push=True)
        with caplog.at_level(logging.INFO):
            await register_agents(harness, settings, card, stack)
        ids = harness.agent_ids()
        again = await harness.agent("again")

    assert ids == ("again", "plain", "self")
    assert again.card.name == card.name
    assert any("agent gone left out: agent.unavailable" in r.getMessage() for r in caplog.records)
    assert "plain" in harness.roster
    assert remote.url not in harness.roster

"""The agents a harness can delegate to: itself (`self`) and the configured `[[agents]]`.

Every process that runs a worker registers them, because the stand-ins' activities look
agents up by id. The harness's own card is built from its settings (nothing is fetched at
start, and a configured agent at the harness's own address gets that card too); any other
configured agent's card is fetched and validated, and an agent that cannot be
used is left out with an ERROR naming why, so one bad entry never stops the server.
"""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack

from a2a.types import AgentCard

from tiny_harness.config import RemoteAgentSpec, Settings
from tiny_harness.errors import AgentError
from tiny_harness.harness.agents.agent import Agent
from tiny_harness.harness.agents.remote import RemoteAgent, card_refusal
from tiny_harness.harness.agents.roster import render_roster
from tiny_harness.harness.entities import RegistryEntry
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.service.local_cards import LOCAL_CARDS

logger = logging.getLogger(__name__)


async def register_agents(
    harness: Harness, settings: Settings, own_card: AgentCard, stack: AsyncExitStack
) -> None:
    """Register `self` and every usable configured agent; fill the context's roster."""
    base = str(settings.server.base_url).rstrip("/") if settings.server.base_url else None
    agents: list[Agent] = []
    if card_refusal(own_card) is None:
        me = await RemoteAgent.connect(
            RemoteAgentSpec.for_self(base or settings.advertised_url), card=own_card
        )
        agents.append(me)
    else:
        # A task delegated to this harness belongs to its parent task's id; with callers
        # authenticated it would belong to a credential this harness does not hold.
        logger.info("agents: self is left out: this server requires a credential")
    own_urls = {settings.advertised_url, base}
    for spec in settings.agents:
        # The server is not listening yet: an agent at our own address gets our card, and
        # one at another harness of this process gets the card that harness announced.
        url = str(spec.url).rstrip("/")
        card = own_card if url in own_urls else LOCAL_CARDS.card_at(url)
        try:
            agents.append(await RemoteAgent.connect(spec, card=card))
        except AgentError as error:
            logger.error("agent %s left out: %s: %s", spec.id, error.code, error.message)
    for agent in agents:
        stack.push_async_callback(agent.aclose)
        await harness.registry.add(RegistryEntry(ref=agent.ref, instance=agent))
    harness.roster = render_roster(agents)
    logger.info("agents: %s", ", ".join(sorted(agent.agent_id for agent in agents)) or "none")

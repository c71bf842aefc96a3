"""The agents roster: what the model is told about the agents it may delegate to.

Card text is the remote agent's, not ours, so it is made safe to place in the context
window: every field is flattened to one line, `<` and `>` become the single angle quotation
marks U+2039 and U+203A (no card can open or close a tag of the window), and long fields are
cut with `…`, each cut logged once at WARNING. The roster never carries an agent's URL.
This module renders text only; it makes no call to any agent.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Final

from tiny_harness.errors import UnknownAgentError
from tiny_harness.harness.agents.agent import Agent

__all__ = [
    "LEFT_ANGLE",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NAME_CHARS",
    "MAX_SKILLS",
    "MAX_SKILL_DESCRIPTION_CHARS",
    "RIGHT_ANGLE",
    "render_roster",
    "unknown_agent",
]

logger = logging.getLogger(__name__)

MAX_NAME_CHARS: Final = 80
"""The longest agent or skill name the roster shows, the `…` included."""
MAX_DESCRIPTION_CHARS: Final = 500
"""The longest agent description the roster shows, the `…` included."""
MAX_SKILL_DESCRIPTION_CHARS: Final = 200
"""The longest skill description the roster shows, the `…` included."""
MAX_SKILLS: Final = 10
"""How many of an agent's skills (the first, in card order) the roster lists."""

LEFT_ANGLE: Final = "\u2039"
"""What `<` becomes: SINGLE LEFT-POINTING ANGLE QUOTATION MARK."""
RIGHT_ANGLE: Final = "\u203a"
"""What `>` becomes: SINGLE RIGHT-POINTING ANGLE QUOTATION MARK."""

_ELLIPSIS: Final = "…"
_ANGLES: Final = str.maketrans({"<": LEFT_ANGLE, ">": RIGHT_ANGLE})


def render_roster(agents: Sequence[Agent]) -> str:
    """The agents section of the context window, sorted by id; empty for no agents.

    - id: search
      name: Search agent
      description: Finds pages.
      skills:
      - Web search: Searches the web.
    """
    blocks = [_agent_block(agent) for agent in sorted(agents, key=lambda a: a.agent_id)]
    return "\n".join(blocks)


def unknown_agent(agent_id: str, known: Sequence[str]) -> UnknownAgentError:
    """The `agent.unknown` error for a delegation to `agent_id`, listing the valid ids.

    The id comes from the model, so the message shows it on one line and cut to 80
    characters."""
    shown = _clip(_one_line(agent_id), MAX_NAME_CHARS)
    valid = ", ".join(sorted(known))
    what = "no agent id was given" if not agent_id.strip() else f"no agent {shown!r} is registered"
    listing = f"valid agent ids: {valid}" if valid else "there are no agents to delegate to"
    return UnknownAgentError(f"{what}; {listing}", agent=agent_id)


def _agent_block(agent: Agent) -> str:
    card = agent.card
    agent_id = _one_line(agent.agent_id)
    lines = [f"- id: {agent_id}"]
    name = _field(card.name, MAX_NAME_CHARS, agent_id, "name")
    if name:
        lines.append(f"  name: {name}")
    description = _field(card.description, MAX_DESCRIPTION_CHARS, agent_id, "description")
    if description:
        lines.append(f"  description: {description}")
    skills = list(card.skills)[:MAX_SKILLS]
    if skills:
        lines.append("  skills:")
    for index, skill in enumerate(skills):
        where = f"skill {index + 1}"
        skill_name = _field(skill.name, MAX_NAME_CHARS, agent_id, f"{where} name")
        skill_description = _field(
            skill.description, MAX_SKILL_DESCRIPTION_CHARS, agent_id, f"{where} description"
        )
        lines.append(f"  - {skill_name}: {skill_description}".rstrip())
    return "\n".join(lines)


def _field(text: str, limit: int, agent_id: str, what: str) -> str:
    """`text` on one line, angle brackets replaced, cut to `limit` (logged when cut)."""
    flat = _one_line(text)
    clipped = _clip(flat, limit)
    if clipped != flat:
        logger.warning(
            "agents roster: agent %s: %s cut from %d to %d characters",
            agent_id,
            what,
            len(flat),
            limit,
        )
    return clipped


def _one_line(text: str) -> str:
    return " ".join(text.split()).translate(_ANGLES)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - len(_ELLIPSIS)] + _ELLIPSIS

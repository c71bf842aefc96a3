"""`CardScreen`: the agent's card as a person reads it: who it is, what it can do.

Name, description, version and URL; the interfaces it offers; its capabilities (streaming,
push); the extensions it offers (required ones marked); its skills with their descriptions.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from a2a.types import AgentCard
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Markdown

__all__ = ["CardScreen", "card_markdown"]


def card_markdown(card: AgentCard) -> str:
    """The card as Markdown."""
    lines = [f"# {card.name}", "", card.description or "(no description)", ""]
    if card.version:
        lines.append(f"Version {card.version}")
    lines += ["", "## Interfaces"]
    lines += [
        f"- {i.protocol_binding} {i.protocol_version} at `{i.url}`"
        for i in card.supported_interfaces
    ]
    caps = card.capabilities
    lines += [
        "",
        "## Capabilities",
        f"- streaming: {'yes' if caps.streaming else 'no'}",
        f"- push notifications: {'yes' if caps.push_notifications else 'no'}",
    ]
    if caps.extensions:
        lines += ["", "## Extensions"]
        lines += [
            f"- `{e.uri}`{' (required)' if e.required else ''}: {e.description}"
            for e in caps.extensions
        ]
    lines += ["", "## Skills"]
    lines += [f"- **{s.name}**: {s.description}" for s in card.skills] or ["(none listed)"]
    return "\n".join(lines)


class CardScreen(ModalScreen[None]):
    """Closed with Escape or F2."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f2,q", "dismiss", "Close"),
    ]

    def __init__(self, card: AgentCard) -> None:
        super().__init__()
        self._card = card

    def compose(self) -> Iterator[Widget]:
        """The card, scrollable."""
        with VerticalScroll(id="card"):
            yield Markdown(card_markdown(self._card))

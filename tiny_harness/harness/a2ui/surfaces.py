"""What a task has drawn: its surfaces and their components' ids.

The workflow keeps this record (`Surfaces`, a mapping carried in the task's run) and
grows it with every message the model shows (`draw`). A user's action is taken only when
it names a surface the task created and a component on it (`knows`): any other is
discarded, so nobody can forge an action on a control the agent never offered
(abuse case 9).
"""

from __future__ import annotations

from collections.abc import Sequence

from a2a.types import Message

from tiny_harness.errors import A2uiMessageError
from tiny_harness.harness.a2ui.messages import Action, ServerMessage, actions_in

type Surfaces = dict[str, list[str]]
"""Surface id → the ids of its components, in the order they came."""


def draw(surfaces: Surfaces, message: ServerMessage) -> None:
    """Record `message` in `surfaces`; raises `A2uiMessageError` for one about a surface
    that does not exist (or, for createSurface, one that does)."""
    surface = message.surface_id
    if message.createSurface is not None:
        if surface in surfaces:
            raise A2uiMessageError(f"surface {surface!r} exists already; delete it first")
        surfaces[surface] = []
        return
    if surface not in surfaces:
        raise A2uiMessageError(f"no surface {surface!r}: create it first")
    if message.deleteSurface is not None:
        del surfaces[surface]
    elif message.updateComponents is not None:
        known = surfaces[surface]
        known.extend(c.id for c in message.updateComponents.components if c.id not in known)


def knows(surfaces: Surfaces, action: Action) -> bool:
    """Whether `action` is on a surface the task created, from a component it holds."""
    return action.sourceComponentId in surfaces.get(action.surfaceId, ())


def without_forged(
    message: Message, surfaces: Surfaces, actions: Sequence[tuple[int, Action]] | None = None
) -> tuple[Message | None, list[Action]]:
    """`message` without the actions `surfaces` does not know (None when nothing else was
    in it), and those actions. `actions` are the message's (`actions_in`), when the caller
    parsed them already; `message` must hold valid A2UI parts."""
    found = actions_in(message) if actions is None else actions
    forged = [(i, a) for i, a in found if not knows(surfaces, a)]
    if not forged:
        return message, []
    dropped = {i for i, _ in forged}
    kept = Message()
    kept.CopyFrom(message)
    del kept.parts[:]
    kept.parts.extend(p for i, p in enumerate(message.parts) if i not in dropped)
    return (kept if kept.parts else None), [a for _, a in forged]

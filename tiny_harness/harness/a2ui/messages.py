"""The A2UI 0.9.1 messages the harness reads: what the agent draws, what a user does.

A2UI travels in A2A messages as data parts of media type `A2UI_MEDIA_TYPE`. The agent sends
server-to-client messages (createSurface, updateComponents, updateDataModel,
deleteSurface); a renderer sends a client-to-server `action` when a user presses a
button or picks a choice. Only the fields the harness relies on are modelled (ids, names);
the rest of each message is kept as it came and drawn by the renderer.
"""

from __future__ import annotations

import json
from typing import Final, Literal, Self

from a2a.helpers import new_data_part
from a2a.types import Message, Part
from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from tiny_harness.errors import A2uiMessageError
from tiny_harness.harness.protocol.data_parts import media_essence, typed_parts

A2UI_EXTENSION_URI: Final = "https://a2ui.org/a2a-extension/a2ui/v0.9.1"
A2UI_MEDIA_TYPE: Final = "application/a2ui+json"
A2UI_VERSION: Final = "v0.9.1"
BASIC_CATALOG_ID: Final = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
"""The catalog the harness's renderers draw: the basic catalog's id as the official renderer
(`@a2ui/web_core` 0.11) knows it. The web renderer also takes the id of earlier 0.9 drafts,
``https://a2ui.org/specification/v0_9/basic_catalog.json``."""

_Id = Field(min_length=1, max_length=200)
_OPEN: Final = ConfigDict(extra="allow", frozen=True)


class Component(BaseModel):
    """One component of a surface: its id; what it is and shows stays as sent."""

    model_config = _OPEN
    id: str = _Id


class SurfaceRef(BaseModel):
    """The body of createSurface, updateDataModel or deleteSurface: the surface's id."""

    model_config = _OPEN
    surfaceId: str = _Id  # noqa: N815 - A2UI's wire name


class ComponentsUpdate(SurfaceRef):
    """The body of updateComponents: the surface and the components it gets."""

    components: tuple[Component, ...] = Field(min_length=1, max_length=500)


class ServerMessage(BaseModel):
    """One agent-to-renderer message: exactly one of the four kinds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal["v0.9", "v0.9.1"] = A2UI_VERSION
    createSurface: SurfaceRef | None = None  # noqa: N815
    updateComponents: ComponentsUpdate | None = None  # noqa: N815
    updateDataModel: SurfaceRef | None = None  # noqa: N815
    deleteSurface: SurfaceRef | None = None  # noqa: N815

    @model_validator(mode="after")
    def _one_kind(self) -> Self:
        kinds = [k for k in _KINDS if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError(f"a message has exactly one of {', '.join(_KINDS)}")
        return self

    @property
    def kind(self) -> str:
        """Which of the four messages this is."""
        return next(k for k in _KINDS if getattr(self, k) is not None)

    @property
    def surface_id(self) -> str:
        """The surface the message is about."""
        body = getattr(self, self.kind)
        return body.surfaceId if isinstance(body, SurfaceRef) else ""


_KINDS: Final = ("createSurface", "updateComponents", "updateDataModel", "deleteSurface")


class Action(BaseModel):
    """What a user did on a surface: the action's name, where, and its context."""

    model_config = _OPEN
    name: str = _Id
    surfaceId: str = _Id  # noqa: N815
    sourceComponentId: str = _Id  # noqa: N815
    timestamp: str = ""
    context: dict[str, JsonValue] = Field(default_factory=dict)


class ClientMessage(BaseModel):
    """One renderer-to-agent message; the harness takes its `action` (an `error` report
    from a renderer is kept in history only)."""

    model_config = _OPEN
    version: Literal["v0.9", "v0.9.1"] = A2UI_VERSION
    action: Action | None = None


def ui_part(message: ServerMessage) -> Part:
    """The data part that carries `message` to a renderer."""
    return new_data_part(
        message.model_dump(mode="json", exclude_none=True), media_type=A2UI_MEDIA_TYPE
    )


def action_part(action: Action) -> Part:
    """The data part that carries a person's `action` back to the agent."""
    body = ClientMessage(action=action).model_dump(mode="json", exclude_none=True)
    return new_data_part(body, media_type=A2UI_MEDIA_TYPE)


def actions_in(message: Message) -> list[tuple[int, Action]]:
    """Every A2UI action in the message, with its part's index; raises `A2uiMessageError`
    for an A2UI part that is not a valid client message."""
    found = typed_parts(
        message, A2UI_MEDIA_TYPE, ClientMessage, noun="an A2UI message", refuse=A2uiMessageError
    )
    indexes = [
        i for i, p in enumerate(message.parts) if media_essence(p.media_type) == A2UI_MEDIA_TYPE
    ]
    return [(i, m.action) for i, m in zip(indexes, found, strict=True) if m.action is not None]


def render_action(action: Action) -> str:
    """An action as the model reads it, one line: what was done, where, and its context."""
    context = json.dumps(action.context, ensure_ascii=False, sort_keys=True)
    return (
        f"[UI action {action.name!r} on surface {action.surfaceId!r}, "
        f"component {action.sourceComponentId!r}: {context}]"
    )

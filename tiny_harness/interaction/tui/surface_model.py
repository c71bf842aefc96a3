"""`SurfaceModel`: one A2UI 0.9.1 surface as a client holds it, no widgets.

The agent's four server messages change it: createSurface opens it, updateComponents adds or
replaces components by id (the tree hangs from the component with id "root"),
updateDataModel sets or removes a value at a JSON Pointer path, deleteSurface closes it.
Component properties are literals or data bindings (`{"path": "/a/b"}`); `resolve` reads
either, relative paths against a template item's scope. An input the person changes writes
back through its binding (`write`), so an action's context reads what they entered.
Function calls (`{"call": ...}`) are not evaluated here: they resolve to None.
"""

from __future__ import annotations

from typing import Final

from pydantic import JsonValue

__all__ = ["ROOT_ID", "Component", "SurfaceModel", "binding_path", "items_of"]

ROOT_ID: Final = "root"

type Component = dict[str, JsonValue]


def items_of(value: JsonValue) -> list[JsonValue]:
    """`value` when it is a list, else no items."""
    return value if isinstance(value, list) else []


def binding_path(value: JsonValue, scope: str = "") -> str | None:
    """The absolute data path a `{"path": ...}` binding names, or None for a literal."""
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        return None
    path = str(value["path"])
    if path.startswith("/"):
        return path
    return f"{scope.rstrip('/')}/{path}" if scope else f"/{path}"


def _tokens(path: str) -> list[str]:
    if path in ("", "/"):
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in path.lstrip("/").split("/")]


class SurfaceModel:
    """The components and data model of one surface."""

    def __init__(self, surface_id: str, catalog_id: str = "") -> None:
        self.surface_id = surface_id
        self.catalog_id = catalog_id
        self.components: dict[str, Component] = {}
        self.data: JsonValue = {}
        self.deleted = False

    def apply(self, message: dict[str, JsonValue]) -> None:
        """Fold one server message about this surface into it (others are ignored)."""
        if isinstance(body := message.get("createSurface"), dict):
            self.catalog_id = str(body.get("catalogId", ""))
            self.deleted = False
        elif isinstance(body := message.get("updateComponents"), dict):
            for component in items_of(body.get("components")):
                if isinstance(component, dict) and isinstance(component.get("id"), str):
                    self.components[str(component["id"])] = component
        elif isinstance(body := message.get("updateDataModel"), dict):
            path = str(body.get("path") or "/")
            if "value" in body:
                self.write(path, body["value"])
            else:
                self._remove(path)
        elif "deleteSurface" in message:
            self.deleted = True

    @property
    def root(self) -> Component | None:
        """The component the tree hangs from, once the agent has sent it."""
        return self.components.get(ROOT_ID)

    def read(self, path: str) -> JsonValue:
        """The data model's value at `path` (None when there is none)."""
        node: JsonValue = self.data
        for token in _tokens(path):
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node

    def resolve(self, value: JsonValue, scope: str = "") -> JsonValue:
        """A property's value: a literal as it is, a binding read from the data model."""
        path = binding_path(value, scope)
        if path is not None:
            return self.read(path)
        if isinstance(value, dict) and "call" in value:
            return None
        return value

    def text(self, value: JsonValue, scope: str = "") -> str:
        """A property shown as text ("" for nothing)."""
        resolved = self.resolve(value, scope)
        if resolved is None:
            return ""
        if isinstance(resolved, bool):
            return "true" if resolved else "false"
        return str(resolved)

    def write(self, path: str, value: JsonValue) -> None:
        """Set the value at `path`, making the objects on the way."""
        tokens = _tokens(path)
        if not tokens:
            self.data = value
            return
        if not isinstance(self.data, dict):
            self.data = {}
        node: JsonValue = self.data
        for token in tokens[:-1]:
            if isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
                continue
            if not isinstance(node, dict):
                return
            child = node.get(token)
            if not isinstance(child, dict | list):
                child = {}
                node[token] = child
            node = child
        last = tokens[-1]
        if isinstance(node, dict):
            node[last] = value
        elif isinstance(node, list) and last.isdigit() and int(last) < len(node):
            node[int(last)] = value

    def _remove(self, path: str) -> None:
        tokens = _tokens(path)
        if not tokens:
            self.data = {}
            return
        parent = self.read("/" + "/".join(tokens[:-1]))
        if isinstance(parent, dict):
            parent.pop(tokens[-1], None)

    def children(self, component: Component, scope: str = "") -> list[tuple[str, str]]:
        """The (component id, data scope) pairs a container shows: a fixed list of ids, or
        one template per item of a data list."""
        children = component.get("children")
        if isinstance(children, list):
            return [(str(c), scope) for c in children if isinstance(c, str)]
        if isinstance(children, dict):
            template = children.get("componentId")
            path = binding_path(children, scope)
            items = self.read(path) if path else None
            if isinstance(template, str) and path and isinstance(items, list | dict):
                keys = range(len(items)) if isinstance(items, list) else list(items)
                return [(template, f"{path}/{key}") for key in keys]
        return []

    def context(self, action: JsonValue, scope: str = "") -> tuple[str, dict[str, JsonValue]]:
        """An action property's event name and its context with every binding read."""
        event = action.get("event") if isinstance(action, dict) else None
        if not isinstance(event, dict):
            return "", {}
        name = str(event.get("name", ""))
        raw = event.get("context")
        if not isinstance(raw, dict):
            return name, {}
        return name, {str(k): self.resolve(v, scope) for k, v in raw.items()}

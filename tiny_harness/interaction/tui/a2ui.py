"""A2UI 0.9.1's basic catalog drawn with Textual widgets: `A2uiSurface`.

There is no official A2UI renderer for the terminal, so this maps each basic-catalog
component onto the Textual widget closest to it:

    Text (h1-h5, caption, body) Static        Button      Button (its child's text)
    Row / Column / List         Horizontal / Vertical      TextField  Input (obscured: password)
    Card / Tabs / Modal         a bordered Vertical        CheckBox   Checkbox
    Divider                     Rule          ChoicePicker RadioSet, or Checkboxes for many
    Image                       its description (alt text), else its URL
    Icon                        its name      Slider / DateTimeInput  Input
    Video / AudioPlayer         a placeholder line (a terminal plays neither)

An input the person changes writes through its data binding into the surface's data model;
a Button press posts `A2uiSurface.ActionTaken` with the action's name and its context read
from the data model, which the app sends to the task as an A2UI action message. A component
the catalog does not have, or one the tree names but the agent never sent, is drawn as a
one-line placeholder, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar, Final

from pydantic import JsonValue
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, RadioButton, RadioSet, Rule, Static

from tiny_harness.interaction.tui.surface_model import (
    ROOT_ID,
    Component,
    SurfaceModel,
    binding_path,
    items_of,
)

__all__ = ["A2uiSurface", "component_dom_id"]

_MAX_DEPTH: Final = 32
"""How deep a tree is drawn; deeper (or a cycle) is a placeholder."""

_HEADINGS: Final = {"h1", "h2", "h3", "h4", "h5"}


def component_dom_id(surface_id: str, component_id: str) -> str:
    """The DOM id of a component drawn outside any template (for keys and tests)."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", f"a2ui--{surface_id}--{component_id}")
    return safe if not safe[0].isdigit() else f"_{safe}"


class _Bound:
    """What a drawn input or button remembers of its component."""

    a2ui_id: str
    a2ui_scope: str

    def bind(self, component_id: str, scope: str) -> None:
        self.a2ui_id = component_id
        self.a2ui_scope = scope


class A2uiButton(Button, _Bound):
    """A basic-catalog Button."""


class A2uiInput(Input, _Bound):
    """A TextField, Slider or DateTimeInput."""


class A2uiCheckbox(Checkbox, _Bound):
    """A CheckBox, or one option of a multiple-selection ChoicePicker."""

    option: str | None = None


class A2uiChoice(RadioSet, _Bound):
    """A mutually exclusive ChoicePicker; each button's name is its option's value."""


class A2uiSurface(Vertical):
    """One surface, redrawn whole (`redraw`) when the agent changes it."""

    DEFAULT_CLASSES: ClassVar[str] = "a2ui-surface"

    class ActionTaken(Message):
        """A person pressed a Button of the surface."""

        def __init__(
            self, surface_id: str, component_id: str, name: str, context: dict[str, JsonValue]
        ) -> None:
            super().__init__()
            self.surface_id = surface_id
            self.component_id = component_id
            self.name = name
            self.context = context

    def __init__(self, model: SurfaceModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model

    def compose(self) -> Iterator[Widget]:
        """The tree from the root component, or a line saying it is not drawn yet."""
        if self.model.deleted:
            yield Static("(this surface was closed by the agent)", classes="a2ui-note")
        elif self.model.root is None:
            yield Static("(the agent has not drawn this surface yet)", classes="a2ui-note")
        else:
            yield self._draw(ROOT_ID, "", ())

    async def redraw(self) -> None:
        """Draw the surface again from its model."""
        await self.recompose()

    # ---- drawing ----------------------------------------------------------------------

    def _draw(self, component_id: str, scope: str, path: tuple[str, ...]) -> Widget:
        component = self.model.components.get(component_id)
        if component is None:
            return _note(f"[A2UI: component {component_id!r} was never sent]")
        if component_id in path or len(path) >= _MAX_DEPTH:
            return _note(f"[A2UI: component {component_id!r} nests too deep]")
        kind = str(component.get("component", ""))
        inner = (*path, component_id)
        dom_id = component_dom_id(self.model.surface_id, component_id) if not scope else None
        widget = self._widget(kind, component, component_id, scope, inner)
        if dom_id is not None and widget.id is None:
            widget.id = dom_id
        return widget

    def _widget(
        self, kind: str, c: Component, component_id: str, scope: str, path: tuple[str, ...]
    ) -> Widget:
        text = self.model.text
        match kind:
            case "Text":
                variant = str(c.get("variant", "body"))
                classes = f"a2ui-text a2ui-{variant if variant in _HEADINGS else 'body'}"
                if variant == "caption":
                    classes = "a2ui-text a2ui-caption"
                return Static(text(c.get("text"), scope), classes=classes, markup=False)
            case "Row" | "Column" | "List":
                horizontal = kind == "Row" or c.get("direction") == "horizontal"
                box = Horizontal if horizontal else Vertical
                kids = [self._draw(i, s, path) for i, s in self.model.children(c, scope)]
                return box(*kids, classes=f"a2ui-{kind.lower()}")
            case "Card" | "Modal":
                key = "child" if kind == "Card" else "content"
                return Vertical(self._child(c, key, scope, path), classes="a2ui-card")
            case "Tabs":
                return self._tabs(c, scope, path)
            case "Divider":
                vertical = c.get("axis") == "vertical"
                return Rule(orientation="vertical" if vertical else "horizontal")
            case "Button":
                return self._button(c, component_id, scope)
            case "TextField" | "Slider" | "DateTimeInput":
                return self._input(kind, c, component_id, scope)
            case "CheckBox":
                box_ = A2uiCheckbox(text(c.get("label"), scope), self._flag(c, scope))
                box_.bind(component_id, scope)
                return box_
            case "ChoicePicker":
                return self._choices(c, component_id, scope)
            case "Image":
                alt = text(c.get("description"), scope) or text(c.get("url"), scope)
                return Static(f"[image] {alt}", classes="a2ui-media", markup=False)
            case "Icon":
                return Static(f"({text(c.get('name'), scope)})", classes="a2ui-icon", markup=False)
            case "Video" | "AudioPlayer":
                what = "video" if kind == "Video" else "audio"
                url = text(c.get("url"), scope)
                return _note(f"[{what}: {url} — not played in the terminal]")
        return _note(f"[A2UI: no terminal rendering for component {kind or '?'!r}]")

    def _child(self, c: Component, key: str, scope: str, path: tuple[str, ...]) -> Widget:
        child = c.get(key)
        if isinstance(child, str):
            return self._draw(child, scope, path)
        return _note("[A2UI: a container without its child]")

    def _tabs(self, c: Component, scope: str, path: tuple[str, ...]) -> Widget:
        panes: list[Widget] = []
        for tab in items_of(c.get("tabs")):
            if isinstance(tab, dict):
                panes.append(Static(self.model.text(tab.get("title"), scope), classes="a2ui-h4"))
                panes.append(self._child(tab, "child", scope, path))
        return Vertical(*panes, classes="a2ui-card")

    def _button(self, c: Component, component_id: str, scope: str) -> Widget:
        label = ""
        child = self.model.components.get(str(c.get("child", "")))
        if child is not None:
            label = self.model.text(child.get("text") or child.get("name"), scope)
        primary = c.get("variant") == "primary"
        button = A2uiButton(label or component_id, variant="primary" if primary else "default")
        button.bind(component_id, scope)
        return button

    def _input(self, kind: str, c: Component, component_id: str, scope: str) -> Widget:
        label = self.model.text(c.get("label"), scope)
        value = self.model.text(c.get("value"), scope)
        field = A2uiInput(
            value=value,
            placeholder=label or kind,
            password=c.get("variant") == "obscured",
            type="number" if kind == "Slider" or c.get("variant") == "number" else "text",
        )
        field.bind(component_id, scope)
        if not label:
            return field
        return Vertical(Static(label, classes="a2ui-label", markup=False), field)

    def _flag(self, c: Component, scope: str) -> bool:
        return bool(self.model.resolve(c.get("value"), scope))

    def _choices(self, c: Component, component_id: str, scope: str) -> Widget:
        chosen = self.model.resolve(c.get("value"), scope)
        picked = {str(v) for v in chosen} if isinstance(chosen, list) else set()
        options = [o for o in items_of(c.get("options")) if isinstance(o, dict)]
        label = self.model.text(c.get("label"), scope)
        if c.get("variant") == "multipleSelection":
            boxes: list[Widget] = []
            for option in options:
                value = str(option.get("value", ""))
                box = A2uiCheckbox(self.model.text(option.get("label"), scope), value in picked)
                box.bind(component_id, scope)
                box.option = value
                boxes.append(box)
            return Vertical(Static(label, classes="a2ui-label"), *boxes, classes="a2ui-choices")
        radios = [
            RadioButton(
                self.model.text(o.get("label"), scope),
                str(o.get("value", "")) in picked,
                name=str(o.get("value", "")),
            )
            for o in options
        ]
        group = A2uiChoice(*radios)
        group.bind(component_id, scope)
        if not label:
            return group
        return Vertical(Static(label, classes="a2ui-label", markup=False), group)

    # ---- what the person does -----------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Called when a Button of the surface is pressed: post its action."""
        button = event.button
        if not isinstance(button, A2uiButton):
            return
        event.stop()
        component = self.model.components.get(button.a2ui_id, {})
        name, context = self.model.context(component.get("action"), button.a2ui_scope)
        self.post_message(
            self.ActionTaken(self.model.surface_id, button.a2ui_id, name or "action", context)
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        """Called when a text field changes: write it through its binding."""
        if isinstance(event.input, A2uiInput):
            kind = self.model.components.get(event.input.a2ui_id, {}).get("component")
            value: JsonValue = event.value
            if kind == "Slider":
                try:
                    value = float(event.value)
                except ValueError:
                    return
            self._write(event.input, value)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """Called when a check box changes: a flag, or one option of many."""
        box = event.checkbox
        if not isinstance(box, A2uiCheckbox):
            return
        if box.option is None:
            self._write(box, event.value)
            return
        picked = [
            b.option
            for b in self.query(A2uiCheckbox)
            if b.a2ui_id == box.a2ui_id and b.a2ui_scope == box.a2ui_scope and b.value
        ]
        self._write(box, [p for p in picked if p is not None])

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        """Called when a choice is picked: the picked option's value, as a list."""
        if isinstance(event.radio_set, A2uiChoice) and event.pressed.name is not None:
            self._write(event.radio_set, [event.pressed.name])

    def _write(self, widget: _Bound, value: JsonValue) -> None:
        component = self.model.components.get(widget.a2ui_id, {})
        path = binding_path(component.get("value"), widget.a2ui_scope)
        if path is not None:
            self.model.write(path, value)


def _note(text: str) -> Static:
    return Static(text, classes="a2ui-note", markup=False)

"""`ConfirmScreen`: a yes/no question over the app, answered with y/n, Enter/Escape or a click."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Static

__all__ = ["ConfirmScreen"]


class ConfirmScreen(ModalScreen[bool]):
    """Dismissed with True for yes, False for no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self._question = question
        self._yes = yes
        self._no = no

    def compose(self) -> Iterator[Widget]:
        """The question and two buttons, "no" focused."""
        with Vertical(id="confirm"):
            yield Static(self._question, id="confirm-question", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self._yes} (y)", variant="error", id="yes")
                yield Button(f"{self._no} (n)", variant="primary", id="no")

    def on_mount(self) -> None:
        """Called when shown: the safe answer has the focus."""
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Called when a button is pressed."""
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """Answer by key."""
        self.dismiss(yes)

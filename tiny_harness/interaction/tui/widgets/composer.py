"""`Composer`: where the person types; Enter sends.

What a message does depends on the open task, and the placeholder says which: no task open
starts a new task; a task waiting for input gets the reply; a finished task gets a
follow-up, which starts a new task in the same context. With the composer empty, a digit
1-9 picks that option of the open question.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input

from tiny_harness.interaction.tui.keys import OPTION_KEYS

__all__ = ["Composer"]

_PLACEHOLDERS = {
    "new": "Message the agent to start a task (Enter to send)",
    "reply": "Reply to the question (Enter to send, 1-9 to pick an option)",
    "follow-up": "Follow up: starts a new task in this conversation (Enter to send)",
    "busy": "The agent is working; a message now is queued for this task (Enter to send)",
}


class Composer(Input):
    """The message box."""

    # Priority bindings are asked before the box takes the key as text; `check_action`
    # lets a digit through as text unless it picks an option.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, f"pick({key})", show=False, priority=True) for key in OPTION_KEYS
    ]

    class OptionKey(Message):
        """A digit typed into an empty composer while a question has options."""

        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    mode: reactive[str] = reactive("new")
    """What Enter will do: "new", "reply", "follow-up" or "busy" (the placeholder says)."""

    options_open = False
    """Whether digits in an empty composer pick an option (set by the app)."""

    def watch_mode(self, mode: str) -> None:
        self.placeholder = _PLACEHOLDERS.get(mode, _PLACEHOLDERS["new"])

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pick":
            return self.options_open and not self.value
        return super().check_action(action, parameters)

    def action_pick(self, number: int) -> None:
        """Pick option `number` of the open question."""
        self.post_message(self.OptionKey(number))

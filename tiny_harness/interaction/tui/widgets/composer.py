"""`Composer`: where the person types; Enter sends.

What a message does depends on the open task, and the placeholder says which: no task open
starts a new task; a task waiting for input gets the reply; a finished task gets a
follow-up, which starts a new task in the same context. With the composer empty, a digit
1-9 picks that option of the open question.
"""

from __future__ import annotations

from textual import events
from textual.message import Message
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

    class OptionKey(Message):
        """A digit typed into an empty composer while a question has options."""

        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    options_open = False
    """Whether digits in an empty composer pick an option (set by the app)."""

    def set_mode(self, mode: str) -> None:
        """Say what Enter will do."""
        placeholder = _PLACEHOLDERS.get(mode, _PLACEHOLDERS["new"])
        if placeholder != self.placeholder:
            self.placeholder = placeholder

    async def _on_key(self, event: events.Key) -> None:
        digit = event.character if event.character in tuple(OPTION_KEYS) else None
        if self.options_open and not self.value and digit is not None:
            event.stop()
            event.prevent_default()
            self.post_message(self.OptionKey(int(digit)))
            return
        await super()._on_key(event)

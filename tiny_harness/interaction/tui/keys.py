"""The terminal UI's keys, in one table: the app binds them, the footer and the command
palette show them, and `tiny-harness tui --help` lists them (this module imports no
Textual, so the command line stays light)."""

from __future__ import annotations

from typing import Final

__all__ = ["KEYS", "OPTION_KEYS", "keys_help"]

KEYS: Final[tuple[tuple[str, str, str], ...]] = (
    ("ctrl+n", "new_task", "New task"),
    ("ctrl+x", "cancel_task", "Cancel task"),
    ("ctrl+r", "refresh", "Refresh tasks"),
    ("f2", "show_card", "Agent card"),
    ("f3", "show_calls", "Timeline"),
    ("ctrl+t", "focus_tasks", "Task list"),
    ("escape", "focus_composer", "Message box"),
    ("ctrl+b", "focus_conversation", "Conversation"),
)
"""(key, action, description) of every action of the app. None is a key the message box
uses itself (ctrl+x, its "cut", is taken over: cancel matters more in a task client)."""

OPTION_KEYS: Final = "123456789"
"""Each picks that option of the open question."""

_OTHER_KEYS: Final[tuple[tuple[str, str], ...]] = (
    ("enter", "send the message (a new task, a reply, or a follow-up in the same context)"),
    ("1-9", "pick that option of the open question (with the message box empty)"),
    ("tab / shift+tab", "move between the task list, the conversation and the message box"),
    ("[ / ]", "previous / next block of the conversation (when it has the focus)"),
    ("ctrl+p", "the command palette: every action, searchable"),
    ("ctrl+q", "quit"),
)


def keys_help() -> str:
    """The keys as `--help` lists them."""
    rows = [(key, label.lower()) for key, _, label in KEYS] + list(_OTHER_KEYS)
    width = max(len(key) for key, _ in rows)
    return "keys:\n" + "\n".join(f"  {key:<{width}}  {what}" for key, what in rows)

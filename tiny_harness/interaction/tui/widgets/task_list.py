"""`TaskList`: the caller's tasks, newest change first, each with a state badge.

A row shows the state (a glyph and a word) and the task's name: its task-extension name when
it has one, else the start of its first message. Redrawn from each ListTasks answer; the
highlighted task stays highlighted across redraws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from a2a.types import Role, Task, TaskState
from google.protobuf.json_format import MessageToDict
from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tiny_harness.harness.tasks.extension import TASK_EXT_KEY

__all__ = ["BADGES", "TaskList", "badge", "task_title"]

BADGES: Final[dict[int, tuple[str, str, str]]] = {
    TaskState.TASK_STATE_SUBMITTED: ("○", "submitted", "dim"),
    TaskState.TASK_STATE_WORKING: ("●", "working", "cyan"),
    TaskState.TASK_STATE_INPUT_REQUIRED: ("?", "input", "bold yellow"),
    TaskState.TASK_STATE_AUTH_REQUIRED: ("!", "auth", "bold yellow"),
    TaskState.TASK_STATE_COMPLETED: ("✓", "done", "green"),
    TaskState.TASK_STATE_FAILED: ("✗", "failed", "red"),
    TaskState.TASK_STATE_CANCELED: ("⊘", "canceled", "dim red"),
    TaskState.TASK_STATE_REJECTED: ("✗", "rejected", "red"),
}
"""Glyph, word and style of each task state."""

_TITLE_CHARS: Final = 48
_ROW_CHARS: Final = 19
"""What of a title fits a row of the list beside its badge."""


def badge(state: int) -> Text:
    """A state as its glyph and word, styled."""
    glyph, word, style = BADGES.get(state, ("·", "unknown", "dim"))
    return Text(f"{glyph} {word:<9}", style=style)


def task_title(task: Task) -> str:
    """The task's name, or the start of its first user message, on one line; "" when the
    task carries neither (a listing without history)."""
    ext = MessageToDict(task.metadata).get(TASK_EXT_KEY)
    if isinstance(ext, dict) and isinstance(ext.get("name"), str) and ext["name"]:
        return _line(ext["name"])
    for message in task.history:
        if message.role == Role.ROLE_USER:
            text = " ".join(p.text for p in message.parts if p.text)
            if text:
                return _line(text)
    return ""


def _line(text: str) -> str:
    return _fit(" ".join(text.split()), _TITLE_CHARS)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class TaskList(OptionList):
    """The tasks; selecting one (Enter or a click) opens it."""

    def show(self, tasks: Sequence[Task], *, titles: dict[str, str]) -> None:
        """Redraw the rows; `titles` are names known from this session (kept when the
        server's copy has none)."""
        highlighted = self.highlighted_option.id if self.highlighted_option else None
        self.clear_options()
        for task in tasks:
            row = badge(task.status.state)
            title = titles.get(task.id) or task_title(task) or f"task {task.id[:8]}"
            row.append(_fit(title, _ROW_CHARS))
            self.add_option(Option(row, id=task.id))
        if highlighted is not None:
            try:
                self.highlighted = self.get_option_index(highlighted)
            except LookupError:
                self.highlighted = None
        self.border_subtitle = f"{len(tasks)} task{'s' if len(tasks) != 1 else ''}"

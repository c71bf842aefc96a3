"""`PlanPanel`: the open task's plan as a live checklist, and its sub-tasks as rows.

A step is pending (○), in progress (◐), done (✓) or failed (✗) (`Timeline.steps`). A
sub-task row names the agent that runs it and, once the stand-in has reported, the remote
task's state. The panel hides itself when the task has neither.
"""

from __future__ import annotations

from typing import Final

from rich.text import Text
from textual.widgets import Static

from tiny_harness.interaction.tui.timeline import Timeline

__all__ = ["PlanPanel"]

_MARKS: Final = {
    "pending": ("○", "dim"),
    "in_progress": ("◐", "bold cyan"),
    "done": ("✓", "green"),
    "failed": ("✗", "red"),
    "skipped": ("⊘", "dim"),
}


_STATE_STYLES: Final = {
    "working": "cyan",
    "input_required": "bold yellow",
    "auth_required": "bold yellow",
    "completed": "green",
    "failed": "red",
    "canceled": "red",
    "rejected": "red",
}


class PlanPanel(Static):
    """The plan and sub-tasks of one task."""

    _shown: Text = Text()

    def show(self, timeline: Timeline) -> None:
        """Redraw from the timeline."""
        steps = timeline.steps()
        text = Text()
        if steps:
            text.append("Plan\n", style="bold")
            for step in steps:
                mark, style = _MARKS[step.status]
                text.append(f" {mark} ", style=style)
                text.append(f"{step.name}\n", style="dim" if step.status == "pending" else "")
        if timeline.sub_tasks:
            text.append("\nSub-tasks\n" if steps else "Sub-tasks\n", style="bold")
            for ref in timeline.sub_tasks:
                state = (ref.state or "started").removeprefix("TASK_STATE_").lower()
                text.append(f" ↳ {ref.agent or 'this harness'}", style="bold")
                text.append(f"  {state.replace('_', ' ')}\n", style=_STATE_STYLES.get(state, "dim"))
                text.append(f"   {ref.task_id[:24]}\n", style="dim")
        if text != self._shown:  # an update costs the screen a layout: only on a change
            self._shown = text
            self.update(text)
        self.display = bool(steps or timeline.sub_tasks)

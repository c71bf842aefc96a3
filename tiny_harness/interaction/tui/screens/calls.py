"""`CallsScreen`: the open task's model and tool calls on one time axis, and their totals.

    model calls 3 · tool calls 3 · tokens 6,913 in / 7 out · cost not priced · 334 ms
    ◇ gpt-4.1        ███████                               138 ms
    ⚙ create_plan           ████                            60 ms
    ⚙ no_such_tool              ███                          50 ms  failed

Each call is a row: where it starts on the axis (from the task's first call to its last
one's end) and how much of it it takes. It shows the calls as they stood when it opened,
and the task's trace (with its link when the server names a trace viewer).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from tiny_harness.harness.tasks.calls import CallEvent, CallKind, CallState
from tiny_harness.harness.tasks.extension import TaskTrace
from tiny_harness.interaction.tui.widgets.call_block import duration

__all__ = ["CallTotals", "CallsScreen", "bars_of", "totals_of"]

AXIS: Final = 40
"""The axis's width in cells."""

_STYLES: Final = {
    CallState.STARTED: "yellow",
    CallState.COMPLETED: "green",
    CallState.FAILED: "red",
    CallState.VETOED: "dark_orange",
    CallState.NOT_RETRIED: "red",
}


@dataclass(frozen=True)
class CallTotals:
    """What a task's calls add up to."""

    model_calls: int
    tool_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    span_ms: int


def _span(calls: Sequence[CallEvent]) -> tuple[float, float]:
    """The axis: the first call's start and the last one's end, in epoch milliseconds."""
    starts = [c.started_at.timestamp() * 1000 for c in calls]
    ends = [s + (c.duration_ms or 0) for s, c in zip(starts, calls, strict=True)]
    return (min(starts), max(ends)) if calls else (0.0, 0.0)


def totals_of(calls: Sequence[CallEvent]) -> CallTotals:
    """The totals of `calls` (their latest tellings)."""
    models = [c for c in calls if c.kind is CallKind.MODEL]
    costs = [c.cost_usd for c in models if c.cost_usd is not None]
    first, last = _span(calls)
    return CallTotals(
        model_calls=len(models),
        tool_calls=len(calls) - len(models),
        input_tokens=sum(c.input_tokens or 0 for c in models),
        output_tokens=sum(c.output_tokens or 0 for c in models),
        cost_usd=sum(costs) if costs else None,
        span_ms=round(last - first),
    )


def bars_of(calls: Sequence[CallEvent], width: int = AXIS) -> list[tuple[int, int]]:
    """Each call's (first cell, cells) on an axis `width` cells wide; a call still running
    reaches the end, and every call takes a cell at least."""
    first, last = _span(calls)
    span = max(last - first, 1.0)
    bars = []
    for call in calls:
        offset = call.started_at.timestamp() * 1000 - first
        length = call.duration_ms if call.duration_ms is not None else last - first - offset
        start = min(width - 1, round(offset / span * width))
        bars.append((start, max(1, min(width - start, round(length / span * width)))))
    return bars


def _row(call: CallEvent, bar: tuple[int, int], name_width: int) -> Text:
    mark = "◇" if call.kind is CallKind.MODEL else "⚙"
    start, cells = bar
    row = Text(f"{mark} {call.name:<{name_width}} ")
    row.append(" " * start + "█" * cells + " " * (AXIS - start - cells), style=_STYLES[call.state])
    took = "running" if call.state is CallState.STARTED else duration(call.duration_ms)
    row.append(f" {took:>9}")
    if call.state not in (CallState.COMPLETED, CallState.STARTED):
        row.append(f"  {call.state.value.replace('_', ' ')}", style=_STYLES[call.state])
    return row


def _totals_line(totals: CallTotals) -> str:
    cost = "not priced" if totals.cost_usd is None else f"${totals.cost_usd:.4f}"
    return (
        f"model calls {totals.model_calls} · tool calls {totals.tool_calls} · "
        f"tokens {totals.input_tokens:,} in / {totals.output_tokens:,} out · "
        f"cost {cost} · {duration(totals.span_ms)} from first call to last"
    )


def _trace_line(trace: TaskTrace) -> Text:
    line = Text(f"trace {trace.trace_id}", style="dim")
    if trace.url is not None:
        line.append("  ")
        line.append(trace.url, style=f"link {trace.url} underline")
    return line


class CallsScreen(ModalScreen[None]):
    """Closed with Escape, F3 or q."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f3,q", "dismiss", "Close"),
    ]

    def __init__(self, calls: Sequence[CallEvent], trace: TaskTrace | None = None) -> None:
        super().__init__()
        self._calls = tuple(calls)
        self._trace = trace

    def compose(self) -> Iterator[Widget]:
        """The totals, then one row per call."""
        with VerticalScroll(id="calls"):
            yield Static("Timeline", classes="block-label")
            yield Static(_totals_line(totals_of(self._calls)), id="call-totals", markup=False)
            if self._trace is not None:
                yield Static(_trace_line(self._trace), id="call-trace")
            if not self._calls:
                yield Static("No calls yet.", classes="hint")
            width = min(24, max((len(c.name) for c in self._calls), default=4))
            for call, bar in zip(self._calls, bars_of(self._calls), strict=True):
                yield Static(_row(call, bar, width), classes="call-row")

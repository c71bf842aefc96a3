"""The blocks of a task's calls: a tool call folded to one line, a model call a quiet line.

    ▸ ⚙ create_plan  ✓ completed  22 ms          (Enter or a click opens it)
        arguments   the masked arguments, as a JSON tree
        result      what the tool returned (for a failed or vetoed call: why)
    ◇ gpt-4.1 · 2,248 in · 12 out · 1.2 s · $0.0031

A call's start and end are one entry (`Entry.call`, updated in place), so the block shows
the call as it stands: running, then how it ended.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Final

from textual.widget import Widget
from textual.widgets import Collapsible, Static, Tree

from tiny_harness.harness.tasks.calls import CallEvent, CallKind, CallState
from tiny_harness.interaction.tui.timeline import Entry
from tiny_harness.interaction.tui.widgets.blocks import Block

__all__ = ["CallBlock", "ModelLine", "call_block_for", "duration", "outcome"]

_OUTCOMES: Final = {
    CallState.STARTED: "… running",
    CallState.COMPLETED: "✓ completed",
    CallState.FAILED: "✗ failed",
    CallState.VETOED: "⊘ vetoed",
    CallState.NOT_RETRIED: "✗ not retried",
}


def outcome(state: CallState) -> str:
    """A call's state, with its mark."""
    return _OUTCOMES[state]


def duration(ms: int | None) -> str:
    """How long a call took, for people: "850 ms", "2.4 s", "1 min 5 s"."""
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{ms // 60_000} min {round(ms % 60_000 / 1000)} s"


def _title(call: CallEvent) -> str:
    took = duration(call.duration_ms)
    return f"⚙ {call.name}  {outcome(call.state)}" + (f"  {took}" if took else "")


def _json_tree(label: str, value: object) -> Tree[object]:
    tree: Tree[object] = Tree(label, classes="call-json")
    tree.add_json(value)
    tree.root.set_label(label)  # add_json labels the root by the value's type
    tree.root.expand()
    return tree


class CallBlock(Block):
    """A tool call: its name, state and time, folded; opened, its arguments and result."""

    def compose(self) -> Iterator[Widget]:
        """One collapsible whose title says how the call stands."""
        call = self.entry.call
        if call is None:
            return
        yield Collapsible(*self._details(call), title=_title(call), collapsed=True)

    def _details(self, call: CallEvent) -> Iterator[Widget]:
        if call.arguments is not None:
            yield _json_tree("arguments", call.arguments)
        if call.result is not None:
            why = call.state not in (CallState.COMPLETED, CallState.STARTED)
            yield from self._result(call.result, why=why)
            if call.result.endswith("…") and (call.result_chars or 0) > len(call.result):
                yield Static(
                    f"cut: the result has {call.result_chars:,} characters", classes="hint"
                )
        if call.arguments is None and call.result is None:
            note = "running…" if call.state is CallState.STARTED else "names and outcomes only"
            yield Static(note, classes="hint")

    def _result(self, text: str, *, why: bool) -> Iterator[Widget]:
        label = "why" if why else "result"
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict | list):
            yield _json_tree(label, parsed)
            return
        yield Static(label, classes="block-label" + (" call-why" if why else ""))
        yield Static(text, classes="call-result", markup=False)

    async def update_entry(self, entry: Entry) -> None:
        """The call ended (or was told again): redraw it, open if the person opened it."""
        opened = any(not c.collapsed for c in self.query(Collapsible))
        self.entry = entry
        await self.recompose()
        if opened:
            for collapsible in self.query(Collapsible):
                collapsible.collapsed = False


class ModelLine(Block):
    """A model call: the model, its tokens, its time and its cost, on one dim line."""

    def compose(self) -> Iterator[Widget]:
        """The line."""
        call = self.entry.call
        if call is not None:
            yield Static(model_line(call), classes="model-line", markup=False)


def model_line(call: CallEvent) -> str:
    """What a model call's line says."""
    bits = [f"◇ {call.name}"]
    if call.state is CallState.STARTED:
        bits.append("thinking…")
    elif call.state is not CallState.COMPLETED:
        bits.append(outcome(call.state))
    if call.input_tokens is not None:
        bits.append(f"{call.input_tokens:,} in")
    if call.output_tokens is not None:
        bits.append(f"{call.output_tokens:,} out")
    if call.duration_ms is not None:
        bits.append(duration(call.duration_ms))
    if call.cost_usd is not None:
        bits.append(f"${call.cost_usd:.4f}")
    if call.result is not None and call.state is not CallState.COMPLETED:
        bits.append(call.result)
    return " · ".join(bits)


def call_block_for(entry: Entry) -> Block:
    """The block of a call entry."""
    if entry.call is not None and entry.call.kind is CallKind.MODEL:
        return ModelLine(entry)
    return CallBlock(entry)

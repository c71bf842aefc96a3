"""`Conversation`: the open task's blocks in a scrolling column, drawn from timeline changes.

It keeps one block per entry id, so an updated entry (an artifact that grew) redraws only
its own block, and a change that adds nothing adds no widget. Once the blocks overflow the
view it is anchored to the bottom (Textual's `anchor`): it stays at the newest block while
the person has not scrolled up, as a chat does. Blocks can be moved through with the
keyboard (`[` and `]`) like any focusable widget.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from tiny_harness.interaction.tui.timeline import Change, Timeline
from tiny_harness.interaction.tui.widgets.blocks import (
    AnswerBlock,
    Block,
    ProgressGroup,
    QuestionBlock,
    SurfaceBlock,
    block_for,
)
from tiny_harness.interaction.tui.widgets.call_block import call_block_for

__all__ = ["Conversation"]

_EMPTY = "Type a message below and press Enter to start a task."


class Conversation(VerticalScroll):
    """The blocks of one task."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("[", "previous_block", "Previous block", show=False),
        Binding("]", "next_block", "Next block", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = True
        self._blocks: dict[str, Block] = {}
        self._order: list[Block] = []
        self._empty: Static | None = None
        self._current = -1

    def on_mount(self) -> None:
        """Called when first shown: say how to begin, and stay at the newest block."""
        self._empty = Static(_EMPTY, classes="empty")
        self.mount(self._empty)

    async def clear(self) -> None:
        """Show no task."""
        self._blocks.clear()
        self._order.clear()
        self._current = -1
        self.anchor(False)
        await self.remove_children()
        self._empty = Static(_EMPTY, classes="empty")
        await self.mount(self._empty)

    @property
    def shown(self) -> list[Block]:
        """The blocks, in order."""
        return list(self._order)

    async def show(self, change: Change, timeline: Timeline) -> None:
        """Draw what `change` added or updated."""
        if change.added and self._empty is not None:
            await self._empty.remove()
            self._empty = None
        new = self._place(change, timeline)
        if new:
            await self.mount_all(new)
        for entry in change.updated:
            known = self._blocks.get(entry.id)
            if known is not None:
                await known.update_entry(entry)
        for surface_id in change.surfaces:
            drawn = self._blocks.get(f"a2ui:{surface_id}")
            if isinstance(drawn, SurfaceBlock) and drawn.is_mounted and drawn not in new:
                await drawn.surface.redraw()
        if not self.is_anchored:
            self.call_after_refresh(self._anchor_once_full)
        if change.state:
            self._mark_questions(timeline)
            if timeline.final:  # whatever was still streaming is complete now
                for block in self._order:
                    if isinstance(block, AnswerBlock):
                        await block.finish()

    def _anchor_once_full(self) -> None:
        # Anchored only once the blocks overflow: Textual's anchor bottom-aligns content
        # that is shorter than the view, and a conversation reads from the top.
        if not self.is_anchored and self.max_scroll_y > 0:
            self.anchor()

    def _place(self, change: Change, timeline: Timeline) -> list[Block]:
        """The new blocks for the added entries; a progress message joins the run of
        progress messages it follows instead of making a block of its own."""
        new: list[Block] = []
        for entry in change.added:
            last = self._order[-1] if self._order else None
            if isinstance(last, ProgressGroup) and ProgressGroup.takes(entry):
                last.add(entry)
                self._blocks[entry.id] = last
                continue
            if entry.kind == "call":
                block = call_block_for(entry)
            else:
                block = block_for(entry, timeline.surfaces)
            self._blocks[entry.id] = block
            self._order.append(block)
            new.append(block)
        return new

    def _mark_questions(self, timeline: Timeline) -> None:
        """Every question but the open one is answered."""
        waiting = timeline.question
        for block in self._order:
            if isinstance(block, QuestionBlock) and (waiting is None or block.entry != waiting):
                block.answered()

    def open_question(self) -> QuestionBlock | None:
        """The block of the question the task waits on, if any."""
        waiting = [
            b for b in self._order if isinstance(b, QuestionBlock) and not b.has_class("answered")
        ]
        return waiting[-1] if waiting else None

    def action_previous_block(self) -> None:
        """Scroll to the block before the current one."""
        self._step(-1)

    def action_next_block(self) -> None:
        """Scroll to the block after the current one."""
        self._step(1)

    def _step(self, by: int) -> None:
        blocks = self._order
        if not blocks:
            return
        if self._current < 0:
            self._current = len(blocks)
        self._current = max(0, min(len(blocks) - 1, self._current + by))
        for block in blocks:
            block.remove_class("current")
        target = blocks[self._current]
        target.add_class("current")
        self.release_anchor()  # back at the bottom, it holds again
        self.scroll_to_widget(target, animate=False)

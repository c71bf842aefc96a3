"""The conversation's blocks: one widget per `Entry` of the timeline.

    user      "you" and the text             agent     a progress line
    question  the question, its options as buttons (keys 1-9), and how to reply
    auth      the agent's message and links; the UI never invents a credential
    final     how the task ended (failed, canceled, rejected)
    artifact  the answer: Markdown streamed as chunks arrive, data as a JSON tree,
              files and URLs as a line, anything else a placeholder
    surface   an A2UI surface (`A2uiSurface`)

Each block draws its parts through `part_widgets`, so a part looks the same wherever it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import ClassVar

from rich.text import Text
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Markdown, Static, Tree
from textual.widgets.markdown import MarkdownStream

from tiny_harness.interaction.tui.a2ui import A2uiSurface
from tiny_harness.interaction.tui.surface_model import SurfaceModel
from tiny_harness.interaction.tui.timeline import Entry, PartView
from tiny_harness.interaction.tui.widgets.inline import inline_markdown

__all__ = [
    "AnswerBlock",
    "Block",
    "ProgressGroup",
    "QuestionBlock",
    "block_for",
    "part_widgets",
]


def _size(size: int | None) -> str:
    if size is None:
        return ""
    if size < 1024:
        return f", {size} bytes"
    if size < 1024 * 1024:
        return f", {size / 1024:.1f} KiB"
    return f", {size / (1024 * 1024):.1f} MiB"


def placeholder_text(part: PartView) -> str:
    """The one line a part the UI cannot draw gets: its kind and media type."""
    media = part.media_type or "no media type"
    return f"[{part.text} part ({media}) — not shown here]"


def action_text(part: PartView) -> str:
    """A person's A2UI action as one line: the button's action and its context."""
    context = part.data if isinstance(part.data, dict) else {}
    fields = "  ".join(
        f"{key}: {value if isinstance(value, str) else json.dumps(value)}"
        for key, value in context.items()
    )
    return f"▶ {part.name}" + (f"  {fields}" if fields else "")


def part_widgets(part: PartView, *, markdown: bool = False) -> Iterator[Widget]:
    """The widgets one part is drawn with; text as Markdown when `markdown` (answers),
    else as plain lines (messages, which are short)."""
    if part.kind == "markdown" and markdown:
        yield Markdown(part.text, classes="part-markdown")
    elif part.kind == "markdown":
        yield Static(part.text, classes="part-text", markup=False)
    elif part.kind == "json":
        tree: Tree[object] = Tree(part.media_type or "data", classes="part-json")
        tree.add_json(part.data)
        tree.root.expand()
        yield tree
    elif part.kind == "action":
        yield Static(action_text(part), classes="part-action", markup=False)
    elif part.kind == "file":
        line = Text("📎 ", style="bold")
        line.append(part.name or "(unnamed file)")
        line.append(f"  {part.media_type or 'unknown type'}{_size(part.size)}", style="dim")
        if part.url:
            line.append(f"  {part.url}", style=f"link {part.url} underline")
        yield Static(line, classes="part-file")
    else:
        yield Static(placeholder_text(part), classes="part-placeholder", markup=False)


class LineView(Widget):
    """Plain text that is redrawn often: a change that keeps its wrapped height repaints
    only this widget; only a change of height costs the screen a layout."""

    DEFAULT_CSS = "LineView { height: auto; }"

    def __init__(self, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self._text = Text()
        self._lines = 0

    def show(self, text: str | Text) -> None:
        """Show `text` instead."""
        self._text = Text(text) if isinstance(text, str) else text
        width = self.content_size.width
        lines = len(self._text.wrap(self.app.console, width)) if width and text else 0
        grew = lines != self._lines or not width
        self._lines = lines
        self.display = bool(text)
        self.refresh(layout=grew)

    def render(self) -> Text:
        """The text."""
        return self._text


class Block(Vertical):
    """One entry of the conversation."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes=f"block block-{entry.kind}")
        self.entry = entry

    def compose(self) -> Iterator[Widget]:
        """The entry's parts; a label first for the kinds that have one."""
        label = _LABELS.get(self.entry.kind)
        if label:
            yield Static(label, classes="block-label")
        for part in self.entry.parts:
            yield from part_widgets(part)

    async def update_entry(self, entry: Entry) -> None:
        """Show the entry as it now stands."""
        self.entry = entry
        await self.recompose()


_LABELS: dict[str, str] = {"user": "you", "auth": "authorisation needed", "final": ""}


class AgentLine(Block):
    """A progress message: one dim line per text, parts below."""

    def compose(self) -> Iterator[Widget]:
        """Text parts as lines, other parts as themselves."""
        for part in self.entry.parts:
            if part.kind == "markdown":
                yield Static(inline_markdown(f"· {part.text}"), classes="agent-line")
            else:
                yield from part_widgets(part)


class ProgressGroup(Block):
    """A run of progress messages in one block: the newest `VISIBLE` lines, the rest folded
    under one line until the person opens the block (Enter or a click). One widget however
    long the run, so a task of thousands of steps costs no more to draw than a short one."""

    VISIBLE: ClassVar[int] = 12

    can_focus = True

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry)
        self.entries: list[Entry] = [entry]
        self.expanded = False
        self._lines = LineView(classes="agent-line")

    @staticmethod
    def takes(entry: Entry) -> bool:
        """Whether `entry` is a plain progress message (text only)."""
        return entry.kind == "agent" and all(p.kind == "markdown" for p in entry.parts)

    def compose(self) -> Iterator[Widget]:
        """The lines, as one widget."""
        yield self._lines

    def on_mount(self) -> None:
        """Called when first shown: draw the lines."""
        self._draw()

    def add(self, entry: Entry) -> None:
        """One more progress message at the end of the run."""
        self.entries.append(entry)
        self._draw()

    def on_click(self) -> None:
        """Called when clicked: open or fold the run."""
        self.toggle()

    def key_enter(self) -> None:
        """Called on Enter while focused: open or fold the run."""
        self.toggle()

    def toggle(self) -> None:
        """Show every line, or only the newest."""
        self.expanded = not self.expanded
        self._draw()

    def _draw(self) -> None:
        shown = self.entries if self.expanded else self.entries[-self.VISIBLE :]
        lines = [inline_markdown(f"· {' '.join(p.text for p in e.parts)}") for e in shown]
        folded = len(self.entries) - len(shown)
        if folded:
            lines.insert(0, Text(f"▸ {folded} earlier progress messages (Enter or click to show)"))
        self._lines.show(Text("\n").join(lines))


class AnswerBlock(Block):
    """An artifact: its name, then its parts. A text answer that arrives in chunks grows
    without flicker: finished paragraphs go to one Markdown widget through its stream (a
    widget per paragraph, made once), the paragraph still being written is a plain line
    below it, redrawn alone, until its blank line comes or the answer is complete."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry)
        self._stream: MarkdownStream | None = None
        self._markdown: Markdown | None = None
        self._tail = LineView(classes="answer-tail")
        self._pending = ""
        self._shown = 0

    def compose(self) -> Iterator[Widget]:
        """The name, then every part; a text answer as one growing Markdown."""
        yield Static(self.entry.name or "answer", classes="block-label")
        if _all_markdown(self.entry):
            self._markdown = Markdown("", classes="part-markdown answer")
            yield self._markdown
            yield self._tail
        else:
            for part in self.entry.parts:
                yield from part_widgets(part, markdown=True)

    async def on_mount(self) -> None:
        """Called when the block is first shown: write the text it has."""
        await self._write_new()

    async def update_entry(self, entry: Entry) -> None:
        """Append new text chunks; redraw for anything else."""
        old = self.entry.parts
        grows = (
            self._markdown is not None
            and _all_markdown(entry)
            and len(entry.parts) > self._shown > 0
            # An appended chunk keeps the earlier parts themselves (no copy to compare).
            and entry.parts[self._shown - 1] is old[self._shown - 1]
        )
        self.entry = entry
        if grows:
            await self._write_new()
        else:
            await self._stop()
            self._shown, self._pending = 0, ""
            self._tail = LineView(classes="answer-tail")
            await self.recompose()
            await self._write_new()

    async def finish(self) -> None:
        """The answer is complete: the last paragraph becomes Markdown too."""
        if self._markdown is None or not self._pending:
            return
        await self._markdown_stream(self._markdown).write(self._pending)
        self._pending = ""
        self._tail.show("")

    async def _write_new(self) -> None:
        if self._markdown is None:
            return
        self._pending += "".join(p.text for p in self.entry.parts[self._shown :])
        self._shown = len(self.entry.parts)
        done, self._pending = _paragraphs(self._pending)
        if done:
            await self._markdown_stream(self._markdown).write(done)
        self._tail.show(self._pending)
        if self.entry.complete:
            await self.finish()

    def _markdown_stream(self, markdown: Markdown) -> MarkdownStream:
        if self._stream is None:
            self._stream = Markdown.get_stream(markdown)
        return self._stream

    async def _stop(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    async def on_unmount(self) -> None:
        """Called when the block goes: end its stream."""
        await self._stop()


def _paragraphs(text: str) -> tuple[str, str]:
    """`text` split into its finished paragraphs and the one still being written (never
    inside an open code fence, whose blank lines are not paragraph ends)."""
    cut = text.rfind("\n\n")
    if cut < 0:
        return "", text
    done = text[: cut + 2]
    if done.count("```") % 2:
        return "", text
    return done, text[cut + 2 :]


def _all_markdown(entry: Entry) -> bool:
    return bool(entry.parts) and all(p.kind == "markdown" for p in entry.parts)


class QuestionBlock(Block):
    """The agent's question: its text, and its options as numbered buttons."""

    class Chosen(Message):
        """A person picked an option of the question."""

        def __init__(self, option: str) -> None:
            super().__init__()
            self.option = option

    def compose(self) -> Iterator[Widget]:
        """The question, then the options, then how to answer."""
        yield Static("question", classes="block-label")
        for part in self.entry.parts:
            yield from part_widgets(part)
        if self.entry.options:
            yield Horizontal(
                *(
                    Button(f"{n} {option}", name=option, classes="option", compact=True)
                    for n, option in enumerate(self.entry.options[:9], start=1)
                ),
                classes="options",
            )
        hint = "press 1-9 or type a reply" if self.entry.options else "type your reply below"
        yield Static(hint, classes="hint")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Called when an option is pressed: post the choice."""
        if event.button.name is not None and "option" in event.button.classes:
            event.stop()
            self.post_message(self.Chosen(event.button.name))

    def answered(self) -> None:
        """The question is answered: its options no longer take a press."""
        self.add_class("answered")
        for button in self.query(Button):
            button.disabled = True


class SurfaceBlock(Block):
    """An A2UI surface the agent drew."""

    def __init__(self, entry: Entry, model: SurfaceModel) -> None:
        super().__init__(entry)
        self.surface = A2uiSurface(model)

    def compose(self) -> Iterator[Widget]:
        """The surface itself."""
        yield self.surface


def block_for(entry: Entry, surfaces: dict[str, SurfaceModel]) -> Block:
    """The widget that shows `entry` (a progress message starts a `ProgressGroup`)."""
    if ProgressGroup.takes(entry):
        return ProgressGroup(entry)
    if entry.kind == "agent":
        return AgentLine(entry)
    if entry.kind == "artifact":
        return AnswerBlock(entry)
    if entry.kind == "question":
        return QuestionBlock(entry)
    if entry.kind == "surface":
        model = surfaces.get(entry.surface_id) or SurfaceModel(entry.surface_id)
        return SurfaceBlock(entry, model)
    return Block(entry)

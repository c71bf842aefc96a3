"""Driving the terminal UI in tests: Textual's headless pilot against a real harness."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from textual.pilot import Pilot
from textual.widgets import Static

from tiny_harness.interaction.tui.app import TinyHarnessApp
from tiny_harness.interaction.tui.timeline import Entry
from tiny_harness.interaction.tui.widgets.blocks import Block, ProgressGroup
from tiny_harness.interaction.tui.widgets.task_list import TaskList

SIZE = (120, 40)
"""The terminal size every test runs at."""


async def until(
    pilot: Pilot[None], condition: Callable[[], bool], what: str, *, within: float = 30
) -> None:
    """Let the app run until `condition` holds; fail naming `what` after `within` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


@asynccontextmanager
async def running_tui(
    url: str, participant: str = "", *, notifications: bool = False, token: str = ""
) -> AsyncIterator[tuple[TinyHarnessApp, Pilot[None]]]:
    """The app headless at `SIZE` against the agent at `url` (presenting `token` as its
    API key when given), once it has the card."""
    app = TinyHarnessApp(url, participant=participant, token=token)
    async with app.run_test(size=SIZE, notifications=notifications) as pilot:
        await connected(pilot)
        yield app, pilot


async def connected(pilot: Pilot[None]) -> TinyHarnessApp:
    """The app, once it has read the agent's card."""
    app = pilot.app
    assert isinstance(app, TinyHarnessApp)
    await until(pilot, lambda: app.connection is not None, "the agent card")
    return app


async def type_and_send(pilot: Pilot[None], text: str) -> None:
    """Type `text` into the message box and press Enter, as a person would."""
    app = pilot.app
    assert isinstance(app, TinyHarnessApp)
    app.action_focus_composer()
    await pilot.press(*text)
    await pilot.press("enter")


def blocks(app: TinyHarnessApp) -> list[Entry]:
    """The entries the conversation shows, in order (each of a run of progress messages)."""
    shown: list[Entry] = []
    for block in app.query(Block):
        shown.extend(block.entries if isinstance(block, ProgressGroup) else [block.entry])
    return shown


def texts(app: TinyHarnessApp, kind: str) -> list[str]:
    """The text of every shown entry of `kind`."""
    return [
        " ".join(p.text for p in entry.parts if p.kind == "markdown")
        for entry in blocks(app)
        if entry.kind == kind
    ]


def first_row(app: TinyHarnessApp) -> str:
    """The text of the task list's first row ("" while the list is empty)."""
    tasks = app.query_one(TaskList)
    return str(tasks.get_option_at_index(0).prompt) if tasks.options else ""


def final_state(app: TinyHarnessApp) -> str:
    """The open task's state name once it is final, else ""."""
    timeline = app.timeline
    return timeline.state_name if timeline is not None and timeline.final else ""


def statics(app: TinyHarnessApp, selector: str) -> list[str]:
    """The text of every Static matching `selector`."""
    return [str(widget.render()) for widget in app.query(selector) if isinstance(widget, Static)]

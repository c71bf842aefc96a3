"""`screenshots`: the finished demo task as a person sees it, written as images for the docs.

- The terminal UI, headless (Textual's `run_test`): the conversation with its plan and call
  blocks, and the timeline screen (F3), each as an SVG.
- The web UI, when Debian's `chromium` is on `PATH` and the server serves a build at /ui:
  a PNG from chromium's headless screenshot of the task's page.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

import httpx
from textual.pilot import Pilot

from tiny_harness.interaction.tui.app import TinyHarnessApp
from tiny_harness.interaction.tui.screens.calls import CallsScreen
from tiny_harness.interaction.tui.widgets.blocks import Block

SIZE = (120, 42)


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    """Let the app run until `condition` holds (30 s at most)."""
    for _ in range(600):
        if condition():
            return
        await pilot.pause(0.05)
    raise RuntimeError(f"the terminal UI never showed {what}")


async def tui_shots(url: str, task_id: str, folder: Path) -> list[Path]:
    """The task in the terminal UI: `demo-tui.svg` and `demo-tui-timeline.svg`."""
    app = TinyHarnessApp(url)
    written = [folder / "demo-tui.svg", folder / "demo-tui-timeline.svg"]
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.connection is not None, "the agent card")
        app.open_task(task_id)

        def shown() -> bool:
            timeline = app.timeline
            done = timeline is not None and timeline.state_name == "TASK_STATE_COMPLETED"
            return done and bool(app.query(Block))

        await until(pilot, shown, "the completed task")
        await pilot.wait_for_scheduled_animations()
        written[0].write_text(app.export_screenshot())
        app.action_show_calls()
        await until(pilot, lambda: isinstance(app.screen, CallsScreen), "the timeline")
        await pilot.wait_for_scheduled_animations()
        written[1].write_text(app.export_screenshot())
    return written


async def web_shot(url: str, task_id: str, folder: Path) -> Path | None:
    """The task in the web UI as `demo-web.png`; None without chromium or a build."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    async with httpx.AsyncClient() as http:
        built = (await http.get(f"{url}/ui/")).status_code == 200
    if chromium is None or not built:
        return None
    shot = folder / "demo-web.png"
    browser = await asyncio.create_subprocess_exec(
        *(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"),
        *("--virtual-time-budget=10000", "--window-size=1280,900", f"--screenshot={shot}"),
        f"{url}/ui/#task={task_id}",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    await asyncio.wait_for(browser.wait(), timeout=120)
    return shot if shot.exists() else None


async def screenshots(url: str, task_id: str, folder: Path) -> list[Path]:
    """Every image of the task this machine can take, written into `folder`."""
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    written = await tui_shots(url, task_id, folder)
    web = await web_shot(url, task_id, folder)
    return [*written, *([web] if web else [])]

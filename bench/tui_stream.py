"""How fast the terminal UI draws a long stream, and what it weighs at the end.

A plain a2a-sdk agent (`stream_agent.py`, its own process, on 127.0.0.1) answers "stream"
with one task of `--events` events: a progress message and an answer chunk (appended to one
artifact, the way a model's answer streams) in turn, `--rate` events a second, then
COMPLETED. Each event carries the wall-clock time the agent emitted it in its metadata. The
TUI (`TinyHarnessApp`, headless, 120x40) sends the message and draws the stream; for every
event it records:

- arrival -> screen: from the moment the SDK client hands the event to the app to the end
  of the first screen refresh after the app has drawn it (`call_after_refresh`);
- emit -> screen: from the agent's emit time to the same refresh (includes HTTP, SSE
  parsing and any queueing behind a slow draw).

At the end it prints the percentiles (nearest rank), the app's resident memory (VmRSS, and
the peak VmHWM) and how many widgets the conversation holds. Target: arrival -> screen p95
under 50 ms.

Run (from the repository root):

    .venv/bin/python bench/tui_stream.py [--events 2000] [--rate 100]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from pathlib import Path

from a2a.types import StreamResponse

from tiny_harness.interaction.tui.app import TinyHarnessApp
from tiny_harness.interaction.tui.session import TaskSession, opener
from tiny_harness.interaction.tui.timeline import Timeline
from tiny_harness.service.http import free_port

ROOT = Path(__file__).resolve().parents[1]


class TimedSession(TaskSession):
    """The real session, noting when each event it hands the app reaches the screen."""

    def __init__(self, app: TimedApp) -> None:
        super().__init__(app.url, "", opener(), app)
        self._app = app

    async def apply(self, timeline: Timeline, event: StreamResponse) -> None:
        arrived = time.perf_counter()
        emitted = _emitted_ns(event)
        await super().apply(timeline, event)
        app = self._app

        def shown() -> None:
            app.arrival_ms.append((time.perf_counter() - arrived) * 1000)
            if emitted:
                app.emit_ms.append((time.time_ns() - emitted) / 1e6)

        app.call_after_refresh(shown)


class TimedApp(TinyHarnessApp):
    """The real app, with a session that times what it draws."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.arrival_ms: list[float] = []
        self.emit_ms: list[float] = []
        self.session = TimedSession(self)


def _emitted_ns(event: StreamResponse) -> int:
    kind = event.WhichOneof("payload")
    if kind == "status_update" and event.status_update.status.HasField("message"):
        metadata = event.status_update.status.message.metadata
    elif kind == "artifact_update":
        metadata = event.artifact_update.artifact.metadata
    else:
        return 0
    value = metadata.fields.get("emitted_ns")
    return int(value.number_value) if value is not None else 0


def _rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _memory() -> dict[str, str]:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = value.strip()
    return fields


async def _run(events: int, rate: float) -> None:
    port = free_port()
    agent = await asyncio.create_subprocess_exec(
        *(sys.executable, str(ROOT / "bench" / "stream_agent.py"), str(port)),
        *("--events", str(events), "--rate", str(rate)),
        cwd=ROOT,
    )
    try:
        app = TimedApp(f"http://127.0.0.1:{port}")
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(200):
                if app.connection is not None:
                    break
                await pilot.pause(0.1)
            started = time.perf_counter()
            app.send_text("stream")
            deadline = started + events / rate * 3 + 60
            while not (app.timeline and app.timeline.final) and time.perf_counter() < deadline:
                await pilot.pause(0.1)
            await pilot.pause(0.5)
            wall = time.perf_counter() - started
            widgets = len(app.query("#conversation *"))
            state = app.timeline.state_name if app.timeline else "no task"
    finally:
        agent.terminate()
        await asyncio.wait_for(agent.wait(), timeout=10)
    memory = _memory()
    print(f"task: {state}, {len(app.arrival_ms)} events drawn in {wall:.1f} s ({rate:.0f}/s sent)")
    for name, values in (("arrival -> screen", app.arrival_ms), ("emit -> screen", app.emit_ms)):
        if values:
            print(
                f"{name:18} p50 {_rank(values, 0.5):6.1f} ms   p95 {_rank(values, 0.95):6.1f} ms"
                f"   max {max(values):6.1f} ms   (n={len(values)})"
            )
    print(f"memory: VmRSS {memory.get('VmRSS')}, peak VmHWM {memory.get('VmHWM')}")
    print(f"widgets in the conversation: {widgets}")
    verdict = "met" if app.arrival_ms and _rank(app.arrival_ms, 0.95) < 50 else "NOT met"
    print(f"target arrival -> screen p95 < 50 ms: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=100.0, help="events a second")
    args = parser.parse_args()
    asyncio.run(_run(args.events, args.rate))


if __name__ == "__main__":
    main()

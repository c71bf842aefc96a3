"""How fast the web UI draws a long stream, and what its build weighs.

- **bundle**: the built app's JavaScript and CSS (`renderers/web/dist/assets`), raw and
  gzipped (level 9, as a server would send it). Target: JavaScript under 300 kB gzipped.
- **arrival -> screen**: a plain a2a-sdk agent (`stream_agent.py`, its own process, on
  127.0.0.1) serves the build at /ui and answers "stream" with one task of `--events` events
  at `--rate` a second. Debian's chromium (headless, playwright-core, driven by
  `renderers/web/bench/render-latency.mjs`) opens the page, sends the message and reads the
  app's Performance marks: per event, from its arrival at the reducer (`th:event`) to the
  first frame after React committed it (`th:shown`). Target: p95 under 50 ms.

Run (from the repository root, after `make serve` or `make test` built the UI):

    .venv/bin/python bench/web_stream.py [--events 500] [--rate 100]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import math
import sys
from pathlib import Path

from tiny_harness.service.http import free_port

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "renderers" / "web"
DIST = WEB / "dist"


def _bundle() -> None:
    for suffix in ("js", "css"):
        files = sorted((DIST / "assets").glob(f"*.{suffix}"))
        raw = sum(f.stat().st_size for f in files)
        packed = sum(len(gzip.compress(f.read_bytes(), compresslevel=9)) for f in files)
        print(
            f"bundle {suffix:3}: {len(files)} file(s), {raw / 1000:7.1f} kB, "
            f"gzipped {packed / 1000:6.1f} kB"
        )
        if suffix == "js":
            print(f"target JavaScript gzipped < 300 kB: {'met' if packed < 300_000 else 'NOT met'}")


def _rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


async def _measure(events: int, rate: float) -> None:
    port = free_port()
    agent = await asyncio.create_subprocess_exec(
        *(sys.executable, str(ROOT / "bench" / "stream_agent.py"), str(port)),
        *("--events", str(events), "--rate", str(rate), "--ui", str(DIST)),
        cwd=ROOT,
    )
    try:
        timeout = events / rate * 3 + 60
        browser = await asyncio.create_subprocess_exec(
            *("node", "bench/render-latency.mjs", f"http://127.0.0.1:{port}", str(int(timeout))),
            cwd=WEB,
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await browser.communicate()
        if browser.returncode != 0:
            raise SystemExit(f"render-latency.mjs failed (exit {browser.returncode})")
    finally:
        agent.terminate()
        await asyncio.wait_for(agent.wait(), timeout=10)
    result = json.loads(out)
    delays = [d for d in result["delays"] if d is not None]
    missed = len(result["delays"]) - len(delays)
    print(
        f"task: {len(result['delays'])} events in {result['wall']:.1f} s ({rate:.0f}/s sent), "
        f"{result['entries']} blocks on screen, {missed} never marked shown"
    )
    print(
        f"arrival -> screen  p50 {_rank(delays, 0.5):6.1f} ms   p95 {_rank(delays, 0.95):6.1f} ms"
        f"   max {max(delays):6.1f} ms   (n={len(delays)})"
    )
    print(
        f"target arrival -> screen p95 < 50 ms: {'met' if _rank(delays, 0.95) < 50 else 'NOT met'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--rate", type=float, default=100.0, help="events a second")
    args = parser.parse_args()
    if not (DIST / "index.html").is_file():
        raise SystemExit(f"no web UI build in {DIST}: run `make web` (or `make serve`) first")
    _bundle()
    asyncio.run(_measure(args.events, args.rate))


if __name__ == "__main__":
    main()

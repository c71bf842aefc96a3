"""What a parked task costs the serve process: RSS at 1,000 and 10,000 tasks in INPUT_REQUIRED.

    .venv/bin/python bench/parked.py                         # checkpoints 1000,10000
    .venv/bin/python bench/parked.py --at 200,1000,2000 --cache 500 --concurrency 16

It runs a real `tiny-harness serve` (its embedded Temporal dev server a child of it, its
data in a temporary directory) on the scripted model's one-question script, and parks tasks
in it: each task is one SendMessage that returns once the task waits for its answer
(INPUT_REQUIRED). At each checkpoint it waits until the serve process's RSS is steady
(`/proc/<pid>/status` VmRSS, the least of several readings a second apart) and prints it,
with the cost per task since the previous checkpoint. `--cache` sets
`TINY_HARNESS_TEMPORAL__MAX_CACHED_WORKFLOWS`, the worker's bound on runs it keeps in memory:
past it, a parked task's run is evicted and replayed from history when its answer comes.

How to read the output: "kB/task" between two checkpoints both past the cache is what a
parked task costs once its run is evicted (the target: at most 20 kB); below the cache it
includes the cached run. The dev server's RSS (another process) is shown for information;
the figures are from one machine, and RSS moves by a few MB from run to run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import httpx
from a2a.client import Client as A2AClient
from a2a.client import ClientConfig, ClientFactory
from a2a.types import TaskState

from tiny_harness.config import TemporalConfig
from tiny_harness.service.http import free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.service.serve_process import ServeProcess
from tests.support import ASKS_WHICH_SIZE, collect, send_request

STEADY_READINGS: Final = 5
"""RSS readings, a second apart, whose least is a checkpoint's figure."""


def rss_kb(pid: int) -> int:
    """The resident set size of process `pid`, in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def children_of(pid: int) -> list[int]:
    """The direct children of process `pid` (the embedded dev server is one)."""
    tasks = Path(f"/proc/{pid}/task")
    found: list[int] = []
    for task in tasks.iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


async def steady_rss(pid: int) -> int:
    """The least of `STEADY_READINGS` readings, a second apart: what stays resident."""
    readings = []
    for _ in range(STEADY_READINGS):
        await asyncio.sleep(1)
        readings.append(rss_kb(pid))
    return min(readings)


async def park(client: A2AClient) -> None:
    """Send one task and return once it waits for its answer."""
    events = await collect(client.send_message(send_request("order a shirt")))
    last = events[-1]
    state = last.task.status.state if last.HasField("task") else last.status_update.status.state
    if state != TaskState.TASK_STATE_INPUT_REQUIRED:
        raise RuntimeError(f"a task ended {TaskState.Name(state)}, not parked")


async def park_many(url: str, count: int, concurrency: int) -> None:
    """Park `count` tasks, `concurrency` at a time."""
    async with httpx.AsyncClient(timeout=120) as http:
        config = ClientConfig(
            streaming=False, supported_protocol_bindings=["JSONRPC"], httpx_client=http
        )
        clients = [await ClientFactory(config).create_from_url(url) for _ in range(concurrency)]
        left = iter(range(count))

        async def lane(client: A2AClient) -> None:
            for _ in left:
                await park(client)

        await asyncio.gather(*(lane(c) for c in clients))


def serve_env(script: Path, cache: int | None) -> dict[str, str]:
    env = {
        "TINY_HARNESS_MODEL__SCRIPT": str(script),
        "TINY_HARNESS_TEMPORAL__EMBEDDED_PORT": "0",
        "TINY_HARNESS_SERVER__RATE_LIMIT_PER_SECOND": "0",
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
    }
    if cache is not None:
        env["TINY_HARNESS_TEMPORAL__MAX_CACHED_WORKFLOWS"] = str(cache)
    return env


async def run(checkpoints: Sequence[int], concurrency: int, cache: int | None) -> None:
    with tempfile.TemporaryDirectory(prefix="tiny-harness-parked-") as tmp:
        script = Path(tmp) / "script.yaml"
        script.write_text(ASKS_WHICH_SIZE)
        serve = ServeProcess(Path(tmp) / "data", free_port(), serve_env(script, cache))
        await serve.start()
        try:
            await measure(serve, checkpoints, concurrency, cache)
        finally:
            await serve.stop()


async def measure(
    serve: ServeProcess, checkpoints: Sequence[int], concurrency: int, cache: int | None
) -> None:
    pid = serve.pid
    await park_many(serve.url, 3, 1)  # warm-up: every code path loaded once
    bound = TemporalConfig().max_cached_workflows if cache is None else cache
    print(f"parked tasks in one serve process (worker cache: {bound} runs)")
    print(f"{'parked':>8} {'serve RSS MB':>13} {'kB/task':>8} {'dev server MB':>14} {'s':>6}")
    parked, before = 3, await steady_rss(pid)
    print(f"{parked:>8} {before / 1024:>13.1f} {'':>8} {dev_server_mb(pid):>14.1f} {0:>6}")
    for target in checkpoints:
        started = time.monotonic()
        await park_many(serve.url, target - parked, concurrency)
        took = time.monotonic() - started
        now = await steady_rss(pid)
        per_task = (now - before) / (target - parked)
        print(
            f"{target:>8} {now / 1024:>13.1f} {per_task:>8.1f} "
            f"{dev_server_mb(pid):>14.1f} {took:>6.0f}"
        )
        parked, before = target, now


def dev_server_mb(pid: int) -> float:
    return sum(rss_kb(c) for c in children_of(pid)) / 1024


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--at", default="1000,10000", help="checkpoints, parked tasks")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--cache", type=int, default=None, help="worker's max cached runs")
    args = parser.parse_args(argv)
    checkpoints = sorted(int(n) for n in args.at.split(","))
    asyncio.run(run(checkpoints, args.concurrency, args.cache))


if __name__ == "__main__":
    main()

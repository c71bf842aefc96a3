"""How fast a change on a delegated remote task reaches the parent task: push against follow.

Run with: `.venv/bin/python bench/watch.py [--rounds 20]`

    bench ──"start"──► parent TaskWorkflow ──spawn_subtask──► stand-in RemoteTaskWorkflow
                                                                  │ brief (SendStreamingMessage)
    plain a2a-sdk agent (tests/harness/agents/plain_agent.py) ◄───┘ parks it INPUT_REQUIRED
      push:   stand-in registers a push config, reads once (GetTask), waits for the doorbell
      follow: stand-in holds GetTask + SubscribeToTask open in an activity
    t0 ─► bench ──reply (SendMessage, task id = the remote task)──► plain agent: COMPLETED
      push:   SDK push sender ─POST /a2a/push/<stand-in>─► harness ─► update ─► GetTask
      follow: the open SubscribeToTask stream carries COMPLETED
    stand-in ─signal subtask_changed(COMPLETED)─► parent   (t1 = its WorkflowExecutionSignaled)

The change is the bench completing the parked remote task itself: it sends a reply straight
to the plain agent (a second client, as the remote agent's own user would), and the plain
executor completes an "ask" task when it gets a reply. t0 is `time.time_ns()` just before
that reply is sent. Per round, each stage below is its time minus t0, in ms, all on this
machine's wall clock (the Temporal ones are event times from the parent's history):

- push arrived / push answered (push only): the first POST /a2a/push after t0 reached the
  harness's app / the harness sent its status (after the stand-in's update completed);
- reply answered: the bench's reply got its response (with push, the a2a-sdk delivers the
  push before it answers, so this follows "push answered");
- signaled: the parent's `WorkflowExecutionSignaled` event for `subtask_changed` whose turn
  is COMPLETED: the Temporal server wrote the sub-task row update into the parent's history;
- handler started / processed: the first workflow task of the parent started after that
  event, and its `WorkflowTaskCompleted`: the handler has run and updated the row (that
  workflow task also runs the parent's next turn up to its first ordinary activity).

It also counts requests per change: every call the plain agent received after t0 (the
bench's reply left out) until the stand-in ended, by JSON-RPC method, and the POSTs to
/a2a/push the harness received in that window, by HTTP status; "setup" is the same count
from the parent's "start" to t0 (brief, watch registration, reads while parked).

Each mode runs on its own harness (the tests' `running_harness`: worker and A2A server
in-process) and its own plain agent, both on one embedded Temporal dev server the bench
starts; one warm-up round per mode is not counted. The harness's requests are counted by
a middleware added to the app `tests.support.create_app` builds (patched for the bench).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import math
import os
import platform
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal
from unittest import mock

import httpx
from a2a.client import Client as A2AClient
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import new_text_message
from a2a.types import Role, SendMessageRequest, StreamResponse, TaskState
from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client as TemporalClient
from temporalio.service import RPCError, RPCStatusCode

from tiny_harness.config import TemporalConfig
from tiny_harness.harness.agents.turns import RemoteTurn
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.service.a2a.app import create_app
from tiny_harness.service.durable.client.temporal import connect
from tiny_harness.service.durable.remote_payloads import SubtaskUpdate
from tiny_harness.service.durable.workflows.remote import SUBTASK_CHANGED_SIGNAL

# `tests` is importable from the repository root only (pytest's pythonpath "."), so a run
# as `python bench/watch.py` puts the root on the path first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests import support
from tests.harness.agents.plain_agent import Call, PlainAgent, plain_agent, plain_card
from tests.support import RunningHarness, delegating_to, running_harness, send_request

Mode = Literal["push", "follow"]

PARENT: Final = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: plain, name: pick, goal: ask}}]
  - when: "^start"
    text: "Waiting for the sub-task."
  - when: "INPUT_REQUIRED"
    text: "The sub-task waits for its user."
  - when: "COMPLETED"
    text: "The sub-task completed on its side."
"""
PUSH_PREFIX: Final = "/a2a/push/"
COMPLETED: Final = TaskState.TASK_STATE_COMPLETED
PARENT_LLM_CALLS_WHILE_PARKED: Final = 3
"""spawn, "Waiting for the sub-task.", then the INPUT_REQUIRED note's turn."""
PUSH_ACTIVITIES_WHEN_READY: Final = 3
"""The stand-in's brief, push registration and reconciling GetTask."""
POLL_S: Final = 0.05
SETTLE_S: Final = 0.2
"""Quiet time after the watch is ready and the parent idle, before the change."""
ROUND_TIMEOUT_S: Final = 30.0
STARTUP_TIMEOUT_S: Final = 60.0
SHUTDOWN_TIMEOUT_S: Final = 30.0
CAVEATS: Final = """\
Caveats: t0 is time.time_ns() just before the bench's reply; the Temporal stages are event
times from the parent's history (the dev server's clock: same machine, same wall clock).
"signaled" is when the sub-task row update became durable as a signal in the parent's
history; "processed" is when the parent's workflow task that ran the handler completed (it
also runs the parent's next turn up to its first ordinary activity, local activities
included). The bench, both harnesses' workers and A2A servers and the plain agents share one
event loop, and the Temporal dev server (SQLite) runs on the same 2-core machine, so every
figure includes CPU contention between them. With push, the a2a-sdk sends the push before
it answers the reply, so "reply answered" follows "push answered"."""


@dataclass(frozen=True)
class Hit:
    """One request the harness received, and when it arrived and was answered."""

    path: str
    method: str
    status: int
    arrived_ns: int
    answered_ns: int


class HarnessTap:
    """ASGI middleware: appends a `Hit` to `hits` when a request is answered."""

    def __init__(self, app: ASGIApp, hits: list[Hit]) -> None:
        self._app = app
        self._hits = hits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        arrived = time.time_ns()

        async def tapped_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = int(message["status"])
                hit = Hit(scope["path"], scope["method"], status, arrived, time.time_ns())
                self._hits.append(hit)
            await send(message)

        await self._app(scope, receive, tapped_send)


STAGES: Final = (
    ("push arrived", "POST /a2a/push reached the harness"),
    ("push answered", "the harness answered that POST"),
    ("reply answered", "the bench's reply got its response"),
    ("signaled", "parent's WorkflowExecutionSignaled event"),
    ("handler started", "parent's next workflow task started"),
    ("processed", "that workflow task completed"),
)
"""Each stage's key and what its time is; every figure is that time minus t0."""


@dataclass
class Round:
    """One change, measured: ms from t0 to each stage (push stages only with push)."""

    stages: dict[str, float]
    local_activities: int
    """Local activities the parent ran inside the workflow task that took the signal."""
    setup: Counter[str]
    change: Counter[str]
    push_statuses: Counter[int]


@dataclass
class Pair:
    """One mode's harness, plain agent and clients."""

    mode: Mode
    parent: RunningHarness
    remote: PlainAgent
    hits: list[Hit]
    parent_client: A2AClient
    user_client: A2AClient
    """The remote agent's own user: sends the reply that completes the parked task."""
    rounds: list[Round] = field(default_factory=list)


@asynccontextmanager
async def opened(mode: Mode, temporal: TemporalClient, data_dir: Path) -> AsyncIterator[Pair]:
    """A harness delegating to a plain agent that pushes (push) or does not (follow)."""
    push = mode == "push"
    hits: list[Hit] = []

    def tapped_app(*args: object, **kwargs: object) -> Starlette:
        app = create_app(*args, **kwargs)  # type: ignore[arg-type]
        app.add_middleware(HarnessTap, hits=hits)
        return app

    card = functools.partial(plain_card, push=push)
    async with AsyncExitStack() as stack:
        remote = await stack.enter_async_context(
            plain_agent(push_store=push, push_sender=push, card=card)
        )
        with mock.patch.object(support, "create_app", tapped_app):
            parent = await stack.enter_async_context(
                running_harness(temporal, data_dir / mode, PARENT)
            )
        await stack.enter_async_context(delegating_to(parent, "plain", remote.url))
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30, trust_env=False))
        config = ClientConfig(streaming=False, httpx_client=http)
        user_client = await ClientFactory(config).create_from_url(remote.url)
        yield Pair(mode, parent, remote, hits, await parent.client(), user_client)


# --------------------------------------------------------------------------------------------
# One round


async def first_task_id(stream: AsyncIterator[StreamResponse], found: asyncio.Future[str]) -> None:
    """Read the parent's stream to its end; `found` gets the task id of its first event."""
    async for event in stream:
        if not found.done() and event.HasField("task"):
            found.set_result(event.task.id)
    if not found.done():
        found.set_exception(RuntimeError("the parent's stream ended without a task"))


async def poll_until(probe: Callable[[], object], what: str) -> None:
    """Call `probe` (sync or async) every `POLL_S` until it is truthy; bounded."""
    try:
        async with asyncio.timeout(ROUND_TIMEOUT_S):
            while True:
                found = probe()
                if asyncio.iscoroutine(found):
                    found = await found
                if found:
                    return
                await asyncio.sleep(POLL_S)
    except TimeoutError:
        raise RuntimeError(f"never saw {what}") from None


async def history(temporal: TemporalClient, workflow_id: str) -> list[HistoryEvent]:
    """The workflow's events; none while it does not exist yet."""
    try:
        return list((await temporal.get_workflow_handle(workflow_id).fetch_history()).events)
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return []
        raise


def idle(events: Sequence[HistoryEvent]) -> bool:
    """No activity and no workflow task open (an accepted `watch` update may be)."""
    kinds = Counter(str(e.WhichOneof("attributes")) for e in events)

    def closed(prefix: str, endings: Sequence[str]) -> bool:
        ended = sum(kinds[f"{prefix}_{ending}_event_attributes"] for ending in endings)
        return kinds[f"{prefix}_scheduled_event_attributes"] == ended

    return bool(events) and (
        closed("activity_task", ("completed", "failed", "timed_out", "canceled"))
        and closed("workflow_task", ("completed", "failed", "timed_out"))
    )


def scheduled(events: Sequence[HistoryEvent], activity_type: str) -> int:
    return sum(
        e.activity_task_scheduled_event_attributes.activity_type.name == activity_type
        for e in events
        if e.HasField("activity_task_scheduled_event_attributes")
    )


async def wait_parked(pair: Pair, parent_id: str, stand_in: str, since: int) -> RemoteTurn:
    """Until the remote task is parked and watched and the parent waits; the parked turn."""
    temporal = pair.parent.temporal

    async def parent_waits() -> bool:
        events = await history(temporal, parent_id)
        return idle(events) and scheduled(events, "invoke_llm") >= PARENT_LLM_CALLS_WHILE_PARKED

    async def push_ready() -> bool:
        events = await history(temporal, stand_in)
        done = sum(e.HasField("activity_task_completed_event_attributes") for e in events)
        return idle(events) and done >= PUSH_ACTIVITIES_WHEN_READY

    def follow_ready() -> bool:
        # The follow activity reads (GetTask) before it subscribes.
        return any(c.method == "SubscribeToTask" for c in pair.remote.calls[since:])

    await poll_until(push_ready if pair.mode == "push" else follow_ready, "the watch")
    await poll_until(parent_waits, "the parent waiting")
    handle = temporal.get_workflow_handle(stand_in)
    turn: RemoteTurn = await handle.query("turn", result_type=RemoteTurn)
    if turn.state != TaskState.TASK_STATE_INPUT_REQUIRED:
        raise RuntimeError(f"the sub-task is {turn.state_name}, not parked")
    await asyncio.sleep(SETTLE_S)
    return turn


async def reply_directly(pair: Pair, remote_task_id: str) -> tuple[int, int, str]:
    """Complete the parked task as its own user: (t0, reply answered, the message id)."""
    message = new_text_message("go on", task_id=remote_task_id, role=Role.ROLE_USER)
    message.message_id = str(uuid.uuid4())
    started = time.time_ns()
    async for _ in pair.user_client.send_message(SendMessageRequest(message=message)):
        pass
    return started, time.time_ns(), message.message_id


@dataclass(frozen=True)
class Taken:
    """When the parent took the signal: its event, and the workflow task that ran it."""

    signaled_ns: int
    started_ns: int
    completed_ns: int
    local_activities: int


async def taken(temporal: TemporalClient, parent_id: str) -> Taken:
    """The parent's `subtask_changed` signal to COMPLETED and the workflow task after it."""
    events = await history(temporal, parent_id)
    for index, event in enumerate(events):
        attributes = event.workflow_execution_signaled_event_attributes
        if not event.HasField("workflow_execution_signaled_event_attributes"):
            continue
        if attributes.signal_name != SUBTASK_CHANGED_SIGNAL:
            continue
        [update] = await temporal.data_converter.decode(
            list(attributes.input.payloads), [SubtaskUpdate]
        )
        if isinstance(update, SubtaskUpdate) and update.turn.state == COMPLETED:
            return workflow_task_after(event.event_time.ToNanoseconds(), events[index + 1 :])
    raise RuntimeError(f"{parent_id} has no {SUBTASK_CHANGED_SIGNAL} to COMPLETED")


def workflow_task_after(signaled_ns: int, events: Sequence[HistoryEvent]) -> Taken:
    """The first workflow task started in `events` (a signal is delivered to the next
    workflow task that starts after it is recorded), with the local activities it ran: the
    markers among the commands recorded after its completion."""
    started: HistoryEvent | None = None
    completed: HistoryEvent | None = None
    markers = 0
    for event in events:
        kind = event.event_type
        if started is None:
            started = event if kind == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED else None
        elif completed is None:
            attributes = event.workflow_task_completed_event_attributes
            if (
                kind == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
                and attributes.started_event_id == started.event_id
            ):
                completed = event
        elif kind == EventType.EVENT_TYPE_MARKER_RECORDED:
            markers += 1
        elif kind == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
            break
    if started is None or completed is None:
        raise RuntimeError("no workflow task completed after the signal")
    return Taken(
        signaled_ns=signaled_ns,
        started_ns=started.event_time.ToNanoseconds(),
        completed_ns=completed.event_time.ToNanoseconds(),
        local_activities=markers,
    )


def methods(calls: Sequence[Call], *, leave_out: str = "") -> Counter[str]:
    """The plain agent's calls by JSON-RPC method (or path), without any naming `leave_out`."""
    kept = [c for c in calls if not (leave_out and leave_out.encode() in c.body)]
    return Counter(c.method or c.path for c in kept)


async def one_round(pair: Pair) -> Round:
    remote, hits, temporal = pair.remote, pair.hits, pair.parent.temporal
    calls_before = len(remote.calls)
    found: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    stream = pair.parent_client.send_message(send_request("start"))
    reading = asyncio.create_task(first_task_id(stream, found))
    try:
        async with asyncio.timeout(ROUND_TIMEOUT_S):
            parent_id = await found
        stand_in = f"{parent_id}.sub-1"  # the first sub-task's local id (Delegation._spawn)
        parked = await wait_parked(pair, parent_id, stand_in, calls_before)
        calls_at_change, hits_at_change = len(remote.calls), len(hits)
        t0, answered, reply_id = await reply_directly(pair, parked.remote_task_id)
        async with asyncio.timeout(ROUND_TIMEOUT_S):
            final = await temporal.get_workflow_handle(stand_in, result_type=RemoteTurn).result()
            await reading
    finally:
        reading.cancel()
    if final.state != COMPLETED:
        raise RuntimeError(f"the sub-task ended {final.state_name}")
    took = await taken(temporal, parent_id)
    pushes = [h for h in hits[hits_at_change:] if h.path.startswith(PUSH_PREFIX)]
    times = {
        "reply answered": answered,
        "signaled": took.signaled_ns,
        "handler started": took.started_ns,
        "processed": took.completed_ns,
    }
    if pushes:
        times |= {"push arrived": pushes[0].arrived_ns, "push answered": pushes[0].answered_ns}
    return Round(
        stages={stage: (at - t0) / 1e6 for stage, at in times.items()},
        local_activities=took.local_activities,
        setup=methods(remote.calls[calls_before:calls_at_change]),
        change=methods(remote.calls[calls_at_change:], leave_out=reply_id),
        push_statuses=Counter(h.status for h in pushes if h.method == "POST"),
    )


# --------------------------------------------------------------------------------------------
# Reporting


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (`p` in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


def per_round(counters: Sequence[Counter[str]] | Sequence[Counter[int]]) -> str:
    """Each key's count per round: "GetTask 1" when every round agrees, else mean and range."""
    keys = sorted({str(k) for c in counters for k in c})
    parts = []
    for key in keys:
        counts = [sum(n for k, n in c.items() if str(k) == key) for c in counters]
        low, high = min(counts), max(counts)
        mean = sum(counts) / len(counts)
        parts.append(f"{key} {low}" if low == high else f"{key} {mean:.2f} ({low}-{high})")
    return ", ".join(parts) or "none"


def print_report(pairs: Sequence[Pair]) -> None:
    head = "{:<16} {:<41}" + " {:>10} {:>10}" * len(pairs)
    columns = [f"{p.mode} {q}" for p in pairs for q in ("p50", "p95")]
    print(head.format("ms after t0", "stage", *columns))
    print("-" * (58 + 22 * len(pairs)))
    for stage, meaning in STAGES:
        cells: list[str] = []
        for pair in pairs:
            values = [r.stages[stage] for r in pair.rounds if stage in r.stages]
            cells += [f"{percentile(values, q):.1f}" if values else "-" for q in (50, 95)]
        print(head.format(stage, meaning, *cells))
    rounds = ", ".join(f"{p.mode} {len(p.rounds)}" for p in pairs)
    print(f"(rounds: {rounds}; nearest-rank percentiles; t0 = the bench sends its reply)")
    print()
    for pair in pairs:
        print(f"{pair.mode}: requests per change (after t0 until the stand-in ended)")
        print(f"  plain agent received: {per_round([r.change for r in pair.rounds])}")
        pushes = per_round([r.push_statuses for r in pair.rounds])
        print(f"  harness received POST {PUSH_PREFIX}<stand-in>, by status: {pushes}")
        print(f"  setup per parked task (start to t0): {per_round([r.setup for r in pair.rounds])}")
        local = per_round([Counter({"local activities": r.local_activities}) for r in pair.rounds])
        print(f"  in the parent's workflow task that took the signal: {local}")
    print()
    print(CAVEATS)


def print_header(rounds: int) -> None:
    print("tiny-harness watch benchmark: remote change -> parent sub-task row, push vs follow")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs; python "
        f"{platform.python_version()}; {rounds} counted rounds per mode after 1 warm-up"
    )
    print()


# --------------------------------------------------------------------------------------------
# Main


async def run(rounds: int) -> None:
    stack = AsyncExitStack()
    try:
        await measure(rounds, stack)
    finally:
        # Bounded: on timeout the running step is cancelled and the rest still unwind.
        async with asyncio.timeout(SHUTDOWN_TIMEOUT_S):
            await stack.aclose()


async def measure(rounds: int, stack: AsyncExitStack) -> None:
    """Start Temporal on `stack`, run each mode on its own harness, print the figures."""
    data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="th-watch-")))
    started = time.perf_counter()
    async with asyncio.timeout(STARTUP_TIMEOUT_S):
        # Each harness below makes its own client with its own store; this one keeps
        # whatever large payload the bench's own calls send.
        store = SqliteStore(data_dir / "bench.sqlite3")
        stack.push_async_callback(store.close)
        temporal = await connect(TemporalConfig(embedded_port=0), data_dir, stack, store=store)
    print(f"temporal up in {time.perf_counter() - started:.1f} s at {temporal.address}")
    pairs: list[Pair] = []
    modes: tuple[Mode, ...] = ("push", "follow")
    for mode in modes:
        async with opened(mode, temporal.client, data_dir) as pair:
            await one_round(pair)  # warm-up, not counted
            for _ in range(rounds):
                pair.rounds.append(await one_round(pair))
            pairs.append(pair)
        print(f"{mode}: {rounds} rounds done at {time.perf_counter() - started:.1f} s")
    print()
    print_report(pairs)


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=positive, default=20, metavar="N")
    args = parser.parse_args(argv)
    print_header(args.rounds)
    asyncio.run(run(args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())

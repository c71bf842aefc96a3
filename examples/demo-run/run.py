"""The demo played end to end across two worker crashes, and the proof that nothing ran twice.

    .venv/bin/python examples/demo-run/run.py                      # starts its own Temporal
    .venv/bin/python examples/demo-run/run.py --temporal 127.0.0.1:7233

It starts an A2A server and a worker as separate processes (`tiny-harness server` and
`tiny-harness worker`) on the demo plugin and its script, exporting traces to a small OTLP
receiver of its own, and plays the demo's conversation through the A2A SDK client:

1. "Order team shirts ...": while the catalogue lookup is in flight (the store is told to
   take its time), the worker is killed with SIGKILL and a new one started;
2. while the task waits for the person's answer, that worker is killed too, and a third
   one started;
3. "Order 10 now", then the form's L button: the task completes.

Then it reads the task's Temporal history, the exported spans and the store's files, prints
the figures, and exits 0 only if every model call ran once, every tool call finished once
(the lookup killed mid-call retried once, being read-only), and one order was placed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import signal
import sys
import tempfile
from pathlib import Path

import httpx
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.helpers import new_text_message
from a2a.types import Message, Role, SendMessageRequest, StreamResponse, TaskState
from evidence import Figures, count_activities, figures_of
from otlp import SpanCollector
from shots import screenshots
from temporalio.client import Client as TemporalClient
from temporalio.testing import WorkflowEnvironment

from tiny_harness.harness.a2ui.messages import Action, action_part
from tiny_harness.harness.tasks.calls import calls_in
from tiny_harness.service.durable.client.temporal import temporal_cli_path
from tiny_harness.service.http import free_port

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "demo-plugin"
LOOKUP = "shop.store.find_items"
LOOKUP_SECONDS = 30
"""How long the first lookup takes: long enough to crash its worker under it, whatever the
machine's load; the lookup run again after the crash answers at once."""


class Process:
    """`tiny-harness server` or `worker` as a child process, its log kept."""

    def __init__(self, command: str, data_dir: Path, env: dict[str, str], port: int = 0) -> None:
        self.command, self.data_dir, self.env, self.port = command, data_dir, env, port
        self.lines: list[str] = []
        self._process: asyncio.subprocess.Process | None = None
        self._drained: asyncio.Task[None] | None = None

    async def start(self) -> None:
        ports = ["--port", str(self.port)] if self.command == "server" else []
        self._process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "tiny_harness", self.command, "--data-dir", str(self.data_dir)),
            *ports,
            env=self.env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        ready = "a2a: listening" if self.command == "server" else "worker: task queue"
        assert self._process.stderr is not None
        async for raw in self._process.stderr:
            self.lines.append(raw.decode(errors="replace").rstrip())
            if ready in self.lines[-1]:
                self._drained = asyncio.create_task(self._drain())
                return
        raise RuntimeError(f"{self.command} exited:\n" + "\n".join(self.lines))

    async def _drain(self) -> None:
        assert self._process is not None
        assert self._process.stderr is not None
        async for raw in self._process.stderr:
            self.lines.append(raw.decode(errors="replace").rstrip())

    async def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        if self._process is not None and self._process.returncode is None:
            self._process.send_signal(how)
            await asyncio.wait_for(self._process.wait(), timeout=60)
        if self._drained is not None:
            # Its MCP servers hold the log pipe until they notice their worker is gone.
            await asyncio.wait_for(self._drained, timeout=60)


def environment(address: str, queue: str, collector: str) -> dict[str, str]:
    """What every process is told: the demo, one Temporal, one push key, the collector."""
    venv_bin = str(Path(sys.executable).parent)
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("TINY_HARNESS_")},
        "PATH": venv_bin + os.pathsep + os.environ.get("PATH", ""),
        "TINY_HARNESS_PLUGINS": str(PLUGIN),
        "TINY_HARNESS_MODEL__SCRIPT": str(PLUGIN / "script.yaml"),
        "TINY_HARNESS_TEMPORAL__ADDRESS": address,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": queue,
        "TINY_HARNESS_PUSH_KEY": base64.b64encode(os.urandom(32)).decode(),
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        # A dead worker's call is noticed after 2 s without a heartbeat, not the default 30 s.
        "TINY_HARNESS_RETRIES__HEARTBEAT_TIMEOUT": "PT2S",
        "TINY_HARNESS_O11Y__OTLP_ENDPOINT": collector,
        "TINY_HARNESS_O11Y__SERVICE_NAME": "demo-run",
    }


async def converse(
    client: Client,
    request: SendMessageRequest,
    on_lookup: asyncio.Event | None = None,
    events: list[StreamResponse] | None = None,
) -> list[StreamResponse]:
    """Send `request` and read its stream to its end into `events`; set `on_lookup` when
    the catalogue lookup starts."""
    events = [] if events is None else events
    async for event in client.send_message(request):
        events.append(event)
        if on_lookup is not None and event.HasField("status_update"):
            calls = calls_in(event.status_update.status.message)
            if any(c.name == LOOKUP and c.state == "started" for c in calls):
                on_lookup.set()
    return events


def final_state(events: list[StreamResponse]) -> int:
    states = [e.status_update.status.state for e in events if e.HasField("status_update")]
    return states[-1] if states else events[-1].task.status.state


def text(words: str, task_id: str = "") -> SendMessageRequest:
    """A person's message, continuing `task_id` when one is given."""
    return SendMessageRequest(
        message=new_text_message(words, task_id=task_id or None, role=Role.ROLE_USER)
    )


def press(task_id: str, size: str) -> SendMessageRequest:
    """The message the form's `size` button sends."""
    action = Action(
        name="size", surfaceId="size", sourceComponentId=size.lower(), context={"size": size}
    )
    message = Message(message_id=os.urandom(8).hex(), task_id=task_id, role=Role.ROLE_USER)
    message.parts.append(action_part(action))
    return SendMessageRequest(message=message)


async def exported(temporal: TemporalClient, collector: SpanCollector, task_id: str) -> None:
    """Wait (30 s at most) until every model call done so far has its span at the collector:
    a worker killed before its batch is sent loses those spans, which would hide from the
    trace what the history shows."""
    for _ in range(300):
        history = await temporal.get_workflow_handle(task_id).fetch_history()
        done = count_activities(history, Figures()).completed["invoke_llm"]
        chats = [s for s in collector.spans_of(task_id) if s.name.startswith("chat ")]
        if len(chats) >= done:
            return
        await asyncio.sleep(0.1)


async def play(address: str, data_dir: Path, shots: Path | None) -> tuple[str, Figures]:
    """The whole run against the Temporal at `address`, the task's images written into
    `shots` when given; the task id and its figures."""
    async with SpanCollector() as collector:
        env = environment(address, f"demo-run-{os.getpid()}", collector.url)
        shop = data_dir / "plugins" / "demo-plugin"
        shop.mkdir(parents=True)
        latency = shop / "latency"
        latency.write_text(str(LOOKUP_SECONDS))
        temporal = await TemporalClient.connect(address)
        server = Process("server", data_dir, env, port=free_port())
        workers = [Process("worker", data_dir, env)]
        await server.start()
        await workers[0].start()
        url = f"http://127.0.0.1:{server.port}"
        try:
            async with httpx.AsyncClient(timeout=httpx.Timeout(30, read=None)) as http:
                client = await ClientFactory(
                    ClientConfig(streaming=True, httpx_client=http)
                ).create_from_url(url)
                lookup, asked = asyncio.Event(), list[StreamResponse]()
                order = text("Order team shirts for the offsite, 40 people.")
                first = asyncio.create_task(converse(client, order, lookup, asked))
                await lookup.wait()
                task_id = asked[0].task.id
                await exported(temporal, collector, task_id)
                await crash(workers, "during the catalogue lookup")
                latency.write_text("0")  # the lookup run again answers at once
                await first
                assert final_state(asked) == TaskState.TASK_STATE_INPUT_REQUIRED, "no question"
                await exported(temporal, collector, task_id)
                await crash(workers, "while the task waits for an answer")
                form = await converse(client, text("Order 10 now", task_id))
                assert final_state(form) == TaskState.TASK_STATE_INPUT_REQUIRED, "no form"
                done = await converse(client, press(task_id, "L"))
                assert final_state(done) == TaskState.TASK_STATE_COMPLETED, "not completed"
                for image in await screenshots(url, task_id, shots) if shots else []:
                    print(f"image: {image}", flush=True)
        finally:
            for role in (server, *workers):
                await role.stop()
        spans = collector.spans_of(task_id)
    history = await temporal.get_workflow_handle(task_id).fetch_history()
    return task_id, figures_of(history, spans, shop)


async def crash(workers: list[Process], when: str) -> None:
    """SIGKILL the newest worker, as a machine dies, and start another."""
    await workers[-1].stop(signal.SIGKILL)
    print(f"crash: worker {len(workers)} killed {when}", flush=True)
    workers.append(Process("worker", workers[-1].data_dir, workers[-1].env))
    await workers[-1].start()
    print(f"       worker {len(workers)} started", flush=True)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--temporal", help="host:port of a Temporal frontend (default: start one)")
    parser.add_argument(
        "--data-dir", type=Path, help="where the run keeps its files (default: a temporary folder)"
    )
    parser.add_argument("--screenshots", type=Path, help="write the task's images here")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="tiny-harness-demo-run-"))
    if args.temporal:
        task_id, figures = await play(args.temporal, data_dir, args.screenshots)
    else:
        path = str(temporal_cli_path())
        async with await WorkflowEnvironment.start_local(
            ip="127.0.0.1", dev_server_existing_path=path
        ) as env:
            address = env.client.service_client.config.target_host
            task_id, figures = await play(address, data_dir, args.screenshots)
    print(f"task {task_id}: completed; files in {data_dir}")
    print(figures.report())
    return 0 if figures.nothing_ran_twice() else 1


if __name__ == "__main__":
    status = asyncio.run(main())
    sys.stdout.flush()
    sys.stderr.flush()
    # Everything is closed and printed. The interpreter's own finalization sometimes crashes
    # in protobuf's upb extension here (SIGSEGV with no Python frame, after a run that
    # decoded many messages), which would turn a passed run into a failed one: skip it.
    os._exit(status)

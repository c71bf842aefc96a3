"""Crash recovery with the A2A server and the worker in separate processes.

The A2A server runs in the test process with no worker; `tiny-harness worker` runs the loop
as a child process. The test SIGKILLs the worker while a call is in flight and starts a new
one, while a client keeps streaming from the server:

    client ──stream──► A2A server (here) ──► Temporal ◄── worker 1 (SIGKILL mid-call)
                                                     ◄── worker 2 (finishes the task)

The dead worker's call is noticed by its missed heartbeats (timeout 2 s). With two workers
running, the one Temporal names on the pending call is killed and the other finishes the
task, on a SQLite file and on PostgreSQL. What ran and how often is counted where it
happens: in the MCP server's own ledger (`tests/fixtures/plugins/ledger`), at a Chat
Completions stub for a provider model, and from the workflow history for the scripted
model.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_artifact_text, get_message_text
from a2a.types import StreamResponse
from pydantic import JsonValue
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from temporalio.testing import WorkflowEnvironment

from tests.service.serve_process import ServeProcess
from tests.support import collect, llm_requests, send_request, states, stored_log, tool_output
from tiny_harness.harness.models.llm import ToolResultItem
from tiny_harness.harness.persistence.postgres import PostgresStore
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.settings.retry import RetryPolicies
from tiny_harness.service.a2a.app import create_app
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.http import HttpServer, free_port

FIXTURES = Path(__file__).parents[1] / "fixtures"
LEDGER = FIXTURES / "plugins" / "ledger"
HEARTBEAT_TIMEOUT = timedelta(seconds=2)
DEADLINE_SECONDS = 60


@dataclass
class SplitHarness:
    """An A2A server in this process, and `tiny-harness worker` children on its task queue."""

    temporal_env: WorkflowEnvironment
    data_dir: Path
    task_queue: str
    model_env: dict[str, str]
    store: Store
    url: str
    http: httpx.AsyncClient
    store_env: dict[str, str]
    """What a worker is told of the store: nothing for the SQLite file in the data
    directory, the URL of the PostgreSQL database otherwise."""

    def worker(self) -> ServeProcess:
        """A worker process (not started) with the test's model settings."""
        address = self.temporal_env.client.service_client.config.target_host
        env = {
            "TINY_HARNESS_TEMPORAL__ADDRESS": address,
            "TINY_HARNESS_TEMPORAL__TASK_QUEUE": self.task_queue,
        }
        return ServeProcess(
            self.data_dir, 0, env | self.model_env | self.store_env, command="worker"
        )

    async def send(self, text: str) -> asyncio.Task[list[StreamResponse]]:
        """Stream `text` as a new task in the background; the task yields every event."""
        config = ClientConfig(
            streaming=True, supported_protocol_bindings=["JSONRPC"], httpx_client=self.http
        )
        client = await ClientFactory(config).create_from_url(self.url)
        return asyncio.create_task(collect(client.send_message(send_request(text))))

    def ledger(self) -> list[str]:
        """The lines the ledger MCP server wrote, one per call start and call end."""
        log = self.data_dir / "plugins" / LEDGER.name / "calls.log"
        return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


@asynccontextmanager
async def split_harness(
    temporal_env: WorkflowEnvironment,
    tmp_path: Path,
    model_env: dict[str, str],
    *,
    postgres_url: str | None = None,
) -> AsyncIterator[SplitHarness]:
    """With `postgres_url`, the server and its workers share that database, not a file."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    task_queue = f"crash-{tmp_path.name}"
    store: Store = SqliteStore(data_dir / "tiny-harness.sqlite3")
    store_env: dict[str, str] = {}
    if postgres_url is not None:
        store = PostgresStore(postgres_url)
        store_env = {"TINY_HARNESS_STORE__URL": postgres_url}
    # The heartbeat timeout travels in the workflow's start input: the server sets it
    # (a worker's own [retries] settings do not reach the workflow).
    gateway = TaskGateway(
        temporal_env.client,
        task_queue=task_queue,
        store=store,
        retries=RetryPolicies(heartbeat_timeout=HEARTBEAT_TIMEOUT),
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    card = build_agent_card(url, model="remote", push=False)
    app = create_app(gateway, card, max_request_bytes=1 << 20)
    try:
        async with (
            HttpServer(app, host="127.0.0.1", port=port),
            httpx.AsyncClient(timeout=DEADLINE_SECONDS) as http,
        ):
            yield SplitHarness(
                temporal_env, data_dir, task_queue, model_env, store, url, http, store_env
            )
    finally:
        await store.close()


def scripted_with_ledger(tmp_path: Path, script: str) -> dict[str, str]:
    """Worker settings: the scripted model on `script`, and the ledger plugin."""
    script_file = tmp_path / "script.yaml"
    script_file.write_text(script)
    venv_bin = str(Path(sys.executable).parent)
    return {
        "TINY_HARNESS_MODEL__SCRIPT": str(script_file),
        "TINY_HARNESS_PLUGINS": str(LEDGER),
        # The ledger's manifest runs a bare `python`: this venv's, which has `mcp`.
        "PATH": venv_bin + os.pathsep + os.environ.get("PATH", os.defpath),
    }


async def eventually(condition: Callable[[], bool], what: str) -> None:
    """Poll `condition` until it holds; fail naming `what` after the deadline."""
    deadline = asyncio.get_running_loop().time() + DEADLINE_SECONDS
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def kill_mid_call_and_replace(
    split: SplitHarness, text: str, in_flight: Callable[[], bool], what: str
) -> list[StreamResponse]:
    """Start a task, SIGKILL its worker once `in_flight()` holds, start a new worker, and
    return every event the client streamed, start to finish, once the workflow has closed."""
    first = split.worker()
    await first.start()
    stream = await split.send(text)
    try:
        await eventually(in_flight, what)
    finally:
        await first.kill()
    second = split.worker()
    try:
        await second.start()
        events = await asyncio.wait_for(stream, DEADLINE_SECONDS)
        handle = split.temporal_env.client.get_workflow_handle(events[0].task.id)
        await asyncio.wait_for(handle.result(), DEADLINE_SECONDS)  # the log is stored on closing
        return events
    finally:
        stream.cancel()
        assert await second.stop() == 0, "\n".join(second.lines)


async def assert_streamed_once_and_stored(split: SplitHarness, events: list[StreamResponse]) -> str:
    """The client saw the whole log exactly once, across the crash; returns the task id."""
    task_id = events[0].task.id
    assert states(events)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    wire = [event.SerializeToString(deterministic=True) for event in events]
    assert len(set(wire)) == len(wire), "an event reached the client twice"
    record = await split.store.get_task(task_id)
    assert record is not None
    log = await stored_log(split.store, task_id)
    assert log == events, "the client's stream differs from the task's log"
    return task_id


def tool_results(items: tuple[object, ...]) -> dict[str, ToolResultItem]:
    return {item.call_id: item for item in items if isinstance(item, ToolResultItem)}


def answer_text(events: list[StreamResponse]) -> str:
    return get_artifact_text(
        next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
    )


LOOKUPS = """
turns:
  - tool_calls: [{name: ledger.books.lookup, arguments: {key: first}}]
  - tool_calls: [{name: ledger.books.lookup, arguments: {key: slow}}]
  - text: "Both looked up."
"""


@pytest.mark.timeout(120)
async def test_killed_mid_idempotent_tool_call_the_call_runs_again_on_the_next_worker(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    model = scripted_with_ledger(tmp_path, LOOKUPS)
    async with split_harness(temporal_env, tmp_path, model) as split:
        events = await kill_mid_call_and_replace(
            split, "look up", lambda: "start lookup slow" in split.ledger(), "the slow lookup"
        )
        task_id = await assert_streamed_once_and_stored(split, events)
        ledger = split.ledger()
    requests = await llm_requests(temporal_env.client, task_id)

    assert ledger.count("start lookup first") == 1, "a recorded tool result ran again"
    assert ledger.count("start lookup slow") == 2, "the interrupted idempotent call is retried"
    assert ledger.count("end lookup slow") == 1
    assert len(requests) == 3, "every model answer was recorded once: no call repeated"
    results = tool_results(requests[-1].input)
    assert [tool_output(r.text) for r in results.values()] == [
        '{"result": "value of first"}',
        '{"result": "value of slow"}',
    ]
    assert not any(r.is_error for r in results.values())
    assert answer_text(events) == "Both looked up."


async def kill_the_worker_running_it(
    split: SplitHarness, text: str, in_flight: Callable[[], bool], what: str
) -> list[StreamResponse]:
    """Start two workers and a task, SIGKILL the one running the task's call (the worker
    Temporal names on the pending activity) once `in_flight()` holds, and return every
    event the client streamed once the workflow has closed: the other worker finishes."""
    workers = [split.worker(), split.worker()]
    await asyncio.gather(*(worker.start() for worker in workers))
    stream = await split.send(text)
    try:
        await eventually(in_flight, what)
        running = await running_pid(split)
        doomed = [w for w in workers if w.pid == running]
        assert len(doomed) == 1, f"the call runs in {running}, no worker of this test"
        await doomed[0].kill()
        events = await asyncio.wait_for(stream, DEADLINE_SECONDS)
        handle = split.temporal_env.client.get_workflow_handle(events[0].task.id)
        await asyncio.wait_for(handle.result(), DEADLINE_SECONDS)
        return events
    finally:
        stream.cancel()
        for worker in workers:
            await worker.stop()


async def running_pid(split: SplitHarness) -> int:
    """The process id in the identity of the worker running the task's pending activity
    (the SDK's default identity is `<pid>@<host>`)."""
    temporal = split.temporal_env.client
    for _ in range(DEADLINE_SECONDS * 20):
        async for listed in temporal.list_workflows(f'TaskQueue="{split.task_queue}"'):
            described = await temporal.get_workflow_handle(listed.id).describe()
            for pending in described.raw_description.pending_activities:
                if pending.last_worker_identity:
                    return int(pending.last_worker_identity.split("@", 1)[0])
        await asyncio.sleep(0.05)
    pytest.fail("no worker took the task's call")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("store", ["sqlite", "postgres"])
async def test_the_worker_running_a_call_killed_the_other_finishes_the_task_once(
    temporal_env: WorkflowEnvironment, tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    model = scripted_with_ledger(tmp_path, LOOKUPS)
    url = request.getfixturevalue("postgres_url") if store == "postgres" else None
    async with split_harness(temporal_env, tmp_path, model, postgres_url=url) as split:
        events = await kill_the_worker_running_it(
            split, "look up", lambda: "start lookup slow" in split.ledger(), "the slow lookup"
        )
        task_id = await assert_streamed_once_and_stored(split, events)
        ledger = split.ledger()
    requests = await llm_requests(temporal_env.client, task_id)

    assert ledger.count("start lookup first") == 1, "a recorded tool result ran again"
    assert ledger.count("start lookup slow") == 2, "the interrupted idempotent call is retried"
    assert ledger.count("end lookup slow") == 1
    assert len(requests) == 3, "every model answer was recorded once: no call repeated"
    assert answer_text(events) == "Both looked up."


POSTS = """
turns:
  - tool_calls: [{name: ledger.books.post, arguments: {entry: first}}]
  - tool_calls: [{name: ledger.books.post, arguments: {entry: slow}}]
  - text: "Posting stopped."
"""


@pytest.mark.timeout(120)
async def test_killed_mid_non_idempotent_tool_call_the_call_is_not_run_again(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    model = scripted_with_ledger(tmp_path, POSTS)
    async with split_harness(temporal_env, tmp_path, model) as split:
        events = await kill_mid_call_and_replace(
            split, "post", lambda: "start post slow" in split.ledger(), "the slow post"
        )
        task_id = await assert_streamed_once_and_stored(split, events)
        ledger = split.ledger()
    requests = await llm_requests(temporal_env.client, task_id)

    assert ledger.count("start post first") == 1, "a recorded tool result ran again"
    assert ledger.count("start post slow") == 1, "a call that is not idempotent ran twice"
    assert "end post slow" not in ledger
    assert len(requests) == 3, "every model answer was recorded once: no call repeated"
    first, interrupted = tool_results(requests[-1].input).values()
    assert tool_output(first.text) == '{"result": "posted first"}'
    assert interrupted.is_error
    expected = "tool_not_retried: ledger.books.post failed and is not retried"
    assert tool_output(interrupted.text).startswith(expected)
    assert answer_text(events) == "Posting stopped."


class ChatStub:
    """A Chat Completions endpoint on 127.0.0.1 that replays recorded answers: a request
    with no tool result yet gets `chat_create_plan`, one that carries the plan's result gets
    `chat_text`. The first such answer request is never answered (it waits for its client
    to go away), so a test can kill the worker mid model call. Every request body is kept."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, JsonValue]] = []
        self._server: HttpServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"{self._server.url}/v1"

    def answering(self) -> list[dict[str, JsonValue]]:
        """The requests that carried the plan's result (the ones the text answers)."""
        return [body for body in self.bodies if _carries_tool_result(body)]

    async def __aenter__(self) -> Self:
        app = Starlette(routes=[Route("/v1/chat/completions", self._answer, methods=["POST"])])
        self._server = HttpServer(app, host="127.0.0.1", port=0)
        await self._server.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._server is not None:
            await self._server.__aexit__(exc_type, exc, traceback)

    async def _answer(self, request: Request) -> Response:
        body = await request.json()
        self.bodies.append(body)
        if _carries_tool_result(body) and len(self.answering()) == 1:
            while (await request.receive())["type"] != "http.disconnect":
                pass
            return Response(status_code=504)
        scenario = "chat_text" if _carries_tool_result(body) else "chat_create_plan"
        recording = json.loads((FIXTURES / "providers" / f"{scenario}.json").read_text())
        return JSONResponse(recording["body"], headers=recording["headers"])


def _carries_tool_result(body: dict[str, JsonValue]) -> bool:
    messages = body.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("role") == "tool" for m in messages
    )


@pytest.mark.timeout(120)
async def test_killed_mid_provider_call_only_that_call_is_made_again(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """A provider model (`openai-chat`) behind a stub that counts its requests: the call
    in flight at the crash is re-issued by the new worker, the recorded one is not."""
    async with ChatStub() as stub:
        model = {
            "TINY_HARNESS_MODEL__PROVIDER": "openai-chat",
            "TINY_HARNESS_MODEL__MODEL": "llama3",
            "TINY_HARNESS_MODEL__BASE_URL": stub.base_url,
        }
        async with split_harness(temporal_env, tmp_path, model) as split:
            events = await kill_mid_call_and_replace(
                split, "think", lambda: bool(stub.answering()), "the answer request"
            )
            await assert_streamed_once_and_stored(split, events)

    planning, interrupted, again = stub.bodies
    assert not _carries_tool_result(planning), "the recorded plan call was made again"
    assert again == interrupted, "the new worker re-issues exactly the interrupted call"
    assert answer_text(events) == "Two plus three is five."
    said = [
        get_message_text(e.status_update.status.message)
        for e in events
        if e.HasField("status_update") and e.status_update.status.HasField("message")
    ]
    assert said.count("Let me plan.") == 1

"""`tiny-harness serve` as users run it: a real process, stopped and started again mid-task."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_artifact_text, get_message_text
from a2a.types import GetTaskRequest, StreamResponse, SubscribeToTaskRequest, TaskState
from a2a.utils.errors import UnsupportedOperationError
from temporalio.testing import WorkflowEnvironment

from tests.service.serve_process import ServeProcess
from tests.support import collect, first_event, send_request, states, stored_log
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.service.a2a.app import create_app
from tiny_harness.service.a2a.authentication import key_digest, new_key
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.durable.client.dev_server import port_is_free, servers_on
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.client.temporal import temporal_cli_path
from tiny_harness.service.http import HttpServer, free_port

ASK = """
turns:
  - text: "Let me check."
    tool_calls: [{name: ask_participant, arguments: {question: "Which size?", options: [S, M]}}]
  - text: "Size noted."
"""

SLOW = """
turns:
  - text: "Thinking hard."
    tool_calls: [{name: create_plan, arguments: {steps: [{id: s1, name: think}]}}]
  - text: "Thought it through."
    delay_seconds: 3
"""


async def a2a_client(url: str, http: httpx.AsyncClient):  # type: ignore[no-untyped-def]
    config = ClientConfig(
        streaming=True, supported_protocol_bindings=["JSONRPC"], httpx_client=http
    )
    return await ClientFactory(config).create_from_url(url)


def remote_serve(
    temporal_env: WorkflowEnvironment, tmp_path: Path, script: str, **extra: str
) -> ServeProcess:
    script_file = tmp_path / "script.yaml"
    script_file.write_text(script)
    env = {
        "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"serve-{tmp_path.name}",
        "TINY_HARNESS_MODEL__SCRIPT": str(script_file),
        # Each test's own schedule would outlive it on the shared dev server.
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        **extra,
    }
    return ServeProcess(tmp_path / "data", free_port(), env)


async def final_log(serve: ServeProcess, task_id: str) -> list[StreamResponse]:
    """The final task's whole event log, from the store file of `serve`."""
    store = SqliteStore(serve.data_dir / "tiny-harness.sqlite3")
    try:
        record = await store.get_task(task_id, history_length=0)
        while record is None or record.task.status.state not in FINAL:
            await store.wait_for_log(task_id, record.version if record is not None else 0)
            record = await store.get_task(task_id, history_length=0)
        return await stored_log(store, task_id)
    finally:
        await store.close()


@pytest.mark.timeout(120)
async def test_restart_while_waiting_for_input_loses_nothing(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    serve = remote_serve(temporal_env, tmp_path, ASK)
    await serve.start()
    async with httpx.AsyncClient(timeout=30) as http:
        first = await collect(
            (await a2a_client(serve.url, http)).send_message(send_request("shirt"))
        )
        task_id = first[0].task.id
        assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
        assert await serve.stop() == 0

        await serve.start()
        client = await a2a_client(serve.url, http)
        parked = await first_event(client.subscribe(SubscribeToTaskRequest(id=task_id)))
        # The restarted server shows the task exactly as it was left: waiting, the question
        # its status, the first message in its history.
        assert parked.task.status == first[-1].status_update.status
        assert [m.message_id for m in parked.task.history][:1] == [
            first[0].task.history[0].message_id
        ]
        rest = await collect(client.send_message(send_request("M", task_id=task_id)))
        assert states(rest)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
        with pytest.raises(UnsupportedOperationError):
            await collect(client.subscribe(SubscribeToTaskRequest(id=task_id)))
        log = await final_log(serve, task_id)
        assert await serve.stop() == 0
    assert log == first + rest[1:]  # every event once, in order, across the restart


@pytest.mark.timeout(120)
async def test_restart_mid_llm_call_finishes_the_task(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    serve = remote_serve(temporal_env, tmp_path, SLOW)
    await serve.start()
    async with httpx.AsyncClient(timeout=30) as http:
        client = await a2a_client(serve.url, http)
        seen = []
        async for event in client.send_message(send_request("think")):
            seen.append(event)
            if len(states(seen)) >= 3:  # SUBMITTED, WORKING, the first progress message
                break
        task_id = seen[0].task.id
        assert await serve.stop() == 0  # the slow model call is in flight on this worker

        await serve.start()
        client = await a2a_client(serve.url, http)
        followed = await collect(client.subscribe(SubscribeToTaskRequest(id=task_id)))
        assert followed[0].HasField("task")  # the task as it stood, then what followed
        assert states(followed)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
        log = await final_log(serve, task_id)
        assert log[: len(seen)] == seen
        task = await client.get_task(GetTaskRequest(id=task_id))
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert [get_artifact_text(a) for a in task.artifacts] == ["Thought it through."]
        assert await serve.stop() == 0


@pytest.mark.timeout(120)
async def test_quickstart_serve_answers_with_the_builtin_demo(tmp_path: Path) -> None:
    """The README's first command, minus the install: embedded Temporal, no key, demo script."""
    temporal_port = free_port()
    serve = ServeProcess(
        tmp_path / "data", free_port(), {"TINY_HARNESS_TEMPORAL__EMBEDDED_PORT": str(temporal_port)}
    )
    await serve.start()
    async with httpx.AsyncClient(timeout=30) as http:
        client = await a2a_client(serve.url, http)
        events = await collect(client.send_message(send_request("hello")))
    assert states(events)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    answer = next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
    assert "built-in demo script" in get_artifact_text(answer)
    assert await serve.stop() == 0

    log = "\n".join(serve.lines)
    assert f"temporal: embedded dev server at 127.0.0.1:{temporal_port}" in log
    assert "model: scripted model, built-in demo script (no provider key configured)" in log
    assert f"a2a: listening on {serve.url}" in log
    assert (serve.data_dir / "temporal.sqlite3").exists()
    # No push key configured: one was generated for this data directory, private to its owner.
    assert (serve.data_dir / "push.key").stat().st_mode & 0o777 == 0o600
    pgrep = await asyncio.create_subprocess_exec(
        "pgrep", "-f", str(serve.data_dir), stdout=asyncio.subprocess.PIPE
    )
    leftovers, _ = await pgrep.communicate()
    assert leftovers == b"", "the embedded Temporal server outlived serve"


async def test_serve_in_api_key_mode_answers_only_a_call_with_a_key(tmp_path: Path) -> None:
    key = new_key()
    keys = json.dumps([{"participant": "alice", "sha256": key_digest(key)}])
    env = {
        "TINY_HARNESS_TEMPORAL__EMBEDDED_PORT": str(free_port()),
        "TINY_HARNESS_AUTH__MODE": "api_key",
        "TINY_HARNESS_AUTH__API_KEYS": keys,
    }
    serve = ServeProcess(tmp_path / "data", free_port(), env)
    await serve.start()
    try:
        async with (
            httpx.AsyncClient(timeout=30) as anonymous,
            httpx.AsyncClient(timeout=30, headers={"X-API-Key": key}) as as_alice,
        ):
            card = (await anonymous.get(f"{serve.url}/.well-known/agent-card.json")).json()
            refused = await anonymous.get(f"{serve.url}/rest/tasks")
            client = await a2a_client(serve.url, as_alice)
            events = await collect(client.send_message(send_request("hello")))
    finally:
        assert await serve.stop() == 0

    assert set(card["securitySchemes"]) == {"bearer", "api_key"}
    assert refused.status_code == 401
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    log = "\n".join(serve.lines)
    assert "auth: api_key, 1 key(s)" in log
    assert "agents: self is left out: this server requires a credential" in log
    assert key not in log


async def test_bad_configuration_exits_2_naming_the_variable(tmp_path: Path) -> None:
    serve = ServeProcess(tmp_path, free_port(), {"TINY_HARNESS_SERVER__MAX_REQUEST_BYTES": "lots"})
    with pytest.raises(RuntimeError, match="TINY_HARNESS_SERVER__MAX_REQUEST_BYTES"):
        await serve.start()
    assert await asyncio.wait_for(serve.stop(), 10) == 2


@pytest.mark.timeout(120)
async def test_worker_process_runs_the_tasks_of_a_server_without_a_worker(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """Scale-out shape: the A2A server here has no worker; `tiny-harness worker` runs the loop."""
    worker = remote_serve(temporal_env, tmp_path, ASK)
    worker.command = "worker"
    await worker.start()
    task_queue = worker.env["TINY_HARNESS_TEMPORAL__TASK_QUEUE"]
    store = SqliteStore(worker.data_dir / "tiny-harness.sqlite3")
    gateway = TaskGateway(temporal_env.client, task_queue=task_queue, store=store)
    port = free_port()
    app = create_app(
        gateway,
        build_agent_card(f"http://127.0.0.1:{port}", model="remote", push=False),
        max_request_bytes=1 << 20,
    )
    try:
        async with (
            HttpServer(app, host="127.0.0.1", port=port),
            httpx.AsyncClient(timeout=30) as http,
        ):
            client = await a2a_client(f"http://127.0.0.1:{port}", http)
            first = await collect(client.send_message(send_request("shirt")))
            assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
            rest = await collect(client.send_message(send_request("S", task_id=first[0].task.id)))
            assert states(rest)[-1] == "TASK_STATE_COMPLETED"
    finally:
        await store.close()
        assert await worker.stop() == 0


@pytest.mark.timeout(120)
async def test_killed_mid_model_call_the_task_finishes_on_the_next_worker(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """SIGKILL, not a clean stop: the dead worker's call is noticed by its missed heartbeats
    and runs again on the new worker; nothing recorded before it runs twice."""
    serve = remote_serve(temporal_env, tmp_path, SLOW, TINY_HARNESS_RETRIES__HEARTBEAT_TIMEOUT="2")
    await serve.start()
    async with httpx.AsyncClient(timeout=60) as http:
        seen = []
        async for event in (await a2a_client(serve.url, http)).send_message(send_request("think")):
            seen.append(event)
            if len(states(seen)) >= 3:  # SUBMITTED, WORKING, the plan: the slow call is next
                break
        task_id = seen[0].task.id
        await serve.kill()

        await serve.start()
        client = await a2a_client(serve.url, http)
        followed = await collect(client.subscribe(SubscribeToTaskRequest(id=task_id)))
        assert states(followed)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
        replay = await final_log(serve, task_id)
        assert replay[: len(seen)] == seen
        plans = [e for e in replay if "Plan:" in str(e)]
        assert len(plans) == 1, "the recorded plan step must not run again"
        assert await serve.stop() == 0


@pytest.mark.timeout(120)
async def test_killed_while_waiting_for_input_the_reply_still_completes(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    serve = remote_serve(temporal_env, tmp_path, ASK)
    await serve.start()
    async with httpx.AsyncClient(timeout=60) as http:
        first = await collect((await a2a_client(serve.url, http)).send_message(send_request("hat")))
        task_id = first[0].task.id
        await serve.kill()

        await serve.start()
        client = await a2a_client(serve.url, http)
        rest = await collect(client.send_message(send_request("S", task_id=task_id)))
        assert states(rest)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
        task = await client.get_task(GetTaskRequest(id=task_id))
        asked = [m for m in task.history if get_message_text(m) == "Let me check."]
        assert len(asked) == 1, "the model call that asked must not run again"
        assert await serve.stop() == 0


async def _gone(database: Path, seconds: float = 20) -> bool:
    """Whether no dev server runs on `database` within `seconds`."""
    for _ in range(int(seconds * 10)):
        if not servers_on(database):
            return True
        await asyncio.sleep(0.1)
    return False


def _embedded(tmp_path: Path, temporal_port: int) -> ServeProcess:
    env = {
        "TINY_HARNESS_TEMPORAL__EMBEDDED_PORT": str(temporal_port),
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
    }
    return ServeProcess(tmp_path / "data", free_port(), env)


@pytest.mark.timeout(120)
async def test_the_embedded_temporal_dies_with_a_serve_killed_by_sigkill(tmp_path: Path) -> None:
    temporal_port = free_port()
    serve = _embedded(tmp_path, temporal_port)
    database = serve.data_dir / "temporal.sqlite3"
    await serve.start()
    running = servers_on(database)
    await serve.kill()  # an OOM kill or a closed terminal: serve cleans nothing up

    assert len(running) == 1
    assert await _gone(database), "the embedded Temporal server outlived a killed serve"
    assert port_is_free(temporal_port)


@pytest.mark.timeout(120)
async def test_serve_stops_a_dev_server_left_running_on_its_data_dir_and_starts_its_own(
    tmp_path: Path,
) -> None:
    temporal_port = free_port()
    serve = _embedded(tmp_path, temporal_port)
    database = serve.data_dir / "temporal.sqlite3"
    database.parent.mkdir(parents=True)
    # What an earlier serve (or another tool) left behind: a server on the same database,
    # in its own session, holding the port serve is configured with.
    orphan = await asyncio.create_subprocess_exec(
        *(str(temporal_cli_path()), "server", "start-dev", "--headless"),
        *("--ip", "127.0.0.1", "--port", str(temporal_port), "--db-filename", str(database)),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        for _ in range(300):
            if not port_is_free(temporal_port):
                break
            await asyncio.sleep(0.1)
        await serve.start()
        assert await asyncio.wait_for(orphan.wait(), 20) is not None  # stopped by serve
        now_running = servers_on(database)
        assert await serve.stop() == 0
    finally:
        if orphan.returncode is None:
            orphan.kill()
            await orphan.wait()

    log = "\n".join(serve.lines)
    assert (
        f"temporal: stopping a dev server left running on {database.resolve()} (pid {orphan.pid})"
        in log
    )
    assert f"temporal: embedded dev server at 127.0.0.1:{temporal_port}" in log
    assert len(now_running) == 1
    assert orphan.pid not in now_running
    assert await _gone(database)


@pytest.mark.timeout(60)
async def test_an_embedded_temporal_port_held_by_another_program_exits_2_naming_it(
    tmp_path: Path,
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        serve = _embedded(tmp_path, taken)
        with pytest.raises(RuntimeError, match=f"port {taken} of the embedded Temporal server"):
            await serve.start()
        assert await asyncio.wait_for(serve.stop(), 10) == 2
    assert "TINY_HARNESS_TEMPORAL__EMBEDDED_PORT" in "\n".join(serve.lines)


_PROBE = """
import asyncio, sys, tempfile
from pathlib import Path
from tiny_harness.config import load_settings
from tiny_harness.harness.models.factory import choose_model
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.plugins.install import build_harness
import tiny_harness.service.runtime

async def main() -> None:
    data = Path(tempfile.mkdtemp())
    settings = load_settings(environ=dict(arg.split("=", 1) for arg in sys.argv[1:]))
    chosen = choose_model(settings.model)
    store = SqliteStore(data / "store.sqlite3")
    harness, _ = await build_harness(llm=chosen.llm, store=store, plugins=(), data_dir=data)
    await harness.close()
    await store.close()
    heavy = ("anthropic", "openai", "mcp", "opentelemetry.sdk", "opentelemetry.exporter")
    print(",".join(m for m in heavy if m in sys.modules))

asyncio.run(main())
"""


def _sdks_loaded(*environ: str) -> str:
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE, *environ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return probe.stdout.strip()


def test_a_server_on_the_scripted_model_imports_no_provider_sdk_and_no_mcp_client() -> None:
    """Each of these takes a while to import: a harness that configures no provider, no
    MCP server and no OTLP endpoint starts without them (and without the OTel SDK)."""
    assert _sdks_loaded() == ""


def test_the_configured_provider_is_the_one_sdk_imported() -> None:
    loaded = _sdks_loaded(
        "TINY_HARNESS_MODEL__PROVIDER=anthropic",
        "TINY_HARNESS_MODEL__MODEL=claude-test",
        "TINY_HARNESS_MODEL__API_KEY=sk-not-a-real-key",
    )
    assert loaded == "anthropic"

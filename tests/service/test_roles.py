"""The process roles: a `tiny-harness server` answers A2A and runs no worker; the tasks sent
to it run on a separate `tiny-harness worker`, both on one Temporal namespace and one store
(a SQLite file on one host, or a PostgreSQL database the hosts share)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from a2a.client import Client as A2AClient
from a2a.client import ClientConfig, ClientFactory
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskState,
)
from temporalio.testing import WorkflowEnvironment

from tests.service.serve_process import ServeProcess
from tests.support import collect, send_request, states
from tiny_harness.service.http import free_port

ASK = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Which colour?"}}]
  - text: painted
"""


def role_env(temporal_env: WorkflowEnvironment, tmp_path: Path) -> dict[str, str]:
    """One deployment: one namespace and task queue, the question script, no schedule."""
    script = tmp_path / "ask.yaml"
    script.write_text(ASK, encoding="utf-8")
    return {
        "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"roles-{uuid.uuid4()}",
        "TINY_HARNESS_MODEL__SCRIPT": str(script),
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
    }


async def test_a_task_sent_to_a_server_runs_on_a_worker_of_its_own(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    env = role_env(temporal_env, tmp_path)
    data_dir = tmp_path / "data"
    server = ServeProcess(data_dir, free_port(), env, command="server")
    worker = ServeProcess(data_dir, 0, env, command="worker")
    try:
        await server.start()
        await worker.start()
        async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
            config = ClientConfig(streaming=True, httpx_client=http)
            client = await ClientFactory(config).create_from_url(server.url)
            asked = await collect(client.send_message(send_request("paint the fence")))
            task_id = asked[0].task.id
            answered = await collect(client.send_message(send_request("blue", task_id=task_id)))
    finally:
        worker_status = await worker.stop()
        server_status = await server.stop()

    assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert states(answered)[-1] == "TASK_STATE_COMPLETED"
    assert (server_status, worker_status) == (0, 0)
    assert any("a2a: listening on" in line for line in server.lines)
    assert not any("worker: task queue" in line for line in server.lines)
    assert any("worker: task queue" in line for line in worker.lines)


type Hosts = Callable[[int], tuple[Path, dict[str, str]]]
"""The data directory of process N of a deployment, and what its environment adds."""


@pytest.fixture(params=["sqlite", "postgres"])
def hosts(request: pytest.FixtureRequest, tmp_path: Path) -> Hosts:
    """On SQLite, every process shares one data directory (one host, one file). On
    PostgreSQL, every process has a data directory of its own, as on hosts of their own,
    and shares only the database."""
    if request.param == "sqlite":
        return lambda n: (tmp_path / "data", {})
    url: str = request.getfixturevalue("postgres_url")
    return lambda n: (tmp_path / f"host-{n}", {"TINY_HARNESS_STORE__URL": url})


@asynccontextmanager
async def deployment(
    env: dict[str, str], hosts: Hosts, servers: int, workers: int
) -> AsyncIterator[list[ServeProcess]]:
    """`servers` server processes and `workers` worker processes, started at once; the
    servers are yielded."""

    def process(n: int, port: int, command: str) -> ServeProcess:
        data_dir, extra = hosts(n)
        return ServeProcess(data_dir, port, env | extra, command=command)

    fronts = [process(n, free_port(), "server") for n in range(servers)]
    backs = [process(servers + n, 0, "worker") for n in range(workers)]
    try:
        await asyncio.gather(*(p.start() for p in (*fronts, *backs)))
        yield fronts
    finally:
        await asyncio.gather(*(p.stop() for p in (*backs, *fronts)))


async def a2a_client(url: str, http: httpx.AsyncClient) -> A2AClient:
    return await ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create_from_url(url)


async def test_a_task_started_on_one_server_is_followed_answered_read_and_cancelled_on_another(
    temporal_env: WorkflowEnvironment, tmp_path: Path, hosts: Hosts
) -> None:
    env = role_env(temporal_env, tmp_path)
    async with (
        deployment(env, hosts, servers=2, workers=2) as (a, b),
        httpx.AsyncClient(timeout=30, trust_env=False) as http,
    ):
        on_a, on_b = await a2a_client(a.url, http), await a2a_client(b.url, http)
        asked = await collect(on_a.send_message(send_request("paint the fence")))
        task_id = asked[0].task.id
        heard: list[StreamResponse] = []
        opened = asyncio.Event()

        async def follow() -> None:
            async for event in on_b.subscribe(SubscribeToTaskRequest(id=task_id)):
                heard.append(event)
                opened.set()

        follower = asyncio.create_task(follow())
        await asyncio.wait_for(opened.wait(), 30)
        read = await on_b.get_task(GetTaskRequest(id=task_id))
        listed = await on_b.list_tasks(ListTasksRequest())
        answered = await collect(on_b.send_message(send_request("blue", task_id=task_id)))
        await asyncio.wait_for(follower, 30)
        dropped = await collect(on_a.send_message(send_request("paint the shed")))
        await on_b.cancel_task(CancelTaskRequest(id=dropped[0].task.id))
        cancelled = await on_a.get_task(GetTaskRequest(id=dropped[0].task.id))

    assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert read.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert task_id in [task.id for task in listed.tasks]
    assert states(answered)[-1] == "TASK_STATE_COMPLETED"
    assert states(heard)[0] == "TASK_STATE_INPUT_REQUIRED"
    assert states(heard)[-1] == "TASK_STATE_COMPLETED"
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED

"""The process roles: a `tiny-harness server` answers A2A and runs no worker; the tasks sent
to it run on a separate `tiny-harness worker`, both on one Temporal namespace and one store."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
from a2a.client import ClientConfig, ClientFactory
from temporalio.testing import WorkflowEnvironment

from tests.service.serve_process import ServeProcess
from tests.support import collect, send_request, states
from tiny_harness.service.http import free_port

ASK = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Which colour?"}}]
  - text: painted
"""


async def test_a_task_sent_to_a_server_runs_on_a_worker_of_its_own(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    script = tmp_path / "ask.yaml"
    script.write_text(ASK, encoding="utf-8")
    env = {
        "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"roles-{uuid.uuid4()}",
        "TINY_HARNESS_MODEL__SCRIPT": str(script),
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
    }
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

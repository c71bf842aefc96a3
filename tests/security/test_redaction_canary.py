"""The canary run: credentials that reach the harness from each of its four sources, and
one a plugin logs, are recorded nowhere.

A real `tiny-harness serve` (the shared Temporal dev server, the scripted model, the vault
plugin's MCP server over stdio, DEBUG logs, spans with message contents exported to a
collector on 127.0.0.1) runs one task. A configured secret (the model API key) and a
credential of a known shape, new each run, come in through the user's message, the MCP
tool's result, the model's answer and a remote agent's status message; another reaches
only the log, from a plugin's hook that logs it (so the log formatter is its one mask).
Afterwards not one of them is in any workflow history on the harness's queue, any SQLite
file of its data directory (WAL included), any log line or any exported span; each was
masked where it came in, so the task still ran to its end.
"""

from __future__ import annotations

import json
import os
import secrets
import string
import sys
from pathlib import Path

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.types import StreamResponse
from temporalio.testing import WorkflowEnvironment

from tests.harness.agents.plain_agent import plain_agent
from tests.service.o11y.otlp_receiver import otlp_receiver
from tests.service.serve_process import ServeProcess
from tests.support import collect, send_request, states
from tiny_harness.harness.security import Redactor
from tiny_harness.service.http import free_port

pytestmark = pytest.mark.timeout(120)

VAULT = Path(__file__).parents[1] / "fixtures" / "plugins" / "vault"
TATTLER = Path(__file__).parents[1] / "fixtures" / "plugins" / "tattler"


def _random(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


ALNUM = string.ascii_letters + string.digits
CONFIGURED = f"canary{secrets.token_hex(12)}"
"""The configured secret: a value of no known shape, masked because it is configured."""
SHAPED = {
    "user message": f"sk-proj-{_random(ALNUM, 40)}",
    "tool result": f"ghp_{_random(ALNUM, 36)}",
    "model answer": f"AKIA{_random(string.ascii_uppercase + string.digits, 16)}",
    "remote status": f"xoxb-{_random(ALNUM, 30)}",
    "a plugin's log line": f"sk-ant-api03-{_random(ALNUM, 40)}",
}
"""A credential of a known shape for each source."""
SCRIPT = f"""
turns:
  - text: "Reading the config with {SHAPED["model answer"]} and {CONFIGURED}."
    tool_calls: [{{name: vault.keys.read_config, arguments: {{}}}}]
  - tool_calls: [{{name: spawn_subtask, arguments: {{agent: careless, name: leak, goal: leak}}}}]
  - when: "^order"
    text: Waiting for the sub-task.
  - when: COMPLETED
    text: All done.
"""


def needles() -> dict[str, bytes]:
    """What must be found nowhere: each credential's secret part, and the configured one."""
    parts = {source: value.split("-")[-1].split("_")[-1] for source, value in SHAPED.items()}
    return {**{k: v.encode() for k, v in parts.items()}, "configured": CONFIGURED.encode()}


def canary_serve(temporal_env: WorkflowEnvironment, tmp_path: Path, **env: str) -> ServeProcess:
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT)
    data_dir = tmp_path / "data"
    vault_file = data_dir / "plugins" / "vault" / "secrets.txt"
    vault_file.parent.mkdir(parents=True)
    vault_file.write_text(f"token = {SHAPED['tool result']}\nbackup = {CONFIGURED}\n")
    return ServeProcess(
        data_dir,
        free_port(),
        {
            "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
            "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"canary-{tmp_path.name}",
            "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
            "TINY_HARNESS_LOG_LEVEL": "DEBUG",
            "TINY_HARNESS_MODEL__SCRIPT": str(script),
            "TINY_HARNESS_MODEL__API_KEY": CONFIGURED,
            "TINY_HARNESS_PLUGINS": os.pathsep.join((str(VAULT), str(TATTLER))),
            # Reaches only the log: the tattler plugin logs it without anything masking it
            # first, so the log formatter is the one mask on its way.
            "CANARY_LOG_NEEDLE": SHAPED["a plugin's log line"],
            "TINY_HARNESS_O11Y__CAPTURE_CONTENT": "true",
            "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
            **env,
        },
    )


async def histories(temporal_env: WorkflowEnvironment, task_queue: str) -> dict[str, bytes]:
    """Every workflow history on `task_queue`, as the bytes the server keeps."""
    client = temporal_env.client
    found: dict[str, bytes] = {}
    async for execution in client.list_workflows(f'TaskQueue="{task_queue}"'):
        history = await client.get_workflow_handle(execution.id).fetch_history()
        found[execution.id] = b"".join(e.SerializeToString() for e in history.events)
    return found


async def test_credentials_from_every_source_are_recorded_nowhere(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    redactor = Redactor([CONFIGURED])
    assert all(redactor.counted_text(v).masked == 1 for v in SHAPED.values())
    leak = f"Done. Use {SHAPED['remote status']} (or {CONFIGURED}) next time."
    async with plain_agent(leak=leak) as careless, otlp_receiver() as collector:
        agents = json.dumps([{"id": "careless", "url": careless.url, "updates": "follow"}])
        serve = canary_serve(
            temporal_env,
            tmp_path,
            TINY_HARNESS_AGENTS=agents,
            TINY_HARNESS_O11Y__OTLP_ENDPOINT=collector.url,
        )
        await serve.start()
        try:
            client_text = f"order a shirt; my key is {SHAPED['user message']}, or {CONFIGURED}"
            events = await _send(serve.url, client_text)
            task_id = events[0].task.id
            await temporal_env.client.get_workflow_handle(task_id).result()
            stand_in = await temporal_env.client.get_workflow_handle(f"{task_id}.sub-1").result()
        finally:
            assert await serve.stop() == 0  # a clean stop flushes the queued spans
        recorded = await histories(temporal_env, serve.env["TINY_HARNESS_TEMPORAL__TASK_QUEUE"])
        spans = await collector.wait_for(lambda s: sum(x.name.startswith("chat ") for x in s) >= 4)

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    assert stand_in is not None
    assert {task_id, f"{task_id}.sub-1"} <= set(recorded)
    stores = {p.name: p.read_bytes() for p in serve.data_dir.rglob("*.sqlite3*")}
    assert stores, "the store wrote no file"
    exported = b"".join(collector.bodies)
    logs = "\n".join(serve.lines)
    assert "DEBUG" in logs
    assert "tool.invoked vault.keys.read_config: ok" in logs  # one record per operation
    assert "tattler: the plugin holds " in logs  # the log path was taken
    assert len(spans) > 10
    for source, needle in needles().items():
        for workflow_id, history in recorded.items():
            assert needle not in history, f"{source} credential in the history of {workflow_id}"
        for name, content in stores.items():
            assert needle not in content, f"{source} credential in {name}"
        assert needle.decode() not in logs, f"{source} credential in the log"
        assert needle not in exported, f"{source} credential in an exported span"
    # Each was there to be masked: the history shows the marks where the values were.
    parent = recorded[task_id]
    assert parent.count(b"[redacted:") >= len(SHAPED) + 1


async def _send(url: str, text: str) -> list[StreamResponse]:
    async with httpx.AsyncClient(timeout=30) as http:
        config = ClientConfig(streaming=True, httpx_client=http)
        client = await ClientFactory(config).create_from_url(url)
        return await collect(client.send_message(send_request(text)))

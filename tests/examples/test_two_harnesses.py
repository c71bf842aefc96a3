"""`examples/two-harnesses`: the parent and the child, each `tiny-harness serve --config` its
file, on the shared dev server (each its own task queue) and their own ports. A person asks
the parent; the parent delegates to the child, watches the parked child task by push, asks
the person the child's question, and the answer goes back to the child's task."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.types import StreamResponse
from temporalio.testing import WorkflowEnvironment

from tests.service.serve_process import ServeProcess
from tests.support import collect, send_request, states, streamed_messages
from tiny_harness.service.http import free_port

pytestmark = pytest.mark.timeout(120)

EXAMPLE = Path(__file__).parents[2] / "examples" / "two-harnesses"


def harness(
    temporal_env: WorkflowEnvironment,
    tmp_path: Path,
    name: str,
    port: int | None = None,
    **env: str,
) -> ServeProcess:
    """`serve --config <name>.toml`; the dev server's address and a unique task queue beat
    the file's embedded Temporal and queue, `port` (None: a free one) its port."""
    env = {
        "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"{name}-{tmp_path.name}",
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        **env,
    }
    config = ("--config", str(EXAMPLE / f"{name}.toml"))
    return ServeProcess(tmp_path / name, port or free_port(), env, args=config)


def said(events: list[StreamResponse]) -> list[str]:
    """Every text the stream carried: the status messages' and the answer's."""
    texts = [p.text for m in streamed_messages(events) for p in m.parts if p.text]
    for event in events:
        if event.HasField("artifact_update"):
            texts.extend(p.text for p in event.artifact_update.artifact.parts if p.text)
    return texts


async def test_the_childs_question_is_answered_through_the_parent_watching_by_push(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    child = harness(temporal_env, tmp_path, "child")
    await child.start()
    parent_port = free_port()
    parent_url = f"http://127.0.0.1:{parent_port}"
    agents = json.dumps([{"id": "shop", "url": child.url, "updates": "auto"}])
    parent = harness(
        temporal_env,
        tmp_path,
        "parent",
        port=parent_port,
        TINY_HARNESS_AGENTS=agents,
        TINY_HARNESS_SERVER__BASE_URL=parent_url,
    )
    await parent.start()
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            config = ClientConfig(streaming=True, httpx_client=http)
            client = await ClientFactory(config).create_from_url(parent.url)
            asked = await collect(client.send_message(send_request("Please order a shirt")))
            task_id = asked[0].task.id
            answered = await collect(client.send_message(send_request("L", task_id=task_id)))
    finally:
        assert await parent.stop() == 0
        assert await child.stop() == 0

    assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert "The shop asks: which size?" in said(asked)
    assert states(answered)[-1] == "TASK_STATE_COMPLETED"
    assert said(answered)[-1] == "Done: the shop ordered your shirt."
    # The child rang the parent's doorbell for the stand-in, and the parent accepted it.
    doorbell = f"POST {parent_url}/a2a/push/{task_id}.sub-1 "
    assert any(doorbell in line and "204 No Content" in line for line in child.lines)

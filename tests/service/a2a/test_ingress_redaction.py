"""Abuse case 6 at A2A ingress: a credential in a message is masked before the task's
workflow is started, so neither Temporal history nor the store ever holds it."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from a2a.helpers import get_message_text
from a2a.types import GetTaskRequest, TaskState
from temporalio.client import Client

from tests.support import BINDINGS, RunningHarness, collect, running_harness, send_request, states

ANSWER = "turns:\n  - text: answered\n"
BEARER = "abc123def456ghi789"
API_KEY = "sk-Ab3dEfGh1jKlMnOpQrStUvWx0123456789yzABCDEFGHij"
SECRETS = (BEARER, API_KEY)


async def stored_task_is_final(harness: RunningHarness, task_id: str) -> None:
    for _ in range(200):
        record = await harness.store.get_task(task_id)
        if record is not None and record.task.status.state == TaskState.TASK_STATE_COMPLETED:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"task {task_id} never reached the store as COMPLETED")


def store_bytes(tmp_path: Path, task_queue: str) -> bytes:
    """The store's database file with its journal (a write may still sit in the WAL)."""
    files = sorted(tmp_path.glob(f"{task_queue}.sqlite3*"))
    assert files
    return b"".join(f.read_bytes() for f in files)


@pytest.mark.parametrize("binding", BINDINGS)
async def test_ingress_redacted_before_history(
    temporal_client: Client, tmp_path: Path, binding: str, caplog: pytest.LogCaptureFixture
) -> None:
    text = f"my call fails.\nAuthorization: Bearer {BEARER}\nkey {API_KEY}"
    caplog.set_level(logging.INFO, logger="tiny_harness.service.a2a.handler")
    async with running_harness(temporal_client, tmp_path, ANSWER) as harness:
        client = await harness.client(binding)
        events = await collect(client.send_message(send_request(text)))
        task_id = events[0].task.id
        assert states(events)[-1] == "TASK_STATE_COMPLETED"
        task = await client.get_task(GetTaskRequest(id=task_id))
        await stored_task_is_final(harness, task_id)
        history = await temporal_client.get_workflow_handle(task_id).fetch_history()
        stored = store_bytes(tmp_path, harness.task_queue)

    masked = "Authorization: Bearer [redacted:authorization]\nkey [redacted:openai-key]"
    assert get_message_text(task.history[0]) == f"my call fails.\n{masked}"
    # Payloads are base64 in the JSON form, raw in the protobuf bytes: check both, and that
    # the masked text is readable there, so the absence of the secrets means something.
    raw_history = b"".join(event.SerializeToString() for event in history.events)
    assert b"[redacted:authorization]" in raw_history
    assert b"[redacted:openai-key]" in stored
    for secret in SECRETS:
        assert secret not in history.to_json()
        assert secret.encode() not in raw_history
        assert secret.encode() not in stored
    logged = [r.getMessage() for r in caplog.records if "credential-shaped" in r.getMessage()]
    assert logged == [
        f"task {task_id}: masked 2 credential-shaped values in message {task.history[0].message_id}"
    ]
    assert not any(secret in r.getMessage() for r in caplog.records for secret in SECRETS)

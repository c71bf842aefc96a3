"""Large payloads by reference: a reply of any size the server accepts completes its task,
and Temporal's history carries references, never a payload at or over the threshold.

Real Temporal, a real harness on 127.0.0.1, the real a2a-sdk client; the payloads are kept
in the harness's real SQLite store.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from a2a.helpers import get_artifact_text
from a2a.types import GetTaskRequest, TaskState
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.converter import ExternalStorage

from tests.support import (
    RunningHarness,
    collect,
    history_payloads,
    running_harness,
    send_request,
    states,
)

THRESHOLD = 128 * 1024

ASKS_THREE_TIMES = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "First part?"}}]
  - tool_calls: [{name: ask_participant, arguments: {question: "Second part?"}}]
  - tool_calls: [{name: ask_participant, arguments: {question: "Third part?"}}]
  - text: "All three parts read."
"""

ASKS_ONCE = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Paste the document."}}]
  - text: "Document read."
"""


def _is_reference(payload: object) -> bool:
    return bool(getattr(payload, "external_payloads", None))


async def _assert_lean_history(harness: RunningHarness, task_id: str) -> None:
    """No payload in the task's history is at or over the threshold, and some are
    references to what the store keeps."""
    payloads = await history_payloads(harness.temporal, task_id)
    sizes = sorted(p.ByteSize() for p in payloads)
    assert sizes[-1] < THRESHOLD, f"largest payload in history: {sizes[-1]} bytes"
    assert any(_is_reference(p) for p in payloads), "nothing was kept by reference"


async def _assert_completed_everywhere(harness: RunningHarness, task_id: str) -> None:
    """GetTask, the store and Temporal agree that the task completed."""
    client = await harness.client()
    task = await client.get_task(GetTaskRequest(id=task_id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    handle = harness.temporal.get_workflow_handle(task_id)
    await handle.result()  # the workflow closes just after the task's final event
    assert (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED
    record = await harness.store.get_task(task_id)
    assert record is not None
    assert record.task.status.state == TaskState.TASK_STATE_COMPLETED


async def test_a_900_kb_reply_completes_its_task(temporal_client: Client, tmp_path: Path) -> None:
    document = "lorem ipsum dolor sit amet " * (900_000 // 27)
    async with running_harness(temporal_client, tmp_path, ASKS_ONCE) as harness:
        client = await harness.client()
        first = await collect(client.send_message(send_request("Read my document")))
        task_id = first[0].task.id
        assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"

        reply = await collect(client.send_message(send_request(document, task_id=task_id)))

        assert states(reply)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
        answer = next(e.artifact_update.artifact for e in reply if e.HasField("artifact_update"))
        assert get_artifact_text(answer) == "Document read."
        await _assert_completed_everywhere(harness, task_id)
        await _assert_lean_history(harness, task_id)
        task = await client.get_task(GetTaskRequest(id=task_id))
        assert any(part.text == document for m in task.history for part in m.parts)


async def test_three_700_kb_replies_complete_their_task(
    temporal_client: Client, tmp_path: Path
) -> None:
    parts = [f"part {n}: " + "x" * 700_000 for n in range(3)]
    async with running_harness(temporal_client, tmp_path, ASKS_THREE_TIMES) as harness:
        client = await harness.client()
        first = await collect(client.send_message(send_request("Read three parts")))
        task_id = first[0].task.id
        for part in parts:
            reply = await collect(client.send_message(send_request(part, task_id=task_id)))
        assert states(reply)[-1] == "TASK_STATE_COMPLETED"

        await _assert_completed_everywhere(harness, task_id)
        await _assert_lean_history(harness, task_id)
        # What the model was given is what was sent: the parts came back whole.
        task = await client.get_task(GetTaskRequest(id=task_id))
        texts = {part.text for m in task.history for part in m.parts}
        assert set(parts) <= texts


async def test_a_payload_under_the_threshold_stays_inline(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_ONCE) as harness:
        client = await harness.client()
        first = await collect(client.send_message(send_request("Read my note")))
        task_id = first[0].task.id
        await collect(client.send_message(send_request("a short note", task_id=task_id)))
        await _assert_completed_everywhere(harness, task_id)
        payloads = await history_payloads(harness.temporal, task_id)
        assert not any(_is_reference(p) for p in payloads)
        storage = harness.temporal.data_converter.external_storage
        assert isinstance(storage, ExternalStorage)
        assert storage.payload_size_threshold == THRESHOLD


ASKS_FORTY_TIMES = (
    "turns:\n"
    + "".join(
        f'  - tool_calls: [{{name: ask_participant, arguments: {{question: "Part {n}?"}}}}]\n'
        for n in range(40)
    )
    + '  - text: "All forty parts read."\n'
)


@pytest.mark.timeout(300)
async def test_a_20_mb_conversation_over_40_turns_completes(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_FORTY_TIMES) as harness:
        client = await harness.client()
        first = await collect(client.send_message(send_request("Read forty parts")))
        task_id = first[0].task.id
        for n in range(40):
            request = send_request(f"part {n}: " + "y" * 500_000, task_id=task_id)
            # A client of a long conversation asks for the newest of it, not all 20 MB again.
            request.configuration.history_length = 1
            reply = await collect(client.send_message(request))
        assert states(reply)[-1] == "TASK_STATE_COMPLETED"

        await _assert_completed_everywhere(harness, task_id)
        await _assert_lean_history(harness, task_id)
        task = await client.get_task(GetTaskRequest(id=task_id))
    texts = [part.text for m in task.history for part in m.parts]
    assert sum(len(t) for t in texts) > 20_000_000
    assert texts.count("All forty parts read.") == 0  # the answer is the artifact
    assert get_artifact_text(task.artifacts[0]) == "All forty parts read."

"""SubscribeToTask per A2A 1.0 3.1.6: the stream opens with the task, stays open through
INPUT_REQUIRED and AUTH_REQUIRED, and ends at a terminal state; the real SDK client on both
bindings, a real harness on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from a2a.helpers import get_artifact_text
from a2a.types import StreamResponse, SubscribeToTaskRequest
from temporalio.client import Client

from tests.service.a2a.test_conversation import ASK_THEN_ANSWER
from tests.support import BINDINGS, collect, running_harness, send_request, states

SLOW_ASK_THEN_ANSWER = """
turns:
  - delay_seconds: 1.0
    tool_calls:
      - name: ask_participant
        arguments: {question: "Which colour?", options: [red, blue]}
  - text: "Blue it is."
"""


async def _next(queue: asyncio.Queue[StreamResponse | None]) -> StreamResponse:
    event = await asyncio.wait_for(queue.get(), timeout=30)
    assert event is not None, "the subscription ended early"
    return event


async def _pump(
    events: AsyncIterator[StreamResponse],
    queue: asyncio.Queue[StreamResponse | None],
    out: list[StreamResponse],
) -> None:
    """Keep every event in `out` and hand it on through `queue` (None: the stream ended)."""
    async for event in events:
        out.append(event)
        await queue.put(event)
    await queue.put(None)


@pytest.mark.parametrize("binding", BINDINGS)
async def test_subscriber_to_a_parked_task_hears_the_reply_and_the_end(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK_THEN_ANSWER) as harness:
        asker = await harness.client(binding)
        first = await collect(asker.send_message(send_request("Paint the fence")))
        task_id = first[0].task.id
        assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"

        watcher = await harness.client(binding)
        seen: list[StreamResponse] = []
        queue: asyncio.Queue[StreamResponse | None] = asyncio.Queue()
        pump = asyncio.create_task(
            _pump(watcher.subscribe(SubscribeToTaskRequest(id=task_id)), queue, seen)
        )
        opening = await _next(queue)
        assert opening.task.id == task_id
        assert states([opening]) == ["TASK_STATE_INPUT_REQUIRED"]
        # The stream must still be open: nothing has changed yet.
        await asyncio.sleep(0.5)
        assert not pump.done()

        await collect(asker.send_message(send_request("blue please", task_id=task_id)))
        await asyncio.wait_for(pump, timeout=30)

    assert states(seen)[0] == "TASK_STATE_INPUT_REQUIRED"
    assert "TASK_STATE_WORKING" in states(seen)
    assert states(seen)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    answer = next(e.artifact_update.artifact for e in seen if e.HasField("artifact_update"))
    assert get_artifact_text(answer) == "Blue it is."


@pytest.mark.parametrize("binding", BINDINGS)
async def test_subscriber_from_working_stays_through_the_question(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with running_harness(temporal_client, tmp_path, SLOW_ASK_THEN_ANSWER) as harness:
        client = await harness.client(binding)
        request = send_request("Paint the fence")
        request.configuration.return_immediately = True
        [started] = await collect((await harness.client(streaming=False)).send_message(request))
        task_id = started.task.id

        seen: list[StreamResponse] = []
        queue: asyncio.Queue[StreamResponse | None] = asyncio.Queue()
        pump = asyncio.create_task(
            _pump(client.subscribe(SubscribeToTaskRequest(id=task_id)), queue, seen)
        )
        while "TASK_STATE_INPUT_REQUIRED" not in states(seen):
            await _next(queue)
        await asyncio.sleep(0.5)
        assert not pump.done(), "the stream closed at INPUT_REQUIRED"

        await collect(client.send_message(send_request("blue", task_id=task_id)))
        await asyncio.wait_for(pump, timeout=30)

    assert states(seen)[-1] == "TASK_STATE_COMPLETED"
    assert states(seen).count("TASK_STATE_INPUT_REQUIRED") == 1

"""SubscribeToTask per A2A 1.0 3.1.6: the stream opens with the task, stays open through
INPUT_REQUIRED and AUTH_REQUIRED, and ends at a terminal state; the real SDK client on both
bindings, a real harness on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from a2a.helpers import get_artifact_text
from a2a.types import StreamResponse, SubscribeToTaskRequest, Task, TaskState
from temporalio.client import Client

from tests.service.a2a.test_conversation import ASK_THEN_ANSWER
from tests.support import BINDINGS, HeldLLM, collect, running_harness, send_request, states
from tiny_harness.harness.persistence.store import LogWrite, Store
from tiny_harness.service.durable.workflows.events import (
    fold,
    new_task,
    status_event,
    task_event,
)


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
        # Nothing changes until the reply: a stream that ended here would miss its outcome.
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
    llm = HeldLLM(ASK_THEN_ANSWER)
    async with running_harness(temporal_client, tmp_path, "", llm=llm) as harness:
        client = await harness.client(binding)
        request = send_request("Paint the fence")
        request.configuration.return_immediately = True
        [started] = await collect((await harness.client(streaming=False)).send_message(request))
        task_id = started.task.id
        await asyncio.wait_for(llm.holding.wait(), 30)  # the model is thinking: WORKING

        seen: list[StreamResponse] = []
        queue: asyncio.Queue[StreamResponse | None] = asyncio.Queue()
        pump = asyncio.create_task(
            _pump(client.subscribe(SubscribeToTaskRequest(id=task_id)), queue, seen)
        )
        opening = await _next(queue)
        assert states([opening]) == ["TASK_STATE_WORKING"]
        llm.release.set()
        while "TASK_STATE_INPUT_REQUIRED" not in states(seen):
            await _next(queue)
        # The question is the newest event now: a send's stream would end here, and this
        # one must not, or it never hears the reply's outcome below.
        await collect(client.send_message(send_request("blue", task_id=task_id)))
        await asyncio.wait_for(pump, timeout=30)

    assert states(seen)[-1] == "TASK_STATE_COMPLETED"
    assert states(seen).count("TASK_STATE_INPUT_REQUIRED") == 1


@pytest.mark.parametrize("binding", BINDINGS)
async def test_subscriber_stays_through_auth_required_until_the_end(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    # The harness's own loop never asks for authentication, but any task in the store can
    # be in that state (the log of a task another deployment wrote, say): the read side
    # treats it as the pause it is.
    async with running_harness(temporal_client, tmp_path, "turns: []\n") as harness:
        log = StoredLog(harness.store, "t-auth")
        await log.write(task_event(log.task), log.status(TaskState.TASK_STATE_AUTH_REQUIRED))
        client = await harness.client(binding)
        seen: list[StreamResponse] = []
        queue: asyncio.Queue[StreamResponse | None] = asyncio.Queue()
        pump = asyncio.create_task(
            _pump(client.subscribe(SubscribeToTaskRequest(id="t-auth")), queue, seen)
        )
        opening = await _next(queue)
        assert states([opening]) == ["TASK_STATE_AUTH_REQUIRED"]

        await log.write(log.status(TaskState.TASK_STATE_WORKING))
        assert states([await _next(queue)]) == ["TASK_STATE_WORKING"]
        await log.write(log.status(TaskState.TASK_STATE_COMPLETED))
        await asyncio.wait_for(pump, timeout=30)

    assert states(seen) == [
        "TASK_STATE_AUTH_REQUIRED",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
    ]


NOW = datetime(2026, 1, 1, tzinfo=UTC)


class StoredLog:
    """A task's log written straight to a store, a step at a time, as a workflow would."""

    def __init__(self, store: Store, task_id: str) -> None:
        self._store = store
        self.task = new_task(task_id, "ctx", NOW)
        self._seq = 0

    def status(self, state: TaskState) -> StreamResponse:
        return status_event(self.task, state, NOW + timedelta(seconds=self._seq))

    async def write(self, *events: StreamResponse) -> None:
        for event in events:
            fold(self.task, event)
        head = Task()
        head.CopyFrom(self.task)
        step = LogWrite(
            task=head, first_seq=self._seq, events=events, first_message=0, updated_at=NOW
        )
        await self._store.write_log(step)
        self._seq += len(events)

"""A message is delivered while no worker is there to take it, once one comes back.

Temporal's update call runs out of time when no worker takes the message (every worker
restarting, as in the soak's SIGKILL): the gateway asks again under the same update id, so
the sender waits instead of getting an internal error, and the message is taken once. The
gateway here gives each try 1 s (production: the Temporal client's own deadline), on a task
queue of its own whose worker the test starts and stops.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

from a2a.helpers import get_message_text
from a2a.types import TaskState
from temporalio.client import Client

from tests.support import ASKS_WHICH_SIZE, RunningHarness, running_harness, user_message
from tiny_harness.service.durable.activities.task import TaskActivities
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.client.worker import build_worker

GATEWAY_LOG = "tiny_harness.service.durable.client.gateway"
WAIT_S = 60


class Queue:
    """A task queue of the test's own, with a gateway trying each delivery for 1 s."""

    def __init__(self, harness: RunningHarness) -> None:
        self.harness = harness
        self.name = f"delivery-{uuid.uuid4()}"
        self.gateway = TaskGateway(
            harness.temporal,
            task_queue=self.name,
            store=harness.store,
            update_rpc_timeout=timedelta(seconds=1),
        )

    @asynccontextmanager
    async def worker(self) -> AsyncIterator[None]:
        """A worker on the queue while the block runs."""
        worker = build_worker(
            self.harness.temporal,
            task_queue=self.name,
            activities=TaskActivities(self.harness.harness),
        )
        async with worker:
            yield


class AskedAgain(logging.Handler):
    """Set once the gateway logs that it asks again for the message it watches."""

    def __init__(self, message_id: str) -> None:
        super().__init__(logging.WARNING)
        self.message_id = message_id
        self.seen = asyncio.Event()
        self.loop = asyncio.get_running_loop()

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if self.message_id in text and "asking again" in text:
            self.loop.call_soon_threadsafe(self.seen.set)


@asynccontextmanager
async def watching(message_id: str) -> AsyncIterator[AskedAgain]:
    """The gateway's log watched for `message_id` while the block runs."""
    handler = AskedAgain(message_id)
    logger = logging.getLogger(GATEWAY_LOG)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


async def test_a_new_task_sent_while_no_worker_runs_starts_once_a_worker_comes(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as harness:
        queue = Queue(harness)
        task_id, first = str(uuid.uuid4()), user_message("order a shirt")
        async with watching(first.message_id) as watch:
            sending = asyncio.create_task(queue.gateway.start(task_id, "ctx", first))
            await asyncio.wait_for(watch.seen.wait(), WAIT_S)
        assert not sending.done()
        async with queue.worker():
            receipt = await asyncio.wait_for(sending, WAIT_S)
            assert receipt.task.id == task_id
            assert not receipt.duplicate
            await until_state(harness, task_id, TaskState.TASK_STATE_INPUT_REQUIRED)
        record = await harness.store.get_task(task_id)
    assert record is not None
    assert [get_message_text(m) for m in record.task.history].count("order a shirt") == 1


async def test_a_reply_sent_while_no_worker_runs_is_taken_once_when_one_comes_back(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as harness:
        queue = Queue(harness)
        task_id = str(uuid.uuid4())
        async with queue.worker():
            await queue.gateway.start(task_id, "ctx", user_message("order a shirt"))
            await until_state(harness, task_id, TaskState.TASK_STATE_INPUT_REQUIRED)
        reply = user_message("L", task_id=task_id)
        async with watching(reply.message_id) as watch:
            sending = asyncio.create_task(queue.gateway.send(task_id, reply))
            await asyncio.wait_for(watch.seen.wait(), WAIT_S)
        assert not sending.done()
        async with queue.worker():
            receipt = await asyncio.wait_for(sending, WAIT_S)
            assert not receipt.duplicate
            result = harness.temporal.get_workflow_handle(task_id).result()
            await asyncio.wait_for(result, WAIT_S)
        record = await harness.store.get_task(task_id)
    assert record is not None
    assert record.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert [get_message_text(m) for m in record.task.history].count("L") == 1


async def until_state(harness: RunningHarness, task_id: str, state: TaskState) -> None:
    """Wait until the store holds the task in `state`."""
    async with asyncio.timeout(WAIT_S):
        version = 0
        while True:
            record = await harness.store.get_task(task_id, history_length=0)
            if record is not None and record.task.status.state == state:
                return
            if record is not None:
                version = record.version
            await harness.store.wait_for_log(task_id, version)

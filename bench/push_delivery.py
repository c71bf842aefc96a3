"""How fast, and at what cost, a task's events reach a client's push receiver.

Run with: `.venv/bin/python bench/push_delivery.py [--tasks 10]`

Each task is started with a push config in its SendMessage (`url` = a receiver on
127.0.0.1, allow-listed), asks a question, and completes on the reply. For every status
update the receiver gets, the delay is its arrival (`time.time_ns()`) minus the status
timestamp the workflow wrote (`workflow.now()` when the event was recorded): the whole
path log → courier's watch → deliver_pushes → POST. Also per task: events delivered, and
the courier workflow's history events and activities (the task's own history holds none).

Everything runs on one embedded Temporal dev server and one in-process harness on this
machine, so figures include contention between them; one warm-up task is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import tempfile
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.types import (
    ListTaskPushNotificationConfigsRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    TaskPushNotificationConfig,
)
from temporalio.client import Client

from tiny_harness.config import load_settings
from tiny_harness.service.http import free_port
from tiny_harness.service.notifications.courier import courier_id
from tiny_harness.service.runtime import open_harness

# `tests` is importable from the repository root only (pytest's pythonpath "."), so a run
# as `python bench/push_delivery.py` puts the root on the path first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.service.notifications.receiver import Receiver, push_receiver
from tests.support import ASKS_WHICH_SIZE, send_request, user_message


@dataclass(frozen=True)
class TaskFigures:
    """One task's deliveries, measured."""

    delays_ms: tuple[float, ...]
    delivered: int
    courier_events: int
    courier_activities: int


async def one_task(
    url: str, temporal: Client, http: httpx.AsyncClient, hook: Receiver
) -> TaskFigures:
    config = ClientConfig(
        streaming=True, supported_protocol_bindings=["JSONRPC"], httpx_client=http
    )
    client = await ClientFactory(config).create_from_url(url)
    before = len(hook.accepted)
    push = TaskPushNotificationConfig(url=hook.url)
    first = SendMessageRequest(
        message=user_message("order a shirt"),
        configuration=SendMessageConfiguration(task_push_notification_config=push),
    )
    task_id = ""
    async for event in client.send_message(first):
        task_id = task_id or event.task.id
    async for _ in client.send_message(send_request("M", task_id=task_id)):
        pass
    handle = temporal.get_workflow_handle(task_id)
    await asyncio.wait_for(handle.result(), 60)
    listed = await client.list_task_push_notification_configs(
        ListTaskPushNotificationConfigsRequest(task_id=task_id)
    )
    courier = temporal.get_workflow_handle(courier_id(task_id, listed.configs[0].id))
    await asyncio.wait_for(courier.result(), 60)
    events = hook.accepted[before:]
    delays = tuple(
        (arrived - e.status_update.status.timestamp.ToNanoseconds()) / 1e6
        for e, arrived in zip(events, hook.arrived_ns[before:], strict=True)
        if e.HasField("status_update")
    )
    history = await courier.fetch_history()
    activities = sum(e.HasField("activity_task_scheduled_event_attributes") for e in history.events)
    return TaskFigures(delays, len(events), len(history.events), activities)


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (`p` in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


async def main(tasks: int) -> None:
    print(f"tiny-harness push delivery; python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="th-push-") as tmp:
        root = Path(tmp)
        script_file = root / "asks.yaml"
        script_file.write_text(ASKS_WHICH_SIZE)
        settings = load_settings(
            overrides={
                "data_dir": root / "run",
                "server.port": free_port(),
                "temporal.embedded_port": 0,
                "model.script": script_file,
                "heartbeat.enabled": False,
                "push.allow": ["127.0.0.1"],
            },
            environ={},
        )
        async with (
            AsyncExitStack() as stack,
            httpx.AsyncClient(timeout=60, trust_env=False) as http,
            push_receiver() as hook,
        ):
            harness = await open_harness(settings, stack)
            temporal = harness.temporal.client
            await one_task(harness.url, temporal, http, hook)  # warm-up, not counted
            figures = [await one_task(harness.url, temporal, http, hook) for _ in range(tasks)]
    delays = [d for f in figures for d in f.delays_ms]
    print(
        "status update written → received by the push receiver: "
        f"p50 {percentile(delays, 50):.1f} ms, p95 {percentile(delays, 95):.1f} ms, "
        f"max {max(delays):.1f} ms ({len(delays)} updates)"
    )
    per_task = figures[0]
    print(
        f"per task: {per_task.delivered} events pushed; courier history {per_task.courier_events} "
        f"events, {per_task.courier_activities} deliver_pushes activities (tasks: {tasks})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tasks", type=int, default=10)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.tasks))

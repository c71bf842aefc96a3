"""The operator's counters: tasks by the final state they reached, push attempts by their
verdict, and pushes received by what became of them, read from a real OpenTelemetry SDK
meter (an in-memory reader) fed by the real components."""

from __future__ import annotations

from pathlib import Path

import httpx
from a2a.types import CancelTaskRequest, StreamResponse, TaskPushNotificationConfig
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from temporalio.client import Client

from tests.service.notifications.receiver import push_receiver
from tests.support import ASKS_WHICH_SIZE, collect, running_harness, send_request
from tiny_harness.service.a2a.doorbell import PushReceiver
from tiny_harness.service.notifications.sender import PushActivities
from tiny_harness.service.notifications.url_guard import UrlGuard
from tiny_harness.service.o11y.counters import (
    PUSH_RECEIVED,
    PUSH_SENT,
    TASKS_ENDED,
    Counters,
)

type Counts = dict[tuple[tuple[str, object], ...], int]


def meter() -> tuple[InMemoryMetricReader, Counters, MeterProvider]:
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    return reader, Counters(provider.get_meter("test")), provider


def counts(reader: InMemoryMetricReader, name: str) -> Counts:
    """The counter `name`'s value for each set of attributes."""
    data = reader.get_metrics_data()
    found: Counts = {}
    metrics = [
        metric
        for resource in (data.resource_metrics if data else ())
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == name
    ]
    for metric in metrics:
        for point in metric.data.data_points:
            attributes: dict[str, object] = dict(point.attributes or {})
            found[tuple(sorted(attributes.items()))] = int(point.value)  # type: ignore[union-attr]
    return found


async def test_a_task_is_counted_once_by_the_final_state_it_reached(
    temporal_client: Client, tmp_path: Path
) -> None:
    reader, counters, _ = meter()
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE, counters=counters) as h:
        client = await h.client()
        answered = (await collect(client.send_message(send_request("a shirt"))))[0].task.id
        dropped = (await collect(client.send_message(send_request("a hat"))))[0].task.id
        waiting = counts(reader, TASKS_ENDED)  # both wait for an answer: neither has ended
        await collect(client.send_message(send_request("M", task_id=answered)))
        await client.cancel_task(CancelTaskRequest(id=dropped))
        for task_id in (answered, dropped):
            await temporal_client.get_workflow_handle(task_id).result()

    assert waiting == {}
    assert counts(reader, TASKS_ENDED) == {
        (("tiny_harness.task.state", "TASK_STATE_COMPLETED"),): 1,
        (("tiny_harness.task.state", "TASK_STATE_CANCELED"),): 1,
    }


async def test_push_attempts_are_counted_by_verdict(
    temporal_client: Client, tmp_path: Path
) -> None:
    reader, counters, _ = meter()
    async with (
        push_receiver() as receiver,
        running_harness(temporal_client, tmp_path, "turns: []\n") as h,
        httpx.AsyncClient() as http,
    ):
        activities = PushActivities(
            h.gateway, h.push_configs, UrlGuard(["127.0.0.1"]), http, counters
        )
        reachable = TaskPushNotificationConfig(task_id="t", id="a", url=receiver.url)
        # A private address not allowed: the guard refuses it by its decision, sending nothing.
        private = TaskPushNotificationConfig(task_id="t", id="b", url="http://10.1.2.3/hook")
        await activities.post(reachable, StreamResponse())
        await activities.post(private, StreamResponse())
        await activities.post(reachable, StreamResponse())

    assert counts(reader, PUSH_SENT) == {
        (("tiny_harness.push.outcome", "delivered"),): 2,
        (("tiny_harness.push.outcome", "refused"),): 1,
    }


async def test_pushes_received_are_counted_with_the_reason_of_each_refusal(
    temporal_client: Client,
) -> None:
    reader, counters, _ = meter()
    doorbell = PushReceiver(temporal_client, counters=counters)
    body = b'{"statusUpdate": {"taskId": "r", "status": {"state": "TASK_STATE_WORKING"}}}'

    assert await doorbell.receive("no-such-task", None, body) == 401
    assert await doorbell.receive("no-such-task", "token", b"not json") == 400
    assert await doorbell.receive("no-such-task", "token", body) == 401  # no stand-in to verify

    refused = ("tiny_harness.push.outcome", "refused")
    assert counts(reader, PUSH_RECEIVED) == {
        (refused, ("tiny_harness.push.reason", "no-token")): 1,
        (refused, ("tiny_harness.push.reason", "malformed")): 1,
        (refused, ("tiny_harness.push.reason", "unverified")): 1,
    }

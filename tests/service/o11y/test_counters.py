"""The operator's counters: tasks by the final state they reached, push attempts by their
verdict, and pushes received by what became of them, read from a real OpenTelemetry SDK
meter (an in-memory reader) fed by the real components."""

from __future__ import annotations

from pathlib import Path

import httpx
from a2a.types import StreamResponse, TaskPushNotificationConfig, TaskState
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from temporalio.client import Client

from tests.service.notifications.receiver import push_receiver
from tests.support import running_harness
from tiny_harness.harness.hooks import TaskStateChangedPre
from tiny_harness.harness.models.llm import LLMModelInfo
from tiny_harness.service.a2a.doorbell import PushReceiver
from tiny_harness.service.notifications.sender import PushActivities
from tiny_harness.service.notifications.url_guard import UrlGuard
from tiny_harness.service.o11y.counters import (
    PUSH_RECEIVED,
    PUSH_SENT,
    TASKS_ENDED,
    Counters,
)
from tiny_harness.service.o11y.metrics import STATE_CHANGED, MetricHooks

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


def changed(before: int, after: int) -> TaskStateChangedPre:
    return TaskStateChangedPre(task_id="t", correlation_id="c", before=before, after=after)


async def test_only_a_task_reaching_a_final_state_is_counted_by_that_state() -> None:
    reader, counters, provider = meter()
    hooks = MetricHooks(
        provider.get_meter("test"),
        LLMModelInfo(provider="p", model="m", context_window=1000),
        counters,
    )
    working, asking = TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_INPUT_REQUIRED
    await hooks.handle(STATE_CHANGED, changed(TaskState.TASK_STATE_SUBMITTED, working))
    await hooks.handle(STATE_CHANGED, changed(working, asking))
    await hooks.handle(STATE_CHANGED, changed(asking, TaskState.TASK_STATE_COMPLETED))
    await hooks.handle(STATE_CHANGED, changed(working, TaskState.TASK_STATE_FAILED))
    await hooks.handle(STATE_CHANGED, changed(working, TaskState.TASK_STATE_COMPLETED))

    assert counts(reader, TASKS_ENDED) == {
        (("tiny_harness.task.state", "TASK_STATE_COMPLETED"),): 2,
        (("tiny_harness.task.state", "TASK_STATE_FAILED"),): 1,
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

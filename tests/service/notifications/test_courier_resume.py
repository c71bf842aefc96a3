"""A delivery slice whose worker died resumes from the cursor it last heartbeated: the
events already delivered are not posted again, and the counts carry over.

The slice runs in Temporal's `ActivityEnvironment` (a real activity context, with the
heartbeat details a retried attempt would get) against a real harness's task log and a
real receiver on 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path

import httpx
from a2a.types import TaskPushNotificationConfig
from temporalio.client import Client
from temporalio.testing import ActivityEnvironment

from tests.service.notifications.receiver import push_receiver
from tests.support import ASKS_WHICH_SIZE, collect, running_harness, send_request, stored_log
from tiny_harness.service.notifications.payloads import DeliveryInput, DeliveryProgress
from tiny_harness.service.notifications.sender import PushActivities
from tiny_harness.service.notifications.url_guard import UrlGuard


async def test_a_retried_slice_resumes_after_the_last_event_it_delivered(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        push_receiver() as receiver,
        running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as h,
    ):
        client = await h.client()
        first = await collect(client.send_message(send_request("order a shirt")))
        task_id = first[0].task.id
        await collect(client.send_message(send_request("M", task_id=task_id)))
        await temporal_client.get_workflow_handle(task_id).result()
        record = await h.store.get_task(task_id)
        assert record is not None
        log = await stored_log(h.store, task_id)
        config = await h.push_configs.put(
            TaskPushNotificationConfig(task_id=task_id, url=receiver.url)
        )
        done_before = 3  # what the dead attempt had delivered and heartbeated
        env = ActivityEnvironment()
        env.info = dataclasses.replace(
            env.info,
            heartbeat_details=[DeliveryProgress(cursor=done_before, delivered=done_before)],
            heartbeat_timeout=timedelta(seconds=30),
        )
        async with httpx.AsyncClient() as http:
            activities = PushActivities(h.gateway, h.push_configs, UrlGuard(["127.0.0.1"]), http)
            progress = await env.run(
                activities.deliver_pushes,
                DeliveryInput(
                    task_id=task_id, config_id=config.id, cursor=0, window=timedelta(minutes=5)
                ),
            )

    assert receiver.accepted == log[done_before:]
    assert progress == DeliveryProgress(cursor=len(log), finished=True, delivered=len(log))

"""Push notifications to our own clients, end to end: a client registers a receiver on a
task over A2A, the task's courier posts every later event to it in order, and neither a
receiver that is down nor a deleted config ever holds the task up.

Real harness, real Temporal dev server, real HTTP on 127.0.0.1; the receiver is a small
recording endpoint (receiver.py), allow-listed as the harness's push target.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from a2a.types import (
    AuthenticationInfo,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    TaskPushNotificationConfig,
)
from a2a.utils.errors import InvalidParamsError, TaskNotFoundError
from temporalio.client import Client, WorkflowExecutionStatus

from tests.service.notifications.receiver import Receiver, push_receiver
from tests.support import (
    ASKS_WHICH_SIZE,
    BINDINGS,
    RunningHarness,
    capture_debug,
    collect,
    running_harness,
    send_request,
    states,
    stored_log,
    user_message,
)
from tiny_harness.service.notifications.courier import courier_id
from tiny_harness.service.notifications.payloads import CourierReport

ASKS = ASKS_WHICH_SIZE

TOKEN = "tok-8c1f2e7d9a"
CREDENTIALS = "cred-5b3a9e0c44"


def config_for(task_id: str, receiver: Receiver) -> TaskPushNotificationConfig:
    return TaskPushNotificationConfig(
        task_id=task_id,
        url=receiver.url,
        token=TOKEN,
        authentication=AuthenticationInfo(scheme="Bearer", credentials=CREDENTIALS),
    )


def sqlite_bytes(folder: Path) -> bytes:
    """Every byte of the SQLite files (WAL included) in `folder`."""
    return b"".join(p.read_bytes() for p in folder.glob("*.sqlite3*"))


async def parked_task(running: RunningHarness, binding: str = "JSONRPC") -> str:
    """A task waiting INPUT_REQUIRED; its id."""
    client = await running.client(binding)
    events = await collect(client.send_message(send_request("order a shirt")))
    assert states(events)[-1] == "TASK_STATE_INPUT_REQUIRED"
    return events[0].task.id


async def answer(running: RunningHarness, task_id: str) -> list[StreamResponse]:
    """Reply to the parked task; the events the reply streamed, once its workflow closed."""
    client = await running.client()
    events = await collect(client.send_message(send_request("M", task_id=task_id)))
    await running.temporal.get_workflow_handle(task_id).result()
    return events


async def log_after_question(running: RunningHarness, task_id: str) -> list[StreamResponse]:
    """The task's stored log from the event after its (last) INPUT_REQUIRED on."""
    record = await running.store.get_task(task_id)
    assert record is not None
    events = await stored_log(running.store, task_id)
    parked = max(i for i, e in enumerate(events) if states([e]) == ["TASK_STATE_INPUT_REQUIRED"])
    return events[parked + 1 :]


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_registered_receiver_gets_every_later_event_in_order_with_its_secrets(
    temporal_client: Client, tmp_path: Path, binding: str
) -> None:
    async with push_receiver() as receiver, running_harness(temporal_client, tmp_path, ASKS) as h:
        task_id = await parked_task(h, binding)
        client = await h.client(binding)
        created = await client.create_task_push_notification_config(config_for(task_id, receiver))
        got = await client.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=task_id, id=created.id)
        )
        listed = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )
        await answer(h, task_id)
        expected = await log_after_question(h, task_id)
        received = await receiver.wait_for(len(expected))

    assert received == expected
    assert states(received)[-1] == "TASK_STATE_COMPLETED"
    assert all(hd["x-a2a-notification-token"] == TOKEN for hd in receiver.headers)
    assert all(hd["authorization"] == f"Bearer {CREDENTIALS}" for hd in receiver.headers)
    # Reads show the scheme, never the secrets.
    for shown in (created, got, *listed.configs):
        assert (shown.id, shown.url, shown.authentication.scheme) == (
            created.id,
            receiver.url,
            "Bearer",
        )
        assert shown.token == ""
        assert shown.authentication.credentials == ""


async def test_a_receiver_down_for_a_while_gets_every_event_later_and_the_task_does_not_wait(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with push_receiver() as receiver, running_harness(temporal_client, tmp_path, ASKS) as h:
        receiver.down = True
        task_id = await parked_task(h)
        client = await h.client()
        await client.create_task_push_notification_config(config_for(task_id, receiver))
        finished = await answer(h, task_id)
        await receiver.wait_for_attempts(2)  # the courier retried against the dead receiver
        accepted_while_down = len(receiver.accepted)
        attempts_while_down = receiver.attempts
        receiver.down = False
        expected = await log_after_question(h, task_id)
        received = await receiver.wait_for(len(expected), seconds=30)
        report = await temporal_client.get_workflow_handle(
            courier_id(task_id, (await h.push_configs.list(task_id))[0].id),
            result_type=CourierReport,
        ).result()

    assert states(finished)[-1] == "TASK_STATE_COMPLETED"
    assert accepted_while_down == 0
    assert attempts_while_down >= 2
    assert received == expected
    assert report == CourierReport(delivered=len(expected), dropped=0)


async def test_a_receiver_dead_for_the_whole_window_is_given_up_and_its_courier_ends(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        push_receiver() as receiver,
        running_harness(temporal_client, tmp_path, ASKS, push_window=timedelta(seconds=2)) as h,
    ):
        receiver.down = True
        task_id = await parked_task(h)
        created = await (await h.client()).create_task_push_notification_config(
            config_for(task_id, receiver)
        )
        finished = await answer(h, task_id)
        report = await temporal_client.get_workflow_handle(
            courier_id(task_id, created.id), result_type=CourierReport
        ).result()
        expected = await log_after_question(h, task_id)

    assert states(finished)[-1] == "TASK_STATE_COMPLETED"
    assert receiver.accepted == []
    assert report == CourierReport(delivered=0, dropped=len(expected))


async def test_a_config_sent_with_the_first_message_hears_the_task_from_its_first_event(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with push_receiver() as receiver, running_harness(temporal_client, tmp_path, ASKS) as h:
        request = SendMessageRequest(
            message=user_message("order a shirt"),
            configuration=SendMessageConfiguration(
                task_push_notification_config=TaskPushNotificationConfig(url=receiver.url)
            ),
        )
        client = await h.client()
        events = await collect(client.send_message(request))
        task_id = events[0].task.id
        await answer(h, task_id)
        record = await h.store.get_task(task_id)
        assert record is not None
        log = await stored_log(h.store, task_id)
        received = await receiver.wait_for(len(log))

    assert received == log
    assert received[0].WhichOneof("payload") == "task"


async def test_a_deleted_config_gets_nothing_more(temporal_client: Client, tmp_path: Path) -> None:
    async with (
        push_receiver() as receiver,
        push_receiver() as control,
        running_harness(temporal_client, tmp_path, ASKS) as h,
    ):
        task_id = await parked_task(h)
        client = await h.client()
        created = await client.create_task_push_notification_config(config_for(task_id, receiver))
        kept = await client.create_task_push_notification_config(config_for(task_id, control))
        await client.delete_task_push_notification_config(
            DeleteTaskPushNotificationConfigRequest(task_id=task_id, id=created.id)
        )
        courier = temporal_client.get_workflow_handle(courier_id(task_id, created.id))
        finished = await answer(h, task_id)
        # The control config, kept, hears the whole rest of the task: pushes went out.
        await control.wait_for(len(await log_after_question(h, task_id)))
        status = (await courier.describe()).status
        listed = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )

    assert states(finished)[-1] == "TASK_STATE_COMPLETED"
    assert receiver.attempts == 0
    assert status == WorkflowExecutionStatus.CANCELED
    assert [config.id for config in listed.configs] == [kept.id]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_a_loopback_receiver_is_refused_unless_allow_listed_and_never_hit(
    temporal_client: Client, tmp_path: Path, host: str
) -> None:
    async with (
        push_receiver() as honeypot,
        running_harness(temporal_client, tmp_path, ASKS, push_allow=()) as h,
    ):
        task_id = await parked_task(h)
        client = await h.client()
        config = config_for(task_id, honeypot)
        config.url = honeypot.url.replace("127.0.0.1", host)
        with pytest.raises(InvalidParamsError, match="push URL refused: loopback address"):
            await client.create_task_push_notification_config(config)
        # The same config riding on the reply: refused before the reply is taken.
        request = SendMessageRequest(
            message=user_message("M", task_id=task_id),
            configuration=SendMessageConfiguration(task_push_notification_config=config),
        )
        with pytest.raises(InvalidParamsError, match="push URL refused: loopback address"):
            await collect(client.send_message(request))
        await answer(h, task_id)
        stored = await h.push_configs.list(task_id)

    assert stored == []
    assert honeypot.attempts == 0


async def test_push_config_operations_on_an_unknown_task_are_task_not_found(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with push_receiver() as receiver, running_harness(temporal_client, tmp_path, ASKS) as h:
        client = await h.client()
        calls = [
            client.create_task_push_notification_config(config_for("no-such-task", receiver)),
            client.get_task_push_notification_config(
                GetTaskPushNotificationConfigRequest(task_id="no-such-task", id="x")
            ),
            client.list_task_push_notification_configs(
                ListTaskPushNotificationConfigsRequest(task_id="no-such-task")
            ),
            client.delete_task_push_notification_config(
                DeleteTaskPushNotificationConfigRequest(task_id="no-such-task", id="x")
            ),
        ]
        for call in calls:
            with pytest.raises(TaskNotFoundError):
                await call


async def test_push_secrets_never_reach_history_the_store_file_or_logs(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    capture_debug(caplog)
    async with push_receiver() as receiver, running_harness(temporal_client, tmp_path, ASKS) as h:
        task_id = await parked_task(h)
        created = await (await h.client()).create_task_push_notification_config(
            config_for(task_id, receiver)
        )
        await answer(h, task_id)
        await temporal_client.get_workflow_handle(courier_id(task_id, created.id)).result()
        histories = [
            await temporal_client.get_workflow_handle(wf).fetch_history()
            for wf in await h.workflow_ids()
        ]
        files = sqlite_bytes(tmp_path)

    assert len(receiver.accepted) > 0  # the secrets were used, so they existed somewhere
    text = "".join(h.to_json() for h in histories) + caplog.text
    for secret in (TOKEN, CREDENTIALS):
        assert secret not in text
        assert secret.encode() not in files

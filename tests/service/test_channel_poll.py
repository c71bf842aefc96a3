"""Pull channels polled by the heartbeat, on the shared Temporal dev server.

A tick is one `HeartbeatWorkflow` run: started by the heartbeat schedule (and read back on
`/_monitor`) where the test is about what an operator sees, else run directly on the test's
task queue, which gives exactly one tick and its result. Tasks are parked INPUT_REQUIRED by
a script that asks a question first; a reply completes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from a2a.helpers import get_message_text
from a2a.types import Message, Part, Role, Task, TaskState
from temporalio.client import Client
from temporalio.service import RPCError

from tests.support import RunningHarness, collect, running_harness, send_request, states
from tiny_harness.config import HeartbeatConfig
from tiny_harness.harness.channels import Channel, ChannelDelivery, channel_ref
from tiny_harness.harness.channels.extension import ChannelMessageData, channel_part
from tiny_harness.harness.entities import RegistryEntry
from tiny_harness.harness.persistence.records import RecordKind
from tiny_harness.harness.persistence.retention import RetentionConfig
from tiny_harness.harness.runtime.monitor import ChannelCounts, MonitorSnapshot
from tiny_harness.service.heartbeat.activities import HeartbeatActivities, PollInput
from tiny_harness.service.heartbeat.schedule import ensure_heartbeat_schedule
from tiny_harness.service.heartbeat.workflow import HeartbeatStart, HeartbeatWorkflow

pytestmark = pytest.mark.timeout(90)

ASK = """
turns:
  - text: "Let me check."
    tool_calls: [{name: ask_participant, arguments: {question: "Which size?", options: [S, M]}}]
  - text: "Size noted."
"""
DEADLINE_SECONDS = 20
UNSCHEDULED = HeartbeatConfig(schedule_id="heartbeat-never-created")
"""Runs the heartbeat on the worker; the tests that use it start their ticks themselves."""
SECRET = "card 4242 4242 4242 4242"
"""Text no log line may ever carry."""


class QueueChannel(Channel):
    """A channel handing out what was queued on it, each delivery once; counts its polls."""

    def __init__(
        self, name: str, deliveries: Iterable[ChannelDelivery] = (), *, pull: bool = True
    ) -> None:
        self.ref = channel_ref(name)
        self.pull = pull
        self.polls = 0
        self._queue = list(deliveries)

    async def poll(self) -> Sequence[ChannelDelivery]:
        self.polls += 1
        taken, self._queue = tuple(self._queue), []
        return taken


class BrokenChannel(Channel):
    """A pull channel whose source is down."""

    pull = True

    def __init__(self, name: str) -> None:
        self.ref = channel_ref(name)

    async def poll(self) -> Sequence[ChannelDelivery]:
        raise ConnectionError("the mailbox server is down")


class HangingChannel(BrokenChannel):
    """A pull channel whose poll never answers."""

    async def poll(self) -> Sequence[ChannelDelivery]:
        await asyncio.Event().wait()
        return ()


def delivery(
    task_id: str,
    text: str,
    *,
    message_id: str = "",
    context_id: str = "",
    message_task_id: str = "",
) -> ChannelDelivery:
    """A delivery as a channel would build it: no role, and by default no ids at all."""
    parts = [Part(text=text)] if text else []
    message = Message(
        message_id=message_id, context_id=context_id, task_id=message_task_id, parts=parts
    )
    return ChannelDelivery(task_id=task_id, message=message)


async def register(harness: RunningHarness, *channels: Channel) -> None:
    for channel in channels:
        await harness.harness.registry.add(RegistryEntry(ref=channel.ref, instance=channel))


async def park(harness: RunningHarness, text: str = "shirt") -> Task:
    """A new task, waiting for the answer to its question."""
    events = await collect((await harness.client()).send_message(send_request(text)))
    assert states(events)[-1] == "TASK_STATE_INPUT_REQUIRED"
    return events[0].task


async def tick(harness: RunningHarness) -> MonitorSnapshot:
    """Run one heartbeat tick on the harness's worker; its snapshot."""
    return await harness.temporal.execute_workflow(
        HeartbeatWorkflow.run,
        HeartbeatStart(),
        id=f"tick-{uuid.uuid4()}",
        task_queue=harness.task_queue,
        execution_timeout=timedelta(seconds=DEADLINE_SECONDS),
    )


async def task_in(harness: RunningHarness, task_id: str, state: TaskState) -> Task:
    """The task once it is in `state`, or fail at the deadline."""
    try:
        async with asyncio.timeout(DEADLINE_SECONDS):
            while True:
                snapshot = await harness.gateway.snapshot(task_id)
                assert snapshot is not None
                if snapshot.task.status.state == state:
                    return snapshot.task
                await asyncio.sleep(0.2)
    except TimeoutError:
        pytest.fail(f"task {task_id} never reached {TaskState.Name(state)}")


async def current(harness: RunningHarness, task_id: str) -> Task:
    snapshot = await harness.gateway.snapshot(task_id)
    assert snapshot is not None
    return snapshot.task


async def monitor_body(harness: RunningHarness) -> dict[str, object]:
    """`/_monitor`'s answer once a tick has completed, or fail at the deadline."""
    try:
        async with asyncio.timeout(DEADLINE_SECONDS):
            while True:
                response = await harness.http.get(f"{harness.url}/_monitor")
                if response.status_code != 503:
                    assert response.status_code == 200, response.text
                    body: dict[str, object] = response.json()
                    return body
                await asyncio.sleep(0.2)
    except TimeoutError:
        pytest.fail("no heartbeat tick completed")


def user_texts(task: Task) -> list[str]:
    """What participants said to the task, in order."""
    return [get_message_text(m) for m in task.history if m.role == Role.ROLE_USER]


@contextlib.asynccontextmanager
async def heartbeat_schedule(temporal: Client) -> AsyncIterator[HeartbeatConfig]:
    """A heartbeat config whose schedule the test creates; deleted at the end."""
    config = HeartbeatConfig(interval=timedelta(hours=1), schedule_id=f"heartbeat-{uuid.uuid4()}")
    try:
        yield config
    finally:
        with contextlib.suppress(RPCError):  # never created by the test
            await temporal.get_schedule_handle(config.schedule_id).delete()


async def test_pull_channel_reply_completes_parked_task(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        heartbeat_schedule(temporal_client) as config,
        running_harness(temporal_client, tmp_path, ASK, heartbeat=config) as harness,
    ):
        parked = await park(harness)
        sms = QueueChannel("sms", [delivery(parked.id, "M", message_id="sms-1")])
        await register(harness, sms)
        schedule = await ensure_heartbeat_schedule(
            temporal_client, task_queue=harness.task_queue, config=config
        )
        # Paused, so only the trigger's tick runs (an hour boundary cannot add another).
        await schedule.pause(note="one tick only")
        await schedule.trigger()

        body = await monitor_body(harness)
        assert body["channels"] == {"polled": 1, "delivered": 1, "refused": 0, "failed_channels": 0}

        done = await task_in(harness, parked.id, TaskState.TASK_STATE_COMPLETED)
    reply = next(m for m in done.history if m.message_id == "sms-1")
    assert get_message_text(reply) == "M"
    assert reply.role == Role.ROLE_USER
    assert (reply.task_id, reply.context_id) == (parked.id, parked.context_id)
    assert user_texts(done) == ["shirt", "M"]
    assert sms.polls == 1


async def test_refused_deliveries_are_counted_and_the_others_still_go_through(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK, heartbeat=UNSCHEDULED) as harness:
        waiting = await park(harness)
        finished = await park(harness, "socks")
        answered = await collect(
            (await harness.client()).send_message(send_request("S", task_id=finished.id))
        )
        assert states(answered)[-1] == "TASK_STATE_COMPLETED"
        final_before = await current(harness, finished.id)
        await register(
            harness,
            QueueChannel(
                "mail",
                [
                    delivery("no-such-task", SECRET),
                    delivery(finished.id, SECRET),
                    delivery(waiting.id, ""),  # no parts: the task cannot take it
                    delivery(waiting.id, SECRET, context_id="another-context"),
                    delivery(waiting.id, SECRET, message_task_id=finished.id),
                    delivery(waiting.id, "M", context_id=waiting.context_id),
                ],
            ),
        )

        with caplog.at_level(logging.WARNING, logger="tiny_harness.service.heartbeat.activities"):
            snapshot = await tick(harness)

        assert snapshot.channels == ChannelCounts(polled=1, delivered=1, refused=5)
        done = await task_in(harness, waiting.id, TaskState.TASK_STATE_COMPLETED)
        assert user_texts(done) == ["shirt", "M"]
        assert await current(harness, finished.id) == final_before
    refusals = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert refusals == [
        "channel mail: task no-such-task refused a delivery (task_not_found)",
        f"channel mail: task {finished.id} refused a delivery (task_final)",
        *[f"channel mail: task {waiting.id} refused a delivery (message_invalid)"] * 3,
    ]
    assert not any(SECRET in r.getMessage() for r in caplog.records)


async def test_a_channel_whose_poll_raises_does_not_fail_the_tick(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK, heartbeat=UNSCHEDULED) as harness:
        parked = await park(harness)
        await register(
            harness,
            BrokenChannel("fax"),
            QueueChannel("sms", [delivery(parked.id, "M")]),
        )

        with caplog.at_level(logging.ERROR, logger="tiny_harness.service.heartbeat.activities"):
            snapshot = await tick(harness)

        assert snapshot.channels == ChannelCounts(polled=2, delivered=1, failed_channels=1)
        done = await task_in(harness, parked.id, TaskState.TASK_STATE_COMPLETED)
    assert user_texts(done) == ["shirt", "M"]
    assert done.history[-1].message_id, "an empty message_id is given one"
    (failure,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert failure.getMessage() == "channel fax: poll failed; skipped until the next tick"
    assert failure.exc_info is not None
    assert isinstance(failure.exc_info[1], ConnectionError)


async def test_a_channel_whose_poll_hangs_is_skipped_after_the_poll_timeout(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK, heartbeat=UNSCHEDULED) as harness:
        parked = await park(harness)
        await register(
            harness, HangingChannel("pager"), QueueChannel("sms", [delivery(parked.id, "M")])
        )
        # The activity body on its own, so the timeout can be short; the send is real.
        beats = HeartbeatActivities(
            temporal_client,
            harness.harness,
            task_queue=harness.task_queue,
            retention=RetentionConfig(),
        )

        counts = await beats.poll_channels(PollInput(poll_timeout=timedelta(seconds=0.5)))

        assert counts == ChannelCounts(polled=2, delivered=1, failed_channels=1)
        await task_in(harness, parked.id, TaskState.TASK_STATE_COMPLETED)


async def test_a_push_channel_is_never_polled(temporal_client: Client, tmp_path: Path) -> None:
    async with running_harness(temporal_client, tmp_path, ASK, heartbeat=UNSCHEDULED) as harness:
        parked = await park(harness)
        push = QueueChannel("webhook", [delivery(parked.id, "M")], pull=False)
        await register(harness, push)

        snapshot = await tick(harness)

        assert snapshot.channels == ChannelCounts()
        assert push.polls == 0
        waiting = await current(harness, parked.id)
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert user_texts(waiting) == ["shirt"]


async def test_a_polled_delivery_is_admitted_as_an_a2a_message_is_masked_and_stamped(
    temporal_client: Client, tmp_path: Path
) -> None:
    """A credential a channel hands over never reaches the task's Temporal history, and the
    reply carries the participant the channel named, as a SendMessage's does."""
    key = "sk-" + "Ab3dEfGh1jKlMnOpQrStUvWx0123456789yzABCDEFGHij"
    async with running_harness(temporal_client, tmp_path, ASK, heartbeat=UNSCHEDULED) as harness:
        parked = await park(harness)
        sent = delivery(parked.id, f"M, and my key is {key}", message_id="mail-1")
        sent.message.metadata.update({"participantId": "  bob@example.com "})
        await register(harness, QueueChannel("mail", [sent]))

        snapshot = await tick(harness)

        assert snapshot.channels == ChannelCounts(polled=1, delivered=1)
        done = await task_in(harness, parked.id, TaskState.TASK_STATE_COMPLETED)
        history = await temporal_client.get_workflow_handle(parked.id).fetch_history()
    reply = [m for m in done.history if m.role == Role.ROLE_USER][-1]
    assert reply.message_id == "mail-1"
    assert key not in get_message_text(reply)
    assert get_message_text(reply).startswith("M, and my key is ")
    assert reply.metadata["participantId"] == "bob@example.com"
    assert key not in history.to_json()


async def test_a_polled_post_by_a_non_member_is_refused_and_the_task_still_waits(
    temporal_client: Client, tmp_path: Path
) -> None:
    """A delivery goes the way a SendMessage reply goes: a channel post by someone not on
    the task's channel is refused: counted, not recorded, not sent."""
    async with running_harness(temporal_client, tmp_path, ASK, heartbeat=UNSCHEDULED) as harness:
        parked = await park(harness)  # started anonymously: the anonymous participant alone
        foreign = delivery(parked.id, "M", message_id="mail-1")
        foreign.message.metadata.update({"participantId": "mallory"})
        post = ChannelMessageData(channel_id=parked.id, sender="mallory", text="let me in")
        foreign.message.parts.append(channel_part(post))
        await register(harness, QueueChannel("mail", [foreign]))

        refused = await tick(harness)
        waiting = await current(harness, parked.id)
        records = await harness.store.records(RecordKind.CHANNEL_MESSAGE, parked.id)

    assert refused.channels == ChannelCounts(polled=1, refused=1)
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert user_texts(waiting) == ["shirt"]
    assert records == ()

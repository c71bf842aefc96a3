"""The heartbeat's activities: everything a tick does that touches the world.

    poll_channels     every pull channel's `poll()` -> each delivery admitted as every
                      message is (`admit_message`: masked, checked, its participant
                      stamped) and given to its task as every reply is (`replies.py`:
                      checked against the task, its posts recorded, sent) -> ChannelCounts
    monitor_snapshot  visibility (running TaskWorkflows of the task queue) -> MonitorSnapshot,
                      through the heartbeat.tick.pre hooks
    retention_sweep   store rows past their time-to-live -> how many went, by kind

Each takes one typed input model; the times in them come from the workflow (`workflow.now()`),
so a tick's "now" is in its history. A hook's veto (`HookAbort`) fails `monitor_snapshot`
without retry (`ApplicationError` type "HookAbort"), and with it the tick. `poll_channels`
fails for nothing a channel or a task does: a refusal is counted and logged (its code, never
the message), a channel that raises or hangs is logged and skipped until the next tick.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from a2a.types import Message, Role
from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.client import Client
from temporalio.exceptions import ApplicationError

from tiny_harness.errors import (
    ChannelMembershipError,
    InvalidMessageError,
    RoleChangeError,
    TaskRefusedError,
    UnknownTaskError,
)
from tiny_harness.harness.channels import Channel, ChannelDelivery
from tiny_harness.harness.channels.a2a import A2A_CHANNEL_REF, A2AChannel
from tiny_harness.harness.hooks import HeartbeatTickPre, HookAbort, HookPoint, Operation, Phase
from tiny_harness.harness.persistence.retention import RetentionConfig, sweep
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.harness.runtime.monitor import ChannelCounts, MonitorSnapshot, OpenTask
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tasks.extension import sender_of
from tiny_harness.service.admission import admit_message, participant_id
from tiny_harness.service.durable.activities.task import HOOK_ABORT_ERROR
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.workflows.task import TaskWorkflow
from tiny_harness.service.replies import check_reply, send_reply

logger = logging.getLogger(__name__)

DEFAULT_LIST_LIMIT = 50
"""How many open tasks a snapshot lists by default (all of them are counted)."""

_TICK_PRE = HookPoint(operation=Operation.HEARTBEAT_TICK, phase=Phase.PRE)


class SnapshotInput(BaseModel, frozen=True):
    """Input of `monitor_snapshot`: when the tick happened, how many open tasks to list."""

    taken_at: datetime
    limit: int = Field(default=DEFAULT_LIST_LIMIT, ge=1, le=1000)


class SweepInput(BaseModel, frozen=True):
    """Input of `retention_sweep`: the moment the time-to-lives are measured against."""

    now: datetime


class PollInput(BaseModel, frozen=True):
    """Input of `poll_channels`: how long one `poll()`, and one delivery, may take before the
    channel is counted failed (so one hanging channel cannot time the whole activity out)."""

    poll_timeout: timedelta = Field(default=timedelta(seconds=10), gt=timedelta(0))
    send_timeout: timedelta = Field(default=timedelta(seconds=10), gt=timedelta(0))


type _Outcome = Literal["delivered", "refused", "failed"]


def open_tasks_query(task_queue: str) -> str:
    """The visibility query for the running task workflows of `task_queue`."""
    return (
        f'WorkflowType="{TaskWorkflow.__name__}" AND ExecutionStatus="Running" '
        f"AND TaskQueue={_quoted(task_queue)}"
    )


def _quoted(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


class HeartbeatActivities:
    """The activity bodies of `HeartbeatWorkflow`, bound to one worker: the Temporal client
    (for visibility), its `Harness` (hooks, store), the retention config, the task queue
    whose tasks it watches, and the redactor every delivery passes (None: the built-in
    credential shapes, no configured secrets)."""

    def __init__(
        self,
        client: Client,
        harness: Harness,
        *,
        task_queue: str,
        retention: RetentionConfig,
        redactor: Redactor | None = None,
    ) -> None:
        self._client = client
        self._harness = harness
        self._task_queue = task_queue
        self._retention = retention
        self._redactor = redactor or Redactor()

    @activity.defn(name="monitor_snapshot")
    async def monitor_snapshot(self, data: SnapshotInput) -> MonitorSnapshot:
        """Count the running task workflows, list up to `limit` of them, then run the
        heartbeat.tick.pre hooks over the snapshot; the snapshot they end with."""
        query = open_tasks_query(self._task_queue)
        count = await self._client.count_workflows(query)
        listed = tuple(
            [
                OpenTask(task_id=execution.id, started_at=execution.start_time)
                async for execution in self._client.list_workflows(query, limit=data.limit)
            ]
        )
        # Count and list are two visibility reads: never report fewer than were listed.
        snapshot = MonitorSnapshot(
            taken_at=data.taken_at, open_tasks=max(count.count, len(listed)), listed=listed
        )
        info = activity.info()
        ctx = HeartbeatTickPre(
            task_id=info.workflow_id, correlation_id=info.workflow_run_id, snapshot=snapshot
        )
        try:
            ctx = await self._harness.hooks.run(_TICK_PRE, ctx)
        except HookAbort as error:
            raise ApplicationError(
                f"refused by a hook: {error.reason.message}",
                error.reason.code,
                type=HOOK_ABORT_ERROR,
                non_retryable=True,
            ) from error
        return ctx.snapshot

    @activity.defn(name="retention_sweep")
    async def retention_sweep(self, data: SweepInput) -> dict[str, int]:
        """Delete every store record past its time-to-live at `now`; how many went, by kind."""
        store = await self._harness.store()
        swept = await sweep(store, self._retention, data.now)
        return {str(kind): count for kind, count in swept.items()}

    @activity.defn(name="poll_channels")
    async def poll_channels(self, data: PollInput) -> ChannelCounts:
        """Poll every pull channel (all at once) and send each delivery to its task as a
        participant's reply; what happened, counted. Push channels are never polled."""
        pulled = [channel for channel in await self._harness.channels() if channel.pull]
        if not pulled:
            return ChannelCounts()
        # Only `send` and `snapshot` are used: neither needs the settings a start carries.
        gateway = TaskGateway(
            self._client,
            task_queue=self._task_queue,
            store=await self._harness.store(),
            redactor=self._redactor,
        )
        channel = await self._harness.registry.get(A2A_CHANNEL_REF, A2AChannel)
        replies = _Replies(gateway, self._redactor, channel)
        outcomes = await asyncio.gather(*(_poll(c, replies, data) for c in pulled))
        flat = [outcome for outcomes_of_one in outcomes for outcome in outcomes_of_one]
        counts = ChannelCounts(
            polled=len(pulled),
            delivered=flat.count("delivered"),
            refused=flat.count("refused"),
            failed_channels=sum("failed" in outcomes_of_one for outcomes_of_one in outcomes),
        )
        if counts.delivered or counts.refused or counts.failed_channels:
            logger.info(
                "channels: %d polled, %d delivered, %d refused, %d failed",
                counts.polled,
                counts.delivered,
                counts.refused,
                counts.failed_channels,
            )
        return counts

    def all(self) -> list[Callable[..., Awaitable[object]]]:
        """Every heartbeat activity, for the worker."""
        return [self.poll_channels, self.monitor_snapshot, self.retention_sweep]


@dataclass(frozen=True)
class _Replies:
    """What a delivery needs to reach its task as a reply: the gateway, the ingress
    Redactor, and the tasks' A2A channel (which says who may post to a task)."""

    gateway: TaskGateway
    redactor: Redactor
    channel: A2AChannel


async def _poll(channel: Channel, replies: _Replies, data: PollInput) -> list[_Outcome]:
    """One channel's deliveries, sent in the order it gave them; ["failed"] if it raised."""
    try:
        async with asyncio.timeout(data.poll_timeout.total_seconds()):
            deliveries = tuple(await channel.poll())
    except Exception:  # a channel is foreign code: whatever it raises skips it, logged
        logger.exception("channel %s: poll failed; skipped until the next tick", channel.name)
        return ["failed"]
    return [await _deliver(channel.name, replies, d, data) for d in deliveries]


async def _deliver(
    channel: str, replies: _Replies, delivery: ChannelDelivery, data: PollInput
) -> _Outcome:
    """Admit one delivery and give it to its task as a client's reply is given; refusals
    are logged by code only."""
    task_id = delivery.task_id
    try:
        async with asyncio.timeout(data.send_timeout.total_seconds()):
            message = _reply_message(delivery)
            sender = participant_id(sender_of(message))
            admitted = admit_message(message, sender, replies.redactor)
            snapshot = await replies.gateway.snapshot(task_id, history_length=0)
            if snapshot is None:
                raise UnknownTaskError(f"no task {task_id}")
            check_reply(replies.channel, admitted, snapshot.task)
            await send_reply(replies.gateway, admitted, datetime.now(UTC))
    except (TaskRefusedError, ChannelMembershipError, RoleChangeError) as error:
        # Never the message or its text: a refusal is logged by what was refused and why.
        logger.warning("channel %s: task %s refused a delivery (%s)", channel, task_id, error.code)
        return "refused"
    except Exception:  # Temporal unreachable, a timeout: the delivery is lost, loudly
        logger.exception("channel %s: delivering to task %s failed", channel, task_id)
        return "failed"
    return "delivered"


def _reply_message(delivery: ChannelDelivery) -> Message:
    """A copy of the delivery's message shaped as a participant's reply to its task."""
    message = Message()
    message.CopyFrom(delivery.message)
    if message.task_id and message.task_id != delivery.task_id:
        raise InvalidMessageError(
            f"the message names task {message.task_id}, its delivery task {delivery.task_id}"
        )
    message.task_id = delivery.task_id
    message.role = Role.ROLE_USER
    if not message.message_id:
        message.message_id = str(uuid.uuid4())
    return message

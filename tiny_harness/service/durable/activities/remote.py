"""The activities of a stand-in (`RemoteTaskWorkflow`): every call on a remote agent.

    start_agent_task    send the brief, read until the task is past SUBMITTED, close
    send_remote_reply   send a reply to the parked task (same task id), read until it moves
    get_remote_task     GetTask
    follow_remote_task  SubscribeToTask in a heartbeating activity, until the task changes
    cancel_remote_task  CancelTask
    register_remote_push  choose the watch; for push, register a fresh token (digest only out)
    delete_remote_push    delete the push config when the stand-in ends

Each looks the agent up in the worker's registry by id, so the workflow holds only ids.
A failure of the agent (`AgentError`) fails the activity, and the workflow decides.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Final

from a2a.helpers import new_text_message
from a2a.types import Role, StreamResponse, Task, TaskState, TaskStatus
from temporalio import activity

from tiny_harness.errors import AgentError
from tiny_harness.harness.agents.agent import SELF_AGENT_ID, Agent
from tiny_harness.harness.agents.turns import RemoteTurn, turn_of_event, turn_of_task, usage_of
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.service.a2a.doorbell import push_url, token_digest
from tiny_harness.service.durable.activities.beats import heartbeating
from tiny_harness.service.durable.activities.brief import brief_message
from tiny_harness.service.durable.remote_payloads import (
    FollowInput,
    FollowOutput,
    PushDeleteInput,
    RemoteCall,
    RemoteWatch,
    ReplyInput,
    StartAgentTaskInput,
)

logger = logging.getLogger(__name__)

FOLLOW_WINDOW_SECONDS: Final = 600.0
"""How long one follow activity holds on before returning unchanged (and a new one starts)."""


async def _first_turn(
    stream: AsyncGenerator[StreamResponse], moved: Callable[[RemoteTurn], bool]
) -> RemoteTurn | None:
    """Read `stream` until a turn `moved` accepts (then close it); the last turn seen else."""
    last: RemoteTurn | None = None
    try:
        async for event in stream:
            turn = turn_of_event(event, last)
            if turn is None:
                continue
            last = turn
            if moved(turn):
                break
    finally:
        await stream.aclose()
    return last


def _status_of(event: StreamResponse) -> TaskStatus | None:
    kind = event.WhichOneof("payload")
    if kind == "task":
        return event.task.status
    if kind == "status_update":
        return event.status_update.status
    return None


def _stamp(status: TaskStatus) -> tuple[int, int] | None:
    """The status time as (seconds, nanos), None when the status carries none."""
    if not status.HasField("timestamp"):
        return None
    return status.timestamp.seconds, status.timestamp.nanos


async def _counted(
    agent: Agent, agent_id: str, participant: str, turn: RemoteTurn, task: Task | None = None
) -> RemoteTurn:
    """`turn`, and when it is the end of a sub-task on this harness (agent `self`), the
    usage that task reports, read from `task` or a GetTask: it counts toward the parent's.
    Another agent's figures are not this harness's to count, so they are not read."""
    if agent_id != SELF_AGENT_ID or not turn.final:
        return turn
    if task is None:
        task = await agent.get_task(turn.remote_task_id, participant=participant)
    return turn.model_copy(update={"usage": usage_of(task)})


class RemoteActivities:
    """The stand-in's activity bodies, bound to one worker's `Harness`."""

    def __init__(self, harness: Harness, *, push_base_url: str | None = None) -> None:
        self._harness = harness
        self._push_base_url = push_base_url

    async def _agent(self, agent_id: str) -> Agent:
        return await self._harness.agent(agent_id)

    @activity.defn(name="start_agent_task")
    async def start_agent_task(self, data: StartAgentTaskInput) -> RemoteTurn:
        """Send the brief as a new task; the task once it is past SUBMITTED."""
        agent = await self._agent(data.agent)
        model = (await self._harness.llm()).info.model
        message = brief_message(data, agent, model=model)
        stream = agent.send_message(message, participant=data.participant)
        async with heartbeating():
            turn = await _first_turn(stream, lambda t: t.state != TaskState.TASK_STATE_SUBMITTED)
        if turn is None:
            raise AgentError(
                f"agent {data.agent!r} answered the brief without a task", agent=data.agent
            )
        logger.info(
            "sub-task %s: agent %s took it as task %s (%s)",
            data.local_id,
            data.agent,
            turn.remote_task_id,
            turn.state_name,
        )
        return await _counted(agent, data.agent, data.participant, turn)

    @activity.defn(name="send_remote_reply")
    async def send_remote_reply(self, data: ReplyInput) -> RemoteTurn:
        """Send a reply to the parked remote task; the task once it has moved on."""
        call = data.call
        agent = await self._agent(call.agent)
        message = new_text_message(data.text, task_id=call.remote_task_id, role=Role.ROLE_USER)
        message.message_id = data.message_id
        stream = agent.send_message(message, participant=call.participant)
        async with heartbeating():
            turn = await _first_turn(stream, lambda t: t.state != data.known.state)
        return await _counted(agent, call.agent, call.participant, turn or data.known)

    @activity.defn(name="get_remote_task")
    async def get_remote_task(self, data: RemoteCall) -> RemoteTurn:
        """GetTask on the remote task."""
        agent = await self._agent(data.agent)
        task = await agent.get_task(data.remote_task_id, participant=data.participant)
        return await _counted(agent, data.agent, data.participant, turn_of_task(task), task)

    @activity.defn(name="follow_remote_task")
    async def follow_remote_task(self, data: FollowInput) -> FollowOutput:
        """Hold SubscribeToTask open until the task differs from `known`; re-subscribe
        after the agent's follow interval when a stream ends unchanged or fails.

        Each round first reads the task (GetTask) and then skips what the stream replays
        up to that snapshot's status time, so replayed history is never taken for news.
        """
        call = data.call
        agent = await self._agent(call.agent)
        deadline = time.monotonic() + FOLLOW_WINDOW_SECONDS
        async with heartbeating():
            while time.monotonic() < deadline:
                try:
                    turn = await self._follow_once(agent, call, data.known)
                except AgentError as error:
                    logger.info("sub-task %s: follow stream failed: %s", call.local_id, error.code)
                    turn = None
                if turn is not None:
                    turn = await _counted(agent, call.agent, call.participant, turn)
                    return FollowOutput(changed=True, turn=turn)
                await asyncio.sleep(agent.follow_interval.total_seconds())
        return FollowOutput(changed=False)

    async def _follow_once(
        self, agent: Agent, call: RemoteCall, known: RemoteTurn
    ) -> RemoteTurn | None:
        """One round: the snapshot if it is news, else the first news the stream brings."""
        task = await agent.get_task(call.remote_task_id, participant=call.participant)
        current = turn_of_task(task, known_text=known.text)
        if current.differs(known):
            return current
        seen = _stamp(task.status)
        stream = agent.subscribe(call.remote_task_id, participant=call.participant)
        last: RemoteTurn | None = current
        try:
            async for event in stream:
                status = _status_of(event)
                if status is None:
                    continue
                stamp = _stamp(status)
                if seen is not None and stamp is not None and stamp <= seen:
                    continue  # replayed history, up to the snapshot just read
                turn = turn_of_event(event, last)
                if turn is not None and turn.differs(known):
                    return turn
                last = turn or last
        finally:
            await stream.aclose()
        return None

    @activity.defn(name="cancel_remote_task")
    async def cancel_remote_task(self, data: RemoteCall) -> RemoteTurn:
        """CancelTask on the remote task; the task as the agent answers."""
        agent = await self._agent(data.agent)
        task = await agent.cancel_task(data.remote_task_id, participant=data.participant)
        return await _counted(agent, data.agent, data.participant, turn_of_task(task), task)

    @activity.defn(name="register_remote_push")
    async def register_remote_push(self, data: RemoteCall) -> RemoteWatch:
        """Choose the watch of a parked remote task; for push, register this server's push
        URL with a fresh 256-bit token and return only the token's digest."""
        agent = await self._agent(data.agent)
        if agent.updates == "off":
            return RemoteWatch(mode="off")
        base = self._push_base_url
        if agent.updates == "follow" or not agent.push_supported or base is None:
            return RemoteWatch(mode="follow")
        token = secrets.token_urlsafe(32)
        try:
            config_id = await agent.set_push_config(
                data.remote_task_id,
                push_url(base, data.local_id),
                token,
                participant=data.participant,
            )
        except Exception as error:  # noqa: BLE001 - any failure means: follow instead
            # The type only: the text of an error could echo the request, token included.
            logger.warning(
                "push registration failed for %s: %s; following instead",
                data.agent,
                type(error).__name__,
            )
            return RemoteWatch(mode="follow")
        return RemoteWatch(mode="push", config_id=config_id, token_digest=token_digest(token))

    @activity.defn(name="delete_remote_push")
    async def delete_remote_push(self, data: PushDeleteInput) -> None:
        """Delete the push config of an ended stand-in (best effort: failures are logged)."""
        call = data.call
        agent = await self._agent(call.agent)
        try:
            await agent.delete_push_config(
                call.remote_task_id, data.config_id, participant=call.participant
            )
        except AgentError as error:
            logger.warning("sub-task %s: push config not deleted: %s", call.local_id, error.code)

    def all(self) -> list[Callable[..., Awaitable[object]]]:
        """Every activity, for the worker."""
        return [
            self.start_agent_task,
            self.send_remote_reply,
            self.get_remote_task,
            self.follow_remote_task,
            self.cancel_remote_task,
            self.register_remote_push,
            self.delete_remote_push,
        ]

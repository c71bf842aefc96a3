"""`RemoteTaskWorkflow`: the stand-in for one sub-task delegated to an A2A agent.

    start_agent_task ─► turn ─┬─ final ──────────────────────────────► end
                              ├─ WORKING ─► follow ─► turn ...
                              └─ parked ──► watch (follow | off) ◄─ reply ─► send_remote_reply
    every change ─► parent.subtask_changed(SubtaskUpdate)
    cancel (signal, or the workflow cancelled) ─► cancel_remote_task ─► end

The workflow id is the sub-task's local id. It holds only ids and the newest turn; every
call on the agent is an activity. A reply continues the same remote task (its task id); it
never opens a new one. A task still WORKING is followed whatever the agent's `updates`
setting, so the stand-in always learns how a turn ends; a parked task is followed unless
the agent's setting is `off`, in which case only a reply or a cancel moves the stand-in.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from collections.abc import Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from a2a.types import TaskState

    from tiny_harness.harness.agents.turns import RemoteTurn
    from tiny_harness.service.durable.activities.remote import (
        FOLLOW_WINDOW_SECONDS,
        RemoteActivities,
    )
    from tiny_harness.service.durable.remote_payloads import (
        REMOTE_PUSH_UPDATE,
        FollowInput,
        FollowOutput,
        PushDeleteInput,
        PushIn,
        RemoteCall,
        RemoteStart,
        RemoteWatch,
        ReplyInput,
        StartAgentTaskInput,
        SubtaskUpdate,
    )

SUBTASK_CHANGED_SIGNAL = "subtask_changed"
"""The parent's signal a stand-in reports each change with."""

_CALL = timedelta(minutes=5)
_RETRY = RetryPolicy(maximum_attempts=3, maximum_interval=timedelta(seconds=10))
_FOLLOW_RETRY = timedelta(seconds=5)
_SHORT = timedelta(seconds=30)
_PUSH_RECHECKS = (1, 2, 4)
"""Seconds between fetches while a GetTask disagrees with the state a push claimed."""


@workflow.defn
class RemoteTaskWorkflow:
    """One delegated sub-task. Contract:

    - `reply` (signal): text for the remote task's open question; sent when it is parked.
    - `cancel` (signal): cancel the remote task and end.
    - `turn` (query): the newest turn.
    The run returns the final turn.
    """

    @workflow.init
    def __init__(self, start: RemoteStart) -> None:
        self._start = start
        self._turn: RemoteTurn | None = start.last
        self._replies: list[str] = list(start.replies)
        self._cancel = False
        self._closed = False
        self._watch_mode: RemoteWatch | None = start.watch
        # A run carried on from a pushed-to one reads the task once: a push may have rung
        # while the previous run was closing.
        self._push_pending = start.watch is not None and start.watch.mode == "push"
        self._claimed: int | None = None

    @workflow.run
    async def run(self, start: RemoteStart) -> RemoteTurn:
        """Drive the remote task to a final state, reporting every change to the parent."""
        try:
            if self._turn is None:
                await self._apply(await self._start_task())
            while not self._current().final:
                if self._cancel:
                    return await self._end_canceled()
                if self._should_roll_over():
                    await self._roll_over()
                if self._replies and self._current().parked:
                    await self._send_reply(self._replies.pop(0))
                    continue
                await self._watch()
        except asyncio.CancelledError:
            return await self._end_canceled()
        await self._close()
        return self._current()

    def _should_roll_over(self) -> bool:
        info = workflow.info()
        length = info.get_current_history_length()
        return length > self._start.history_event_bound or info.is_continue_as_new_suggested()

    async def _roll_over(self) -> None:
        """Continue as new with the remote task's id, state, watch and pending replies."""
        await workflow.wait_condition(workflow.all_handlers_finished)
        workflow.continue_as_new(
            self._start.model_copy(
                update={
                    "last": self._turn,
                    "watch": self._watch_mode,
                    "replies": tuple(self._replies),
                }
            )
        )

    async def _close(self) -> None:
        """Every exit: refuse later pushes first, then delete the push config (best effort)."""
        self._closed = True
        watch = self._watch_mode
        if watch is None or watch.mode != "push" or self._turn is None:
            return
        try:
            await workflow.execute_activity_method(
                RemoteActivities.delete_remote_push,
                PushDeleteInput(call=self._call(), config_id=watch.config_id),
                start_to_close_timeout=_SHORT,
                retry_policy=RetryPolicy(maximum_attempts=2),
            )
        except ActivityError as error:
            workflow.logger.warning("push config not deleted: %s", error.cause)

    def _current(self) -> RemoteTurn:
        if self._turn is None:
            raise RuntimeError("the stand-in has no turn before its task started")
        return self._turn

    def _call(self) -> RemoteCall:
        start = self._start
        return RemoteCall(
            local_id=workflow.info().workflow_id,
            agent=start.agent,
            participant=start.participant,
            remote_task_id=self._current().remote_task_id,
        )

    async def _start_task(self) -> RemoteTurn:
        start = self._start
        return await workflow.execute_activity_method(
            RemoteActivities.start_agent_task,
            StartAgentTaskInput(
                local_id=workflow.info().workflow_id,
                parent_id=start.parent_id,
                agent=start.agent,
                participant=start.participant,
                brief=start.brief,
            ),
            start_to_close_timeout=_CALL,
            heartbeat_timeout=timedelta(seconds=start.heartbeat_seconds),
            retry_policy=RetryPolicy(maximum_attempts=1),
        )

    async def _send_reply(self, text: str) -> None:
        turn = await workflow.execute_activity_method(
            RemoteActivities.send_remote_reply,
            ReplyInput(
                call=self._call(),
                text=text,
                message_id=str(workflow.uuid4()),
                known=self._current(),
            ),
            start_to_close_timeout=_CALL,
            heartbeat_timeout=timedelta(seconds=self._start.heartbeat_seconds),
            retry_policy=RetryPolicy(maximum_attempts=1),
        )
        await self._apply(turn)

    async def _watch(self) -> None:
        """Wait for the next change, a reply or a cancel: a WORKING task is followed; a
        parked one is watched by the mode `register_remote_push` chose for it."""
        turn = self._current()
        if turn.parked:
            if self._watch_mode is None:
                self._watch_mode = await self._register()
                # A push registered after the park may have missed a change: fetch once.
                self._push_pending = self._watch_mode.mode == "push"
            if self._watch_mode.mode in ("push", "off"):
                # With "off" only news from the parent's inbox (`news`) rings.
                await self._await_push()
                return
        await self._follow(turn)

    async def _register(self) -> RemoteWatch:
        try:
            return await workflow.execute_activity_method(
                RemoteActivities.register_remote_push,
                self._call(),
                start_to_close_timeout=_SHORT,
                retry_policy=RetryPolicy(maximum_attempts=1),
            )
        except ActivityError as error:
            workflow.logger.warning("watch registration failed (%s): following", error.cause)
            return RemoteWatch(mode="follow")

    def _interrupted(self) -> bool:
        return bool(self._replies) or self._cancel

    async def _await_push(self) -> None:
        """Wait for a verified push; fetch the task (GetTask) and apply what it shows,
        fetching again after 1, 2 and 4 s while it disagrees with the push's claim."""
        await workflow.wait_condition(lambda: self._push_pending or self._interrupted())
        if not self._push_pending:
            return
        self._push_pending = False
        claimed = self._claimed
        for delay in (0, *_PUSH_RECHECKS):
            if delay:
                await _wait(
                    lambda: self._push_pending or self._interrupted(), timedelta(seconds=delay)
                )
                if self._push_pending or self._interrupted():
                    return  # a new push restarts the sequence; a reply or cancel goes first
            turn = await self._fetch()
            if turn is not None:
                await self._apply(turn)
            if claimed is None or (turn is not None and (turn.state == claimed or turn.final)):
                return

    async def _fetch(self) -> RemoteTurn | None:
        try:
            return await workflow.execute_activity_method(
                RemoteActivities.get_remote_task,
                self._call(),
                start_to_close_timeout=_SHORT,
                retry_policy=RetryPolicy(maximum_attempts=1),
            )
        except ActivityError as error:
            # Fail closed: keep the last state; the next push or reply tries again.
            workflow.logger.warning("GetTask after a push failed: %s", error.cause)
            return None

    async def _follow(self, turn: RemoteTurn) -> None:
        follow = workflow.start_activity_method(
            RemoteActivities.follow_remote_task,
            FollowInput(call=self._call(), known=turn),
            start_to_close_timeout=timedelta(seconds=FOLLOW_WINDOW_SECONDS + 60),
            heartbeat_timeout=timedelta(seconds=self._start.heartbeat_seconds),
            retry_policy=RetryPolicy(maximum_attempts=1),
        )
        await workflow.wait_condition(
            lambda: follow.done() or self._cancel or (bool(self._replies) and turn.parked)
        )
        if not follow.done():
            follow.cancel()
            # Cancelled on purpose (a reply or a cancel goes first): it ends in an
            # ActivityError. A CancelledError here is the workflow's own cancel: let it out.
            with contextlib.suppress(ActivityError):
                await follow
            return
        try:
            out: FollowOutput = await follow
        except ActivityError as error:
            workflow.logger.warning("follow of %s failed: %s", turn.remote_task_id, error.cause)
            await _wait(lambda: self._cancel, _FOLLOW_RETRY)
            return
        if out.changed and out.turn is not None:
            await self._apply(out.turn)

    async def _apply(self, turn: RemoteTurn) -> None:
        """Take `turn` as the newest state; tell the parent when it is news."""
        if not turn.differs(self._turn):
            return
        self._turn = turn
        parent = workflow.get_external_workflow_handle(self._start.parent_id)
        update = SubtaskUpdate(local_id=workflow.info().workflow_id, turn=turn)
        try:
            await parent.signal(SUBTASK_CHANGED_SIGNAL, update)
        except ApplicationError as error:
            # The parent has ended (cancelled, say): the stand-in still finishes its work.
            workflow.logger.info("parent %s not told: %s", self._start.parent_id, error.message)

    async def _end_canceled(self) -> RemoteTurn:
        """Cancel the remote task (best effort) and report the stand-in's end."""
        self._closed = True
        turn = self._turn
        if turn is not None and not turn.final:
            try:
                answered = await workflow.execute_activity_method(
                    RemoteActivities.cancel_remote_task,
                    self._call(),
                    start_to_close_timeout=_CALL,
                    retry_policy=_RETRY,
                )
            except ActivityError as error:
                workflow.logger.warning("cancel of %s failed: %s", turn.remote_task_id, error.cause)
                answered = turn.model_copy(update={"state": TaskState.TASK_STATE_CANCELED})
            await self._apply(answered)
        await self._close()
        return self._current() if self._turn is not None else _never_started(self._start)

    @workflow.update(name=REMOTE_PUSH_UPDATE)
    async def remote_push(self, push: PushIn) -> None:
        """A verified push (the validator checked it): wake the watch, which fetches."""
        self._push_pending = True
        self._claimed = push.claimed_state

    @remote_push.validator
    def _check_push(self, push: PushIn) -> None:
        watch = self._watch_mode
        turn = self._turn
        if (
            self._closed
            or watch is None
            or watch.mode != "push"
            or turn is None
            or push.remote_task_id != turn.remote_task_id
            or not hmac.compare_digest(push.token_digest, watch.token_digest)
        ):
            raise ValueError("push not accepted")  # one message for every refusal

    @workflow.signal
    def news(self, claimed_state: int | None) -> None:
        """The parent's inbox took an event about the remote task (a status or artifact
        update its agent sent): a doorbell like a push, so the watch fetches the task."""
        if not self._closed:
            self._push_pending = True
            self._claimed = claimed_state

    @workflow.signal
    def reply(self, text: str) -> None:
        """A reply for the remote task's open question."""
        if not self._closed:
            self._replies.append(text)

    @workflow.signal
    def cancel(self) -> None:
        """Cancel the remote task and end."""
        self._cancel = True

    @workflow.query
    def turn(self) -> RemoteTurn | None:
        """The newest turn, None before the task started."""
        return self._turn


async def _wait(condition: Callable[[], bool], limit: timedelta) -> None:
    """Wait until `condition` holds or `limit` passes, whichever comes first."""
    # wait_condition raises TimeoutError when the time runs out; here that is an answer.
    with contextlib.suppress(TimeoutError):
        await workflow.wait_condition(condition, timeout=limit)


def _never_started(start: RemoteStart) -> RemoteTurn:
    return RemoteTurn(remote_task_id="", state=TaskState.TASK_STATE_CANCELED, text="canceled")

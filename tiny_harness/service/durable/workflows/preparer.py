"""`Preparer`: the workflow side of `prepare_turn`, the one local activity before a model call.

    mailbox ─ drain ─► intakes ─┐
    the log so far (take) ──────┼─► prepare_turn ─► each message and the item it became
    the turn's context ─────────┘                 └► the assembled request, the hook points

Workflow-side code, deterministic. Messages drained from the mailbox wait in the
workflow's state (`LoopState.intakes`, carried across a roll-over) until the next model
call; then one local activity writes the log so far, takes each message in
(request.received) and assembles the turn's context with them (compaction.trigger). Three
steps that were three local activities cost one marker. A task with no model (an assigned
one) takes its messages in the same way, without a context. The workflow adds the items to
its conversation (`Prepared`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from a2a.types import Message

    from tiny_harness.harness.models.llm import UserItem
    from tiny_harness.service.durable.activities.task import TaskActivities
    from tiny_harness.service.durable.payloads import (
        AssembledContext,
        AssembleInput,
        Intake,
        TurnInput,
    )
    from tiny_harness.service.durable.workflows.log_writer import LogWriter

_TIMEOUT = timedelta(seconds=30)
_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=5,
)


@dataclass(frozen=True)
class Prepared:
    """What a preparation took in (each message with the item the model reads of it, in
    order) and the turn's context, when one was asked for."""

    taken: tuple[tuple[Message, UserItem], ...]
    assembled: AssembledContext | None = None


class Preparer:
    """Prepares one run's model calls."""

    def __init__(
        self, task_id: str, writer: LogWriter, intakes: Callable[[], tuple[Intake, ...]]
    ) -> None:
        """`intakes` hands over the messages waiting to be taken in (the workflow's, which
        no longer holds them)."""
        self._task_id = task_id
        self._writer = writer
        self._intakes = intakes

    async def take_in(self) -> Prepared:
        """Take the queued messages in now, with no model call after (an assigned task)."""
        return await self._prepare(None)

    async def prepare(self, context: AssembleInput) -> tuple[Prepared, AssembledContext]:
        """Write the log so far, take the queued messages in, and assemble the turn's
        context with them. Raises the `ActivityError` of a failed preparation (a hook's
        veto of a message, say); what it was to write is written later."""
        prepared = await self._prepare(context)
        if prepared.assembled is None:  # the activity assembles whenever given a context
            raise ApplicationError("prepare_turn returned no context", non_retryable=True)
        return prepared, prepared.assembled

    async def _prepare(self, context: AssembleInput | None) -> Prepared:
        step = await self._writer.take()
        messages = self._intakes()
        try:
            turn = await workflow.execute_local_activity_method(
                TaskActivities.prepare_turn,
                TurnInput(task_id=self._task_id, step=step, messages=messages, context=context),
                start_to_close_timeout=_TIMEOUT,
                retry_policy=_RETRY,
            )
        except BaseException:
            # Failed, or cancelled before it could fail (the task cancelled while the
            # activity waits to start): the step goes back, or the writer stays busy and
            # the task's end is never written.
            self._writer.taken(step, None)
            raise
        self._writer.taken(step, turn.points)
        taken = tuple(zip((m.message for m in messages), turn.items, strict=True))
        return Prepared(taken=taken, assembled=turn.assembled)

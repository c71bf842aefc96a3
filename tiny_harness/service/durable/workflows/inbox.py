"""`Inbox`: what the task workflow does with a message its `inbox` update takes.

    message ─ check (the update's validator) ─► take ─┬─ history (the log): always, as it came
                                                      ├─ task envelopes: merged into the task
                                                      ├─ news of a sub-task: to its stand-in
                                                      └─ mailbox: the rest, for the model,
                                                         without forged A2UI actions

`take` decides; the workflow applies what it decided (`Arrival`) to its log and mailbox.

A message's data parts are parsed once: the update's validator (`check`) keeps what it
parsed for `take`, which parses only when no validator ran (a replay), and the lines the
model reads for its A2UI actions ride with it to its intake (`lines_for`).

Workflow-side code, deterministic. A message is a turn for the model unless it is only
news of a sub-task (a status or artifact update about a remote task, which rings that
sub-task's stand-in) or only A2UI actions on things the task never drew (abuse case 9:
kept in history, logged, never shown to the model).
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from a2a.types import Message, Task

    from tiny_harness.errors import A2uiMessageError, TaskExtensionError
    from tiny_harness.harness.a2ui.messages import Action, actions_in, render_action
    from tiny_harness.harness.a2ui.surfaces import knows, without_forged
    from tiny_harness.harness.tasks.extension import (
        EventEnvelope,
        TaskExtensionData,
        envelopes_in,
        sender_of,
    )
    from tiny_harness.service import refusals
    from tiny_harness.service.durable.payloads import LoopState, PendingQuestion
    from tiny_harness.service.durable.workflows import events
    from tiny_harness.service.durable.workflows.delegation import Delegation


@dataclass(frozen=True)
class Parsed:
    """A message's data parts, parsed: its event envelopes and its A2UI actions (each with
    its part's index)."""

    envelopes: list[EventEnvelope]
    actions: list[tuple[int, Action]]

    @classmethod
    def of(cls, message: Message) -> Parsed:
        """Parse `message`; raises the parts' own errors (`TaskExtensionError`,
        `A2uiMessageError`)."""
        return cls(envelopes=envelopes_in(message), actions=actions_in(message))


@dataclass(frozen=True)
class Arrival:
    """What taking a message decided: whether it wakes the task (its first message, or the
    answer it waits for), whether it waits behind an open question, the news of sub-tasks
    it carries, and what the workflow applies: the task extension data its envelopes set
    (`updates`, merged in order), the message for the history, and the turn for the
    mailbox (None: not a turn for the model)."""

    wakes: bool
    queued: bool
    news: tuple[EventEnvelope, ...]
    message: Message
    """The message as the task's history keeps it."""
    turn: Message | None
    updates: tuple[TaskExtensionData, ...]


class Inbox:
    """Takes one run's messages."""

    def __init__(self, delegation: Delegation) -> None:
        self._delegation = delegation
        self._checked: dict[str, Parsed] = {}
        """What `check` parsed, by message id, until `take` (or `forget`) uses it."""
        self._lines: dict[str, tuple[str, ...]] = {}
        """The model's lines for each mailbox message's actions, until its intake."""

    def check(self, message: Message, loop: LoopState) -> None:
        """Refuse (`InvalidEnvelope`) a message whose envelopes or A2UI parts are invalid,
        or that brings news of no sub-task of this task."""
        try:
            parsed = Parsed.of(message)
            for envelope in parsed.envelopes:
                if envelope.kind != "task":
                    self._delegation.check_news(envelope, loop)
        except (TaskExtensionError, A2uiMessageError) as error:
            raise ApplicationError(error.message, type=refusals.INVALID_ENVELOPE) from None
        self._checked[message.message_id] = parsed

    def forget(self, message: Message) -> None:
        """`message` will not be taken (a repeat): drop what `check` kept of it."""
        self._checked.pop(message.message_id, None)

    def take(self, message: Message, loop: LoopState, task: Task, *, first: bool) -> Arrival:
        """Decide what a checked message is to the task (see the module docstring)."""
        # A replay runs no validator: then the message is parsed here, to the same result.
        parsed = self._checked.pop(message.message_id, None) or Parsed.of(message)
        envelopes = parsed.envelopes
        news = tuple(e for e in envelopes if e.kind != "task")
        turn = None if news else self._without_forged_actions(message, parsed.actions, loop, task)
        question = loop.pending_question
        answers = question is not None and question.answered_by(sender_of(message))
        if turn is not None:
            turn = events.bound_message(turn, task)
            self._lines[turn.message_id] = tuple(
                render_action(a) for _, a in parsed.actions if knows(loop.surfaces, a)
            )
        wakes = turn is not None and (first or answers)
        return Arrival(
            wakes=wakes,
            queued=turn is not None and question is not None and not wakes,
            news=news,
            message=events.bound_message(message, task),
            turn=turn,
            updates=tuple(e.payload for e in envelopes if isinstance(e.payload, TaskExtensionData)),
        )

    async def ring(self, arrival: Arrival, loop: LoopState) -> None:
        """Tell the stand-ins of the sub-tasks the message brought news of."""
        for envelope in arrival.news:
            await self._delegation.ring(envelope, loop)

    def lines_for(self, message: Message) -> tuple[str, ...] | None:
        """The model's lines for the actions of a mailbox message being taken in (None for
        one this run did not take: carried over from an earlier run, it is parsed then)."""
        return self._lines.pop(message.message_id, None)

    def _without_forged_actions(
        self, message: Message, actions: list[tuple[int, Action]], loop: LoopState, task: Task
    ) -> Message | None:
        taken, forged = without_forged(message, loop.surfaces, actions)
        for action in forged:
            workflow.logger.warning(
                "task %s: A2UI action %r discarded: surface %r, component %r never drawn",
                task.id,
                action.name,
                action.surfaceId,
                action.sourceComponentId,
            )
        return taken


def answer_index(loop: LoopState) -> int | None:
    """Where in the mailbox the message answering the open question is (the first, for a
    question addressed to nobody), if it has come."""
    question = loop.pending_question
    for index, message in enumerate(loop.mailbox):
        if question is None or question.answered_by(sender_of(message)):
            return index
    return None


def drain(loop: LoopState) -> tuple[LoopState, list[tuple[Message, PendingQuestion | None]]]:
    """Every message of the mailbox, the answer to the open question first (with the
    question it answers), and the loop's state without them: no open question if it was
    answered, and the newest sender as the principal."""
    taken: list[tuple[Message, PendingQuestion | None]] = []
    question = loop.pending_question
    mailbox = list(loop.mailbox)
    answer = answer_index(loop)
    if answer is not None:
        taken.append((mailbox.pop(answer), question))
        question = None
    taken += [(message, None) for message in mailbox]
    if not taken:
        return loop, taken
    changes = {"mailbox": (), "pending_question": question, "principal": sender_of(taken[-1][0])}
    return loop.model_copy(update=changes), taken

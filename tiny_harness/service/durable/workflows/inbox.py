"""`Inbox`: what the task workflow does with a message its `inbox` update takes.

    message ─ check (the update's validator) ─► take ─┬─ history (the log): always, as it came
                                                      ├─ task envelopes: merged into the task
                                                      ├─ news of a sub-task: to its stand-in
                                                      └─ mailbox: the rest, for the model,
                                                         without forged A2UI actions

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
    from a2a.types import Message

    from tiny_harness.errors import A2uiMessageError, TaskExtensionError
    from tiny_harness.harness.a2ui.messages import Action, actions_in, render_action
    from tiny_harness.harness.a2ui.surfaces import knows, without_forged
    from tiny_harness.harness.tasks.extension import (
        EventEnvelope,
        TaskExtensionData,
        claim,
        envelopes_in,
        merge_ext,
        sender_of,
    )
    from tiny_harness.service import refusals
    from tiny_harness.service.durable.payloads import TaskRun
    from tiny_harness.service.durable.workflows import events
    from tiny_harness.service.durable.workflows.delegation import Delegation
    from tiny_harness.service.durable.workflows.task_log import TaskLog


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
    answer it waits for), whether it waits behind an open question, and the news of
    sub-tasks it carries."""

    wakes: bool
    queued: bool
    news: tuple[EventEnvelope, ...]
    message: Message
    """The message as the task's history keeps it."""


class Inbox:
    """Takes one run's messages."""

    def __init__(self, run: TaskRun, log: TaskLog, delegation: Delegation) -> None:
        self._run = run
        self._log = log
        self._delegation = delegation
        self._checked: dict[str, Parsed] = {}
        """What `check` parsed, by message id, until `take` (or `forget`) uses it."""
        self._lines: dict[str, tuple[str, ...]] = {}
        """The model's lines for each mailbox message's actions, until its intake."""

    def check(self, message: Message) -> None:
        """Refuse (`InvalidEnvelope`) a message whose envelopes or A2UI parts are invalid,
        or that brings news of no sub-task of this task."""
        try:
            parsed = Parsed.of(message)
            for envelope in parsed.envelopes:
                if envelope.kind != "task":
                    self._delegation.check_news(envelope)
        except (TaskExtensionError, A2uiMessageError) as error:
            raise ApplicationError(error.message, type=refusals.INVALID_ENVELOPE) from None
        self._checked[message.message_id] = parsed

    def forget(self, message: Message) -> None:
        """`message` will not be taken (a repeat): drop what `check` kept of it."""
        self._checked.pop(message.message_id, None)

    def take(self, message: Message, *, first: bool) -> Arrival:
        """Record a checked message in the task (see the module docstring)."""
        task = self._run.task
        # A replay runs no validator: then the message is parsed here, to the same result.
        parsed = self._checked.pop(message.message_id, None) or Parsed.of(message)
        envelopes = parsed.envelopes
        news = tuple(e for e in envelopes if e.kind != "task")
        turn = None if news else self._without_forged_actions(message, parsed.actions)
        question = self._run.pending_question
        answers = question is not None and question.answered_by(sender_of(message))
        for envelope in envelopes:
            if isinstance(envelope.payload, TaskExtensionData):
                merge_ext(task, envelope.payload)
        if first:
            claim(task, message)  # the task belongs to whoever started it
        if turn is not None:
            self._run.mailbox.append(events.bound_message(turn, task))
            self._lines[turn.message_id] = tuple(
                render_action(a) for _, a in parsed.actions if knows(self._run.surfaces, a)
            )
        kept = events.bound_message(message, task)
        self._log.add_message(kept)
        wakes = turn is not None and (first or answers)
        queued = turn is not None and question is not None and not wakes
        return Arrival(wakes=wakes, queued=queued, news=news, message=kept)

    async def ring(self, arrival: Arrival) -> None:
        """Tell the stand-ins of the sub-tasks the message brought news of."""
        for envelope in arrival.news:
            await self._delegation.ring(envelope)

    def answer_index(self) -> int | None:
        """Where in the mailbox the message answering the open question is (the first, for
        a question addressed to nobody), if it has come."""
        question = self._run.pending_question
        for index, message in enumerate(self._run.mailbox):
            if question is None or question.answered_by(sender_of(message)):
                return index
        return None

    def lines_for(self, message: Message) -> tuple[str, ...] | None:
        """The model's lines for the actions of a mailbox message being taken in (None for
        one this run did not take: carried over from an earlier run, it is parsed then)."""
        return self._lines.pop(message.message_id, None)

    def _without_forged_actions(
        self, message: Message, actions: list[tuple[int, Action]]
    ) -> Message | None:
        taken, forged = without_forged(message, self._run.surfaces, actions)
        for action in forged:
            workflow.logger.warning(
                "task %s: A2UI action %r discarded: surface %r, component %r never drawn",
                self._run.task.id,
                action.name,
                action.surfaceId,
                action.sourceComponentId,
            )
        return taken

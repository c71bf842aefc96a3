"""`TaskLog`: a task's event log and history as its workflow records them, until written.

Workflow-side code (deterministic, no I/O). Every event the task emits is recorded here:
numbered (gap-free from 0 across runs) and folded into the task the run keeps, whose
history stays out of it: a message an event brings, and each message the task takes in,
join the history in the store. What was recorded since the last write waits here until
`LogWriter` takes it (`take`) for the store; the run itself holds only the task and the
lengths of its log and history, whatever the conversation.
"""

from __future__ import annotations

from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from a2a.types import Message, StreamResponse, Task

    from tiny_harness.harness.persistence.store import LogWrite
    from tiny_harness.service.durable.payloads import TaskRun
    from tiny_harness.service.durable.workflows import events


class TaskLog:
    """One task run's log: what it recorded, and what is not written yet."""

    def __init__(self, run: TaskRun) -> None:
        self._run = run
        self._events: list[StreamResponse] = []
        self._messages: list[Message] = []

    @property
    def task(self) -> Task:
        """The task as its events describe it, without its history."""
        return self._run.task

    @property
    def next_seq(self) -> int:
        """The sequence number of the next event."""
        return self._run.log_length

    @property
    def history_length(self) -> int:
        """How many messages the task's history holds, written or not."""
        return self._run.history_length

    @property
    def empty(self) -> bool:
        """True until the first event is recorded."""
        return self._run.log_length == 0

    @property
    def pending(self) -> bool:
        """Whether anything was recorded since the last `take`."""
        return bool(self._events or self._messages)

    def record(self, event: StreamResponse) -> None:
        """Append `event` and fold it into the task; a message it brings joins the history."""
        message = events.fold(self._run.task, event)
        self._events.append(event)
        self._run.log_length += 1
        if message is not None:
            self.add_message(message)

    def add_message(self, message: Message) -> None:
        """`message` joins the task's history (a message taken in, or the brief)."""
        self._messages.append(message)
        self._run.history_length += 1

    def untake(self, write: LogWrite) -> None:
        """Put back a step that was taken and could not be written: it goes out with the
        next one, in order."""
        self._events[:0] = write.events
        self._messages[:0] = write.messages

    def take(self, now: datetime) -> LogWrite:
        """What was recorded since the last take, with the task as it leaves it."""
        head = Task()
        head.CopyFrom(self._run.task)
        write = LogWrite(
            task=head,
            first_seq=self._run.log_length - len(self._events),
            events=tuple(self._events),
            first_message=self._run.history_length - len(self._messages),
            messages=tuple(self._messages),
            updated_at=now,
        )
        self._events, self._messages = [], []
        return write

"""`TaskLog`: a task's durable event log, as its workflow keeps and serves it.

Workflow-side code (deterministic, no I/O). Every event the task emits is recorded here:
appended with the next sequence number and folded into the task snapshot. Readers either
read a page (`page`, for queries) or watch (`watch`, for the `watch` update): a watch parks
until the log grows past the reader's cursor, so an event leaves with the workflow task that
records it. At most `MAX_PARKED` watches wait at once; past that the oldest is released
empty, so readers who went away cannot exhaust Temporal's limit on in-flight updates.
"""

from __future__ import annotations

from collections import deque
from typing import Final

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from a2a.types import StreamResponse, Task

    from tiny_harness.service.durable.payloads import EventPage, LoggedEvent, TaskRun
    from tiny_harness.service.durable.workflows import events

MAX_PARKED: Final = 8
PAGE_SIZE: Final = 200


class TaskLog:
    """The event log and snapshot of one task run, with its parked readers."""

    def __init__(self, run: TaskRun) -> None:
        self._run = run
        self._ending = False
        self._serial = 0
        self._parked: deque[int] = deque()
        self._released: set[int] = set()

    @property
    def task(self) -> Task:
        """The task as its events describe it."""
        return self._run.task

    @property
    def next_seq(self) -> int:
        """The sequence number of the next event."""
        return self._run.next_seq

    @property
    def empty(self) -> bool:
        """True until the first event is recorded."""
        return not self._run.events

    def record(self, event: StreamResponse) -> None:
        """Append `event` and fold it into the snapshot; parked readers wake."""
        events.apply_event(self._run.task, event)
        self._run.events.append(LoggedEvent(seq=self._run.next_seq, event=event))

    def end(self) -> None:
        """The run is ending (closing or rolling over): release every reader, now and later."""
        self._ending = True

    def valid_cursor(self, cursor: int) -> bool:
        """Whether `cursor` points into the log or just past its end."""
        return 0 <= cursor <= self._run.next_seq

    def page(self, cursor: int) -> EventPage:
        """Up to `PAGE_SIZE` events from `cursor` on."""
        start = max(cursor, 0)
        page = tuple(self._run.events[start : start + PAGE_SIZE])
        return EventPage(
            events=page,
            next_cursor=start + len(page),
            state=self._run.task.status.state,
            log_length=self._run.next_seq,
            closing=self._ending,
        )

    async def watch(self, cursor: int) -> EventPage:
        """The page from `cursor` once it is not empty, the run ends, or this reader is
        released to make room (then the page is empty)."""
        self._serial += 1
        serial = self._serial
        self._parked.append(serial)
        if len(self._parked) > MAX_PARKED:
            self._released.add(self._parked.popleft())
        await workflow.wait_condition(
            lambda: self._run.next_seq > cursor or self._ending or serial in self._released
        )
        self._released.discard(serial)
        if serial in self._parked:
            self._parked.remove(serial)
        return self.page(cursor)

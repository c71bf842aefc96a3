"""`SnapshotWriter`: keeps the store's record of a task up to date, from workflow code.

Each state change marks the snapshot dirty; one background coroutine writes it through the
`persist` activity, one write at a time, so a burst of changes costs one write, not one
each. Task-scoped records queued with `add` ride along with the next snapshot write (a
state change, a roll-over, the end) and cost no activity of their own; of the plan and state
records only the newest matters, so a newer one replaces a queued one. They may lag the
workflow's state by one state change; the workflow's own state is what replays. The version
(the log's length) lets the store ignore a write older than the one it has. The final
flush writes the whole event log too, for reads after the workflow closes.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from a2a.types import Task

    from tiny_harness.harness.persistence.records import Record
    from tiny_harness.service.durable.activities.task import TaskActivities
    from tiny_harness.service.durable.payloads import PersistInput, TaskRun

_PERSIST_RETRY = RetryPolicy(maximum_attempts=10, maximum_interval=timedelta(seconds=10))


class SnapshotWriter:
    """Writes the run's task snapshot to the store in the background."""

    def __init__(self, run: TaskRun) -> None:
        self._run = run
        self._dirty = False
        self._busy = False
        self._final = False
        self._loop: asyncio.Task[None] | None = None
        self._records: dict[tuple[str, str], Record] = {}

    def mark(self) -> None:
        """The snapshot changed: write it soon."""
        self._dirty = True
        if self._loop is None:
            self._loop = asyncio.create_task(self._write_loop())

    def add(self, record: Record) -> None:
        """Write `record` with the next snapshot."""
        self._records[(record.kind, record.key)] = record

    async def flush(self, *, final: bool = False) -> None:
        """Wait until the newest snapshot is written; `final` writes the whole log too."""
        if final:
            self._final = True
        if final or self._records:
            self.mark()
        await workflow.wait_condition(lambda: not self._dirty and not self._busy)

    async def _write_loop(self) -> None:
        while True:
            await workflow.wait_condition(lambda: self._dirty)
            self._dirty = False
            self._busy = True
            snapshot = Task()
            snapshot.CopyFrom(self._run.task)
            events = tuple(e.event for e in self._run.events) if self._final else ()
            records, self._records = tuple(self._records.values()), {}
            data = PersistInput(
                task=snapshot, version=self._run.next_seq, events=events, records=records
            )
            try:
                await workflow.execute_activity_method(
                    TaskActivities.persist,
                    data,
                    start_to_close_timeout=timedelta(seconds=30),
                    retry_policy=_PERSIST_RETRY,
                )
            except ActivityError as error:
                # The task itself is safe in history; only the read model lags.
                workflow.logger.error("task %s: persist failed: %s", snapshot.id, error)
            finally:
                self._busy = False

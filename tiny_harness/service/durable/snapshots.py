"""`SnapshotWriter`: keeps the store's record of a task up to date, from workflow code.

Each state change marks the snapshot dirty; one background coroutine writes it through the
`persist` activity, one write at a time, so a burst of changes costs one write, not one
each. Task-scoped records queued with `add` ride along with a snapshot write: an inbox
audit or a compaction asks for one, while plan and state records (of which only the newest
matters, so a newer one replaces a queued one) wait for the next, and cost no activity of
their own; `flush` writes whatever is queued. The version
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
    from tiny_harness.service.durable.activities import TaskActivities
    from tiny_harness.service.durable.models import PersistInput, TaskRun

_URGENT = frozenset({"inbox_audit", "compaction"})
"""Record kinds that each ask for a write of their own: every one of them counts."""

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
        """Write `record` with the next snapshot (soon, for an audit or a compaction)."""
        self._records[(record.kind, record.key)] = record
        if record.kind in _URGENT:
            self.mark()

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

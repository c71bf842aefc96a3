"""`LogWriter`: takes a task's log to the store as it grows, from workflow code.

    TaskLog.record / add_message ─► pending ─► LogWriter ─► persist (local activity)
    LogWriter.add(record)        ──────────────┘            └► Store.write_log, then records

Once started, one background coroutine writes whatever was recorded since its last write through the
`persist` local activity, one write at a time: a step of the log (its events, the
messages that joined the history, and the task as they leave it) and the task-scoped
records queued with `add`. Of the plan and state records only the newest matters, so a
newer one replaces a queued one. A local activity leaves one marker in history and no
workflow task of its own, so writing every step costs little; it is retried until the
store takes it (a step never goes missing, or a reader would wait at the gap). Readers
wait for a write with `written`: the inbox update answers its sender once what it
recorded is in the store, so the sender reads its events there.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from tiny_harness.harness.persistence.records import Record
    from tiny_harness.service.durable.activities.task import TaskActivities
    from tiny_harness.service.durable.payloads import PersistInput
    from tiny_harness.service.durable.workflows.task_log import TaskLog

_PERSIST_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=100),
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=0,
)
"""Until the store takes it: a step left out would be a gap every reader waits at."""


class LogWriter:
    """Writes one run's log and records to the store in the background."""

    def __init__(self, log: TaskLog) -> None:
        self._log = log
        self._busy = False
        self._loop: asyncio.Task[None] | None = None
        self._records: dict[tuple[str, str], Record] = {}
        self._written = (log.next_seq, log.history_length)
        self._force = False

    def start(self) -> None:
        """Start writing (again a no-op): from now on whatever is recorded is written."""
        if self._loop is None:
            self._loop = asyncio.create_task(self._write_loop())

    def add(self, record: Record) -> None:
        """Write `record` with the next step."""
        self._records[(record.kind, record.key)] = record
        self.start()

    async def written(self) -> None:
        """Wait until everything recorded so far is in the store."""
        version, messages = self._log.next_seq, self._log.history_length
        self.start()
        await workflow.wait_condition(
            lambda: self._written[0] >= version and self._written[1] >= messages
        )

    async def flush(self, *, final: bool = False) -> None:
        """Wait until every step and record is written and no write is under way; `final`
        writes the task once more however little changed (its last word on the store)."""
        self._force = self._force or final
        self.start()
        await workflow.wait_condition(lambda: not self._due() and not self._busy)

    @property
    def due(self) -> bool:
        """Whether anything recorded or queued is not written yet (or a write is under
        way)."""
        return self._busy or self._due()

    def _due(self) -> bool:
        return self._force or self._log.pending or bool(self._records)

    async def _write_loop(self) -> None:
        while True:
            await workflow.wait_condition(self._due)
            self._busy, self._force = True, False
            step = self._log.take(workflow.now())
            records, self._records = tuple(self._records.values()), {}
            try:
                await workflow.execute_local_activity_method(
                    TaskActivities.persist,
                    PersistInput(log=step, records=records),
                    start_to_close_timeout=timedelta(seconds=30),
                    retry_policy=_PERSIST_RETRY,
                )
            except ActivityError as error:
                # Only a cancelled workflow gets here: the write is retried until then.
                workflow.logger.error("task %s: persist failed: %s", step.task_id, error)
            finally:
                self._written = (step.version, step.first_message + len(step.messages))
                self._busy = False

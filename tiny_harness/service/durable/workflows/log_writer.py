"""`LogWriter`: takes a task's log to the store as it grows, from workflow code.

    TaskLog.record / add_message ─► pending ─► LogWriter ─► persist (local activity)
    LogWriter.add(record)        ──────────────┘    │       └► Store.write_log, then records
                                                    └─ take ─► prepare_turn (the loop's own)

Once started, one background coroutine writes whatever was recorded since its last write
through the `persist` local activity, one write at a time: a step of the log (its events,
the messages that joined the history, and the task as they leave it) and the task-scoped
records queued with `add` and the conversation's new items, which ride along with the next
step rather than cost a write of their own (only the next turn's `prepare_turn` reads the
items, and it writes them first). Of the plan and state records only the newest matters,
so a newer one replaces a queued one. A local activity leaves one marker in history and no
workflow task of its own, so writing every step costs little; it is retried until the
store takes it (a step never goes missing, or a reader would wait at the gap). Readers
wait for a write with `written`: the inbox update answers its sender once what it
recorded is in the store, so the sender reads its events there.

The loop calls the model after `prepare_turn`, a local activity of its own that writes the
log so far first. So when the loop is about to call the model it `hold`s the writer and
`take`s the step itself: one marker instead of two (in a new task's first workflow task,
and in a reply's). Steps are written in order, never two at once: `take` waits for a write
under way, and a step that could not be written is put back (`taken`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
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

    def __init__(self, log: TaskLog, learn: Callable[[tuple[str, ...]], None]) -> None:
        """`learn` is given the hook points each write reports (`PersistOutcome`)."""
        self._log = log
        self._learn = learn
        self._held = False
        self._busy = False
        self._loop: asyncio.Task[None] | None = None
        self._records: dict[tuple[str, str], Record] = {}
        self._written = (log.next_seq, log.history_length)
        self._force = False
        self._flushing = 0

    def start(self) -> None:
        """Start writing (again a no-op): from now on whatever is recorded is written."""
        if self._loop is None:
            self._loop = asyncio.create_task(self._write_loop())

    def add(self, record: Record) -> None:
        """Write `record` with the next step (or flush)."""
        self._records[(record.kind, record.key)] = record
        self.start()

    async def written(self) -> None:
        """Wait until everything recorded so far is in the store."""
        version, messages = self._log.next_seq, self._log.history_length
        self.start()
        await workflow.wait_condition(
            lambda: self._written[0] >= version and self._written[1] >= messages
        )

    def hold(self) -> None:
        """The loop will `take` what is recorded from now on with its next local activity:
        do not write it on your own meanwhile."""
        self._held = True

    async def take(self) -> PersistInput | None:
        """What is recorded and queued, for the caller to write (`prepare_turn`) and then
        report with `taken`; None when nothing is. Waits for a write under way; ends a
        `hold`."""
        await workflow.wait_condition(lambda: not self._busy)
        self._held = False
        if not self._due():
            return None
        return self._step()

    def taken(self, step: PersistInput | None, points: tuple[str, ...] | None) -> None:
        """The step `take` gave was written, the write reporting `points`; or it could not
        be (`points` None): it is put back and goes out with the next write."""
        if points is not None:
            self._learn(points)
        if step is None:
            return
        if points is None:
            self._log.untake(step.log)
            for record in step.records:
                self._records.setdefault((record.kind, record.key), record)
        else:
            self._done(step)
        self._busy = False

    async def flush(self, *, final: bool = False) -> None:
        """Wait until every step and record is written and no write is under way; `final`
        writes the task once more however little changed (its last word on the store).
        Ends a `hold`."""
        self._held = False
        self._force = self._force or final
        self._flushing += 1
        self.start()
        try:
            await workflow.wait_condition(lambda: not self._due() and not self._busy)
        finally:
            self._flushing -= 1

    @property
    def due(self) -> bool:
        """Whether anything recorded or queued is not written yet (or a write is under
        way)."""
        return self._busy or self._due()

    def _due(self) -> bool:
        return self._force or self._log.unwritten or bool(self._records)

    def _step(self) -> PersistInput:
        """Take everything due as one step; a write is under way until it is reported."""
        self._busy, self._force = True, False
        records, self._records = tuple(self._records.values()), {}
        return PersistInput(log=self._log.take(workflow.now()), records=records)

    def _done(self, step: PersistInput) -> None:
        self._written = (step.log.version, step.log.first_message + len(step.log.messages))

    def _ready(self) -> bool:
        """Whether the loop writes now: an event or a message was recorded (queued records
        and conversation items ride along with it, or go with a flush), and the caller of
        `hold` or `take` is not writing it."""
        flushed = self._flushing > 0 and (bool(self._records) or self._log.unwritten)
        wanted = self._force or self._log.pending or flushed
        return wanted and not self._held and not self._busy

    async def _write_loop(self) -> None:
        while True:
            await workflow.wait_condition(self._ready)
            if not self._ready():  # a `take` in the same round got there first
                continue
            step = self._step()
            try:
                outcome = await workflow.execute_local_activity_method(
                    TaskActivities.persist,
                    step,
                    start_to_close_timeout=timedelta(seconds=30),
                    retry_policy=_PERSIST_RETRY,
                )
                self._learn(outcome.points)
            except ActivityError as error:
                # Only a cancelled workflow gets here: the write is retried until then.
                workflow.logger.error("task %s: persist failed: %s", step.log.task_id, error)
            finally:
                self._done(step)
                self._busy = False

"""The `Store`: a task's log and read model, and what outlives its workflow.

Temporal history is the replay source of a task; the store is what every reader reads. The
workflow writes its task's log there as it grows (`write_log`, one `LogWrite` per step:
the new events, the messages that joined the task's history, the items that joined the
conversation its model reads, and the task as they leave it), so streams,
SubscribeToTask, GetTask and ListTasks read the store and never the workflow, and
`wait_for_log` wakes a reader when the log grows. The task-scoped records of `records.py`
(plans, state, inbox audit, compactions, stored tool results) are written as they happen;
the A2A server records channel messages before their task is given them. A record never
holds a secret: every field is typed and none is a credential.

    tasks     the task as its log leaves it, without its history   (get_task, list_tasks)
    events    the A2A events of its stream, numbered from 0         (read_log)
    messages  its history, numbered from 0                          (get_task)
    items     the conversation its model reads, numbered from 0    (conversation)

The conversation is only ever appended to (a compaction appends its summary, and the
workflow reads the summary, the items it kept and what came after), so the store keeps
every item the model was given.

The store also keeps blobs: the large payloads Temporal refers to by digest instead of
carrying them (`service/durable/payload_store.py`). A blob is stored once per content,
for every task that stored it, and goes with the last of those tasks.
"""

from __future__ import annotations

import hashlib
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from a2a.types import Message, StreamResponse, Task
from pydantic import BaseModel, Field

from tiny_harness.harness.entities import Entity, EntityKind
from tiny_harness.harness.models.llm import InputItem
from tiny_harness.harness.persistence.records import Record, RecordKind
from tiny_harness.harness.protocol.proto_fields import ProtoJson

EVENTS_PAGE: Final = 200
"""The most events `read_log` returns at once."""


@dataclass(frozen=True)
class LogPage:
    """Events of a task's log from a cursor on, and the log as it stood when they were
    read: what a reader needs to know whether to wait for more."""

    events: tuple[StreamResponse, ...]
    length: int
    """How many events the log holds (0 for a task the store has not seen)."""
    final: bool
    """Whether the task is in a final state, so its log grows no more."""


class TaskRecord(BaseModel, frozen=True):
    """A snapshot of one task, as of event `version` of its log (the number of events it
    holds), with as much of its history as was asked for.

    `version` grows with every event the task records, so of two writes racing for the same
    task the store keeps the one with the higher version.
    """

    task: ProtoJson[Task]
    version: int = Field(ge=0)
    updated_at: datetime

    @property
    def task_id(self) -> str:
        """The task's id."""
        return self.task.id


class LogWrite(BaseModel, frozen=True):
    """One step of a task's log, written at once: `events` numbered from `first_seq`, the
    `messages` that joined its history numbered from `first_message`, the `items` that
    joined its conversation numbered from `first_item`, and `task`, the task as they leave
    it (its history aside: the store keeps that as the messages come)."""

    task: ProtoJson[Task]
    first_seq: int = Field(ge=0)
    events: tuple[ProtoJson[StreamResponse], ...] = ()
    first_message: int = Field(ge=0)
    messages: tuple[ProtoJson[Message], ...] = ()
    first_item: int = Field(default=0, ge=0)
    items: tuple[InputItem, ...] = ()
    updated_at: datetime

    @property
    def task_id(self) -> str:
        """The task's id."""
        return self.task.id

    @property
    def version(self) -> int:
        """The log's length once this step is written."""
        return self.first_seq + len(self.events)


class TaskQuery(BaseModel, frozen=True):
    """Which tasks `Store.list_tasks` returns; every filter given must hold.

    A task's time in a listing is its last status change (its status timestamp, or the
    record's `updated_at` for a task without one): `updated_after` keeps the tasks whose
    status changed at or after that instant (A2A's `statusTimestampAfter`), and the order
    is that time, newest first. `page_token` is a `next_page_token` this store issued.
    """

    context_id: str | None = None
    state: int | None = None
    participant: str | None = None
    """Only tasks this participant takes part in (its task extension's participants; the
    empty id: tasks that name none). None: every task."""
    updated_after: datetime | None = None
    page_size: int = Field(default=50, ge=1, le=100)
    page_token: str | None = None
    history_length: int | None = Field(default=None, ge=0)
    """How many of each task's newest history messages to include (None: all of them)."""


class TaskPage(BaseModel, frozen=True):
    """One page of tasks, newest status change first, and the token of the next page if
    any; `total_size` counts every task that matches the filters, on every page."""

    records: tuple[TaskRecord, ...]
    next_page_token: str | None
    total_size: int


class Purged(BaseModel, frozen=True):
    """What `Store.purge_task` deleted: the task's log, history and conversation, its
    records by kind (the kinds it had), and the stored payloads no other task claimed."""

    events: int = Field(ge=0)
    messages: int = Field(ge=0)
    items: int = Field(ge=0)
    records: dict[str, int] = Field(default_factory=dict)
    blobs: int = Field(ge=0)


class Store(Entity):
    """Durable storage of task records. Implementations must not block the event loop."""

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.STORE`."""
        return EntityKind.STORE

    @abstractmethod
    async def put_task(self, record: TaskRecord) -> None:
        """Insert or replace the task's record, its history included, unless the stored one
        has a higher version. Its events are `write_log`'s."""

    @abstractmethod
    async def get_task(
        self, task_id: str, *, history_length: int | None = None
    ) -> TaskRecord | None:
        """The task's newest record with its `history_length` newest history messages (None:
        all), or None when the store has never seen the task."""

    @abstractmethod
    async def write_log(self, write: LogWrite) -> bool:
        """Add one step to the task's log, all of it or none: its events, messages and
        conversation items (one already stored under its number is kept, so a retried
        write changes nothing), and the task unless the stored one has a higher version.
        Wakes `wait_for_log`.

        Returns True when this write ended the task: the stored task was not final before
        and is now.
        """

    @abstractmethod
    async def end_task(self, write: LogWrite) -> bool:
        """Write `write` (the event that ends the task) only if the stored log ends just
        before it (`first_seq` is its version) and the stored task is not final; whether it
        was written. Its messages join the history after the stored ones (`first_message`
        is not read). For an end the workflow could not record itself: two readers that
        both notice it store it once."""

    @abstractmethod
    async def read_log(self, task_id: str, cursor: int, limit: int = EVENTS_PAGE) -> LogPage:
        """Up to `limit` events of the task's log from number `cursor` on, in order and
        without a gap, with the log's length and whether the task is final, all read at
        once."""

    @abstractmethod
    async def conversation(
        self, task_id: str, start: int, end: int, *, picked: Sequence[int] = ()
    ) -> tuple[InputItem, ...]:
        """The items of the task's conversation numbered `picked`, in that order, then
        items `start` to `end` (not included) in order.

        Raises `StoreError` when one of them is not stored.
        """

    @abstractmethod
    async def purge_task(self, task_id: str) -> Purged | None:
        """Delete the task now, whatever its state: its row, log, history, conversation and
        records, those of its own workflows (ids `<task_id>.…`: stand-ins, couriers), and
        the stored payloads no other task claims; and remember its id, so a write of it
        that was already on its way brings nothing back. None when the store never held
        the task (then nothing is deleted)."""

    @abstractmethod
    async def wait_for_log(self, task_id: str, beyond: int) -> None:
        """Return once the task's log holds more than `beyond` events (bound the wait with
        `asyncio.timeout`). A write through this store wakes its waiters at once; one by
        another process is noticed within a short poll."""

    @abstractmethod
    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        """A page of task records matching `query`, newest status change first, ties
        broken by task id descending.

        Raises `StoreError` for a page token this store did not issue.
        """

    @abstractmethod
    async def put_record(self, record: Record) -> None:
        """Insert or replace the record under its `key`, unless the stored one has a higher
        `version`."""

    @abstractmethod
    async def records(self, kind: RecordKind, task_id: str) -> tuple[Record, ...]:
        """The task's records of `kind`, oldest first (by `recorded_at`, then key).

        Raises `StoreError` for `RecordKind.TASK`: a task's own record is `get_task`'s.
        """

    @abstractmethod
    async def record(self, kind: RecordKind, key: str) -> Record | None:
        """The record of `kind` under `key`, or None.

        Raises `StoreError` for `RecordKind.TASK`: a task's own record is `get_task`'s.
        """

    @abstractmethod
    async def put_blob(self, data: bytes, *, owner: str, stored_at: datetime) -> str:
        """Keep `data` for the task `owner`; its digest (`blob_digest`), under which
        `get_blob` finds it. Content is kept once however often it is put; each owner's
        claim on it is kept apart, so it goes only with the last task that holds it."""

    @abstractmethod
    async def get_blob(self, digest: str) -> bytes | None:
        """The blob stored under `digest`, or None when no task holds it (any more)."""

    @abstractmethod
    async def delete_expired(self, kind: RecordKind, before: datetime) -> int:
        """Delete the records of `kind` last written before `before`; how many went.

        Tasks count from their terminal state: a task that is not final is never deleted,
        however old, and neither are its plan and state records. A task goes with its log,
        history and conversation. Deleting tasks also deletes the claims on blobs of tasks
        the store no longer holds (a task deleted now, or one it never held) that were
        stored before `before`, and every blob no claim is left on.
        """

    @abstractmethod
    async def close(self) -> None:
        """Release the store's resources; safe to call twice."""


def blob_digest(data: bytes) -> str:
    """The name a blob is stored under: the SHA-256 of its bytes, in lower-case hex."""
    return hashlib.sha256(data).hexdigest()

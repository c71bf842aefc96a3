"""The `Store`: the read model that outlives a task's workflow.

Temporal history is the replay source of a task; the store is what answers `GetTask` and
`ListTasks` once the workflow has closed, and what lists tasks at all. The workflow writes a
`TaskRecord` through the `persist` activity on every state change and at the end, and the
task-scoped records of `records.py` (plans, state, inbox audit, compactions) as they
happen; the A2A server records channel messages before their task is given them. A
record never holds a secret: every field is typed and none is a credential.

The store also keeps blobs: the large payloads Temporal refers to by digest instead of
carrying them (`service/durable/payload_store.py`). A blob is stored once per content,
for every task that stored it, and goes with the last of those tasks.
"""

from __future__ import annotations

import hashlib
from abc import abstractmethod
from datetime import datetime

from a2a.types import StreamResponse, Task
from pydantic import BaseModel, Field

from tiny_harness.harness.entities import Entity, EntityKind
from tiny_harness.harness.persistence.records import Record, RecordKind
from tiny_harness.harness.protocol.proto_fields import ProtoJson


class TaskRecord(BaseModel, frozen=True):
    """A snapshot of one task, as of event `version` of its event log.

    `version` grows with every event the task records, so of two writes racing for the same
    task the store keeps the one with the higher version. `events` is filled by the final
    write only: the whole event log, for replay after the workflow has closed.
    """

    task: ProtoJson[Task]
    version: int = Field(ge=0)
    updated_at: datetime
    events: tuple[ProtoJson[StreamResponse], ...] = ()

    @property
    def task_id(self) -> str:
        """The task's id."""
        return self.task.id


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


class TaskPage(BaseModel, frozen=True):
    """One page of tasks, newest status change first, and the token of the next page if
    any; `total_size` counts every task that matches the filters, on every page."""

    records: tuple[TaskRecord, ...]
    next_page_token: str | None
    total_size: int


class Store(Entity):
    """Durable storage of task records. Implementations must not block the event loop."""

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.STORE`."""
        return EntityKind.STORE

    @abstractmethod
    async def put_task(self, record: TaskRecord) -> None:
        """Insert or replace the task's record, unless the stored one has a higher version."""

    @abstractmethod
    async def get_task(self, task_id: str) -> TaskRecord | None:
        """The task's newest record, or None when the store has never seen the task."""

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
        however old, and neither are its plan and state records. Deleting tasks also
        deletes the claims on blobs of tasks the store no longer holds (a task deleted
        now, or one it never held) that were stored before `before`, and every blob no
        claim is left on.
        """

    @abstractmethod
    async def close(self) -> None:
        """Release the store's resources; safe to call twice."""


def blob_digest(data: bytes) -> str:
    """The name a blob is stored under: the SHA-256 of its bytes, in lower-case hex."""
    return hashlib.sha256(data).hexdigest()

"""`SqliteStore`: the task store in one local SQLite file.

This is the store a single tiny-harness server uses out of the box: no service to run, one
file on disk (mode 0600, since records hold user content). Every call runs on a worker
thread through `asyncio.to_thread`, over one connection guarded by a lock, so the event loop
never blocks on disk. The SQL lives with its tables: `sqlite_tasks` (tasks, their logs and
histories), `sqlite_records`, `sqlite_blobs`.

Limits: it is made for one writer process. WAL mode and a busy timeout let another process
read the file, or briefly contend for it, but nothing coordinates several servers writing the
same file, and there is no replication or backup: the file is the only copy. A write by this
store wakes its `wait_for_log` waiters at once; a write by another process on the same file
(a separate `tiny-harness worker`) is noticed by polling (`LogWaiters`).

Pagination is by keyset over `(updated_at, id)`, so a page token stays valid as tasks
arrive, but a task whose status changes while a client pages moves ahead of the cursor and
is not shown again in that walk.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from tiny_harness.errors import StoreError
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.models.llm import InputItem
from tiny_harness.harness.persistence import (
    sqlite_blobs,
    sqlite_purge,
    sqlite_records,
    sqlite_tasks,
)
from tiny_harness.harness.persistence.documents import (
    decode_page_token,
    encode_page_token,
    utc_text,
)
from tiny_harness.harness.persistence.log_waiters import LogWaiters
from tiny_harness.harness.persistence.records import Record, RecordKind
from tiny_harness.harness.persistence.sqlite_file import (
    SqliteFile,
    integer_of,
    text_of,
    transaction,
)
from tiny_harness.harness.persistence.store import (
    EVENTS_PAGE,
    LogPage,
    LogWrite,
    Purged,
    Store,
    TaskPage,
    TaskQuery,
    TaskRecord,
)
from tiny_harness.harness.tasks.extension import TASK_EXT_KEY

SCHEMA_VERSION = 6
"""The schema this module writes, kept in `PRAGMA user_version` (2 added the record
tables, 3 the blob and tool result tables, 4 moved each task's events and history out of
its row into their own tables, 5 added each task's conversation, 6 the ids of purged
tasks; an older file is upgraded in place)."""

_SCHEMA = (
    *sqlite_tasks.SCHEMA,
    *sqlite_records.schema(),
    *sqlite_blobs.SCHEMA,
    *sqlite_purge.SCHEMA,
)

type _Param = str | int

_PARTICIPANTS = f"""'$.task.metadata."{TASK_EXT_KEY}".participants'"""
"""JSON path of a task record's participants (the task extension data in its metadata)."""
# Both are built from constants only; the participant id is a parameter.
_PARTICIPANT_FILTER = (
    f"EXISTS (SELECT 1 FROM json_each(tasks.json, {_PARTICIPANTS}) "  # noqa: S608
    "WHERE json_extract(value, '$.id') = ?)"
)
_NO_PARTICIPANTS = f"COALESCE(json_array_length(tasks.json, {_PARTICIPANTS}), 0) = 0"


class SqliteStore(Store):
    """A `Store` in the SQLite file at `path`, created with its directory on first use."""

    def __init__(self, path: Path) -> None:
        self.ref = EntityRef(kind=EntityKind.STORE, id="sqlite")
        self._file = SqliteFile(path, label="sqlite store", prepare=_prepare_schema)
        self._waiters = LogWaiters()

    @property
    def path(self) -> Path:
        """The database file."""
        return self._file.path

    async def put_task(self, record: TaskRecord) -> None:
        """Upsert the row and replace the history, in one transaction."""

        def put(connection: sqlite3.Connection) -> None:
            sqlite_tasks.put_task(connection, record)

        await self._call(f"write task {record.task_id!r}", put)
        self._waiters.wake(record.task_id, record.version)

    async def get_task(
        self, task_id: str, *, history_length: int | None = None
    ) -> TaskRecord | None:
        """The stored record of `task_id` with its newest history, or None."""

        def get(connection: sqlite3.Connection) -> TaskRecord | None:
            with _read_transaction(connection):
                return sqlite_tasks.get(connection, task_id, history_length)

        return await self._call(f"read task {task_id!r}", get)

    async def write_log(self, write: LogWrite) -> bool:
        """One step of the log in one transaction; wakes the task's waiters."""

        def put(connection: sqlite3.Connection) -> bool:
            return sqlite_tasks.write_log(connection, write)

        ended = await self._call(f"write the log of task {write.task_id!r}", put)
        self._waiters.wake(write.task_id, write.version)
        return ended

    async def end_task(self, write: LogWrite) -> bool:
        """The ending step, if the log is where it expects; wakes the task's waiters."""

        def put(connection: sqlite3.Connection) -> bool:
            return sqlite_tasks.end_task(connection, write)

        ended = await self._call(f"end task {write.task_id!r}", put)
        if ended:
            self._waiters.wake(write.task_id, write.version)
        return ended

    async def read_log(self, task_id: str, cursor: int, limit: int = EVENTS_PAGE) -> LogPage:
        """Up to `limit` events from number `cursor` on, with the log's length and whether
        the task is final, in one read transaction."""

        def select(connection: sqlite3.Connection) -> LogPage:
            with _read_transaction(connection):
                return sqlite_tasks.log_page(connection, task_id, max(cursor, 0), limit)

        return await self._call(f"read the log of task {task_id!r}", select)

    async def conversation(
        self, task_id: str, start: int, end: int, *, picked: Sequence[int] = ()
    ) -> tuple[InputItem, ...]:
        """The items numbered `picked`, then items `start` to `end` (not included)."""

        def select(connection: sqlite3.Connection) -> tuple[InputItem, ...]:
            return sqlite_tasks.conversation(connection, task_id, picked, start, end)

        return await self._call(f"read the conversation of task {task_id!r}", select)

    async def purge_task(self, task_id: str) -> Purged | None:
        """Delete the task and all it owns in one transaction, keeping its id; None when
        the store never held it."""
        when = utc_text(datetime.now(UTC), "the purge time")

        def purge(connection: sqlite3.Connection) -> Purged | None:
            return sqlite_purge.purge(connection, task_id, when)

        return await self._call(f"purge task {task_id!r}", purge)

    async def wait_for_log(self, task_id: str, beyond: int) -> None:
        """Return once the log holds more than `beyond` events: woken by this store's
        writes, polling for other processes'."""
        await self._waiters.wait(task_id, beyond, lambda: self._version(task_id))

    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        """A page of matching records, newest status change first, ties broken by id
        descending; `updated_after` keeps the tasks whose status changed at or after it."""
        filters: list[str] = []
        params: list[_Param] = []
        if query.context_id is not None:
            filters.append("context_id = ?")
            params.append(query.context_id)
        if query.state is not None:
            filters.append("state = ?")
            params.append(query.state)
        if query.updated_after is not None:
            filters.append("updated_at >= ?")
            params.append(utc_text(query.updated_after, "the query's updated_after"))
        if query.participant is not None:
            filters.append(_PARTICIPANT_FILTER if query.participant else _NO_PARTICIPANTS)
            if query.participant:
                params.append(query.participant)
        page_filters = list(filters)
        page_params = list(params)
        if query.page_token is not None:
            after_updated_at, after_id = decode_page_token(query.page_token)
            page_filters.append("(updated_at < ? OR (updated_at = ? AND id < ?))")
            page_params.extend((after_updated_at, after_updated_at, after_id))
        # Only fixed fragments above are joined into the SQL; every value is a parameter.
        count_sql = "SELECT COUNT(*) FROM tasks" + _where(filters)  # noqa: S608
        page_sql = (
            "SELECT updated_at, id, json FROM tasks"  # noqa: S608
            + _where(page_filters)
            + " ORDER BY updated_at DESC, id DESC LIMIT ?"
        )
        page_params.append(query.page_size + 1)

        def select(
            connection: sqlite3.Connection,
        ) -> tuple[int, list[tuple[object, ...]], list[TaskRecord]]:
            with _read_transaction(connection):
                count_row: tuple[object, ...] = connection.execute(count_sql, params).fetchone()
                rows: list[tuple[object, ...]] = connection.execute(
                    page_sql, page_params
                ).fetchall()
                records = [
                    sqlite_tasks.parse_record(text_of(row[2], "json"), text_of(row[1], "id"))
                    for row in rows[: query.page_size]
                ]
                for record in records:
                    sqlite_tasks.with_history(connection, record.task, query.history_length)
            return integer_of(count_row[0], "count"), rows, records

        total, rows, records = await self._call("list tasks", select)
        next_token = None
        if len(rows) > query.page_size:
            last = rows[query.page_size - 1]
            next_token = encode_page_token(text_of(last[0], "updated_at"), text_of(last[1], "id"))
        return TaskPage(records=tuple(records), next_page_token=next_token, total_size=total)

    async def put_record(self, record: Record) -> None:
        """Upsert the record in its kind's table; a stored higher version is kept."""
        recorded_at = utc_text(record.recorded_at, "the record's recorded_at")

        def put(connection: sqlite3.Connection) -> None:
            if not sqlite_purge.is_purged(connection, record.task_id):
                sqlite_records.upsert(connection, record, recorded_at)

        await self._call(f"write {record.kind} record {record.key!r}", put)

    async def records(self, kind: RecordKind, task_id: str) -> tuple[Record, ...]:
        """The task's records of `kind`, oldest first."""
        sqlite_records.table_of(kind)

        def select(connection: sqlite3.Connection) -> tuple[Record, ...]:
            return sqlite_records.select(connection, kind, task_id)

        return await self._call(f"read {kind} records of task {task_id!r}", select)

    async def record(self, kind: RecordKind, key: str) -> Record | None:
        """The record of `kind` under `key`, or None."""
        sqlite_records.table_of(kind)

        def get(connection: sqlite3.Connection) -> Record | None:
            return sqlite_records.get(connection, kind, key)

        return await self._call(f"read {kind} record {key!r}", get)

    async def put_blob(self, data: bytes, *, owner: str, stored_at: datetime) -> str:
        """Keep `data` once and `owner`'s claim on it, in one transaction."""
        when = utc_text(stored_at, "the blob's stored_at")

        def put(connection: sqlite3.Connection) -> str:
            return sqlite_blobs.put(connection, data, owner, when)

        return await self._call(f"store a blob of {len(data)} bytes for {owner!r}", put)

    async def get_blob(self, digest: str) -> bytes | None:
        """The blob under `digest`, checked against it, or None."""

        def get(connection: sqlite3.Connection) -> bytes | None:
            return sqlite_blobs.get(connection, digest)

        return await self._call(f"read blob {digest[:16]}", get)

    async def delete_expired(self, kind: RecordKind, before: datetime) -> int:
        """Delete the expired records of `kind` (tasks with the blobs left without a
        claim) in one transaction; how many records went."""
        cutoff = utc_text(before, "the retention cutoff")

        def delete(connection: sqlite3.Connection) -> int:
            if kind is not RecordKind.TASK:
                return sqlite_records.delete_expired(connection, kind, cutoff)
            with transaction(connection):
                deleted = sqlite_tasks.delete_expired(connection, cutoff)
                sqlite_blobs.delete_unclaimed(connection, cutoff)
            return deleted

        return await self._call(f"delete expired {kind} records", delete)

    async def close(self) -> None:
        """Close the connection; later calls raise `StoreError`. Safe to call twice."""
        await self._file.close()

    async def _call[T](self, action: str, work: Callable[[sqlite3.Connection], T]) -> T:
        return await self._file.call(action, work)

    async def _version(self, task_id: str) -> int:
        def read(connection: sqlite3.Connection) -> int:
            return sqlite_tasks.version(connection, task_id) or 0

        return await self._call(f"read the log length of task {task_id!r}", read)


def _prepare_schema(connection: sqlite3.Connection, path: Path) -> None:
    """Create or check the schema."""
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            version_row: tuple[object, ...] = connection.execute("PRAGMA user_version").fetchone()
            found = integer_of(version_row[0], "user_version")
            if found > SCHEMA_VERSION:
                raise StoreError(
                    f"sqlite store {path}: schema version {found} is newer than this "
                    f"tiny-harness supports ({SCHEMA_VERSION})"
                )
            for statement in _SCHEMA:
                connection.execute(statement)
            if found < 4:
                sqlite_tasks.move_logs_out_of_rows(connection)
            if found < SCHEMA_VERSION:
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")
    except sqlite3.Error as exc:
        raise StoreError(f"sqlite store {path}: cannot prepare the database: {exc}") from exc


@contextmanager
def _read_transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """One snapshot for several reads, so a count and its page agree."""
    # With autocommit=True, `Connection.commit` and `rollback` are no-ops: say it in SQL.
    connection.execute("BEGIN")
    try:
        yield
    finally:
        if connection.in_transaction:
            connection.execute("ROLLBACK")


def _where(filters: list[str]) -> str:
    return " WHERE " + " AND ".join(filters) if filters else ""

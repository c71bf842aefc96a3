"""`SqliteStore`: the task store in one local SQLite file.

This is the store a single tiny-harness server uses out of the box: no service to run, one
file on disk (mode 0600, since records hold user content). Every call runs on a worker
thread through `asyncio.to_thread`, over one connection guarded by a lock, so the event loop
never blocks on disk.

Limits: it is made for one writer process. WAL mode and a busy timeout let another process
read the file, or briefly contend for it, but nothing coordinates several servers writing the
same file, and there is no replication or backup: the file is the only copy.

A task's `updated_at` column is the time of its last status change (the task's status
timestamp; the record's `updated_at` for a task without one), so a write that changes no
status (the closing write with the event log, say) leaves the task where it was in the
listing. Pagination is by keyset over `(updated_at, id)`, so a page token stays valid as
tasks arrive, but a task whose status changes while a client pages moves ahead of the
cursor and is not shown again in that walk.
"""

from __future__ import annotations

import base64
import binascii
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from google.protobuf import json_format
from pydantic import ValidationError

from tiny_harness.errors import StoreError
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.persistence import sqlite_blobs, sqlite_records
from tiny_harness.harness.persistence.records import Record, RecordKind
from tiny_harness.harness.persistence.sqlite_file import SqliteFile
from tiny_harness.harness.persistence.store import Store, TaskPage, TaskQuery, TaskRecord
from tiny_harness.harness.tasks.extension import TASK_EXT_KEY

SCHEMA_VERSION = 3
"""The schema this module writes, kept in `PRAGMA user_version` (2 added the record
tables, 3 the blob and tool result tables; an older file is upgraded in place by creating
them)."""

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS tasks (
        id TEXT PRIMARY KEY,
        context_id TEXT NOT NULL,
        state INTEGER NOT NULL,
        version INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        json TEXT NOT NULL
    )
    """,
    # Both indexes end in the listing order, so a filtered, paged listing reads one range.
    "CREATE INDEX IF NOT EXISTS tasks_context_id ON tasks (context_id, updated_at, id)",
    "CREATE INDEX IF NOT EXISTS tasks_updated_at ON tasks (updated_at, id)",
    *sqlite_records.schema(),
    *sqlite_blobs.SCHEMA,
)

_UPSERT = """
    INSERT INTO tasks (id, context_id, state, version, updated_at, json)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET
        context_id = excluded.context_id,
        state = excluded.state,
        version = excluded.version,
        updated_at = excluded.updated_at,
        json = excluded.json
    WHERE excluded.version >= tasks.version
"""

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

    @property
    def path(self) -> Path:
        """The database file."""
        return self._file.path

    async def put_task(self, record: TaskRecord) -> None:
        """Upsert the record in one statement; a stored higher version is kept."""
        task = record.task
        if not task.id:
            raise StoreError("cannot store a task record whose task has no id")
        params: tuple[_Param, ...] = (
            task.id,
            task.context_id,
            int(task.status.state),
            record.version,
            _status_changed_at(record),
            record.model_dump_json(),
        )

        def put(connection: sqlite3.Connection) -> None:
            connection.execute(_UPSERT, params)

        await self._call(f"write task {task.id!r}", put)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        """The stored record of `task_id`, or None."""

        def get(connection: sqlite3.Connection) -> str | None:
            row: tuple[object, ...] | None = connection.execute(
                "SELECT json FROM tasks WHERE id = ?", (task_id,)
            ).fetchone()
            return None if row is None else _text(row[0], "json")

        document = await self._call(f"read task {task_id!r}", get)
        return None if document is None else _record(document, task_id)

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
            params.append(_utc_text(query.updated_after, "the query's updated_after"))
        if query.participant is not None:
            filters.append(_PARTICIPANT_FILTER if query.participant else _NO_PARTICIPANTS)
            if query.participant:
                params.append(query.participant)
        page_filters = list(filters)
        page_params = list(params)
        if query.page_token is not None:
            after_updated_at, after_id = _decode_token(query.page_token)
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

        def select(connection: sqlite3.Connection) -> tuple[int, list[tuple[object, ...]]]:
            with _read_transaction(connection):
                count_row: tuple[object, ...] = connection.execute(count_sql, params).fetchone()
                rows: list[tuple[object, ...]] = connection.execute(
                    page_sql, page_params
                ).fetchall()
            return _integer(count_row[0], "count"), rows

        total, rows = await self._call("list tasks", select)
        page = rows[: query.page_size]
        records = tuple(_record(_text(row[2], "json"), _text(row[1], "id")) for row in page)
        next_token = None
        if len(rows) > query.page_size:
            last = page[-1]
            next_token = _encode_token(_text(last[0], "updated_at"), _text(last[1], "id"))
        return TaskPage(records=records, next_page_token=next_token, total_size=total)

    async def put_record(self, record: Record) -> None:
        """Upsert the record in its kind's table; a stored higher version is kept."""
        recorded_at = _utc_text(record.recorded_at, "the record's recorded_at")

        def put(connection: sqlite3.Connection) -> None:
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
        when = _utc_text(stored_at, "the blob's stored_at")

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
        cutoff = _utc_text(before, "the retention cutoff")

        def delete(connection: sqlite3.Connection) -> int:
            if kind is not RecordKind.TASK:
                return sqlite_records.delete_expired(connection, kind, cutoff)
            connection.execute("BEGIN IMMEDIATE")
            try:
                deleted = sqlite_records.delete_expired(connection, kind, cutoff)
                sqlite_blobs.delete_unclaimed(connection, cutoff)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            return deleted

        return await self._call(f"delete expired {kind} records", delete)

    async def close(self) -> None:
        """Close the connection; later calls raise `StoreError`. Safe to call twice."""
        await self._file.close()

    async def _call[T](self, action: str, work: Callable[[sqlite3.Connection], T]) -> T:
        return await self._file.call(action, work)


def _prepare_schema(connection: sqlite3.Connection, path: Path) -> None:
    """Create or check the schema."""
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            version_row: tuple[object, ...] = connection.execute("PRAGMA user_version").fetchone()
            found = _integer(version_row[0], "user_version")
            if found > SCHEMA_VERSION:
                raise StoreError(
                    f"sqlite store {path}: schema version {found} is newer than this "
                    f"tiny-harness supports ({SCHEMA_VERSION})"
                )
            for statement in _SCHEMA:
                connection.execute(statement)
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


def _utc_text(moment: datetime, what: str) -> str:
    """`moment` as fixed-width ISO-8601 UTC text, whose text order is its time order."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise StoreError(f"{what} must be timezone-aware, got the naive {moment.isoformat()}")
    try:
        utc = moment.astimezone(UTC)
    except OverflowError as exc:
        raise StoreError(f"{what} {moment.isoformat()} is out of range in UTC") from exc
    return utc.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _status_changed_at(record: TaskRecord) -> str:
    """The listing time of `record`: its task's status timestamp, else its `updated_at`."""
    written = _utc_text(record.updated_at, "the record's updated_at")
    status = record.task.status
    if not status.HasField("timestamp"):
        return written
    try:
        changed = status.timestamp.ToDatetime(tzinfo=UTC)
    except (ValueError, OverflowError) as exc:
        raise StoreError(f"the task's status timestamp is out of range: {exc}") from exc
    return _utc_text(changed, "the task's status timestamp")


def _encode_token(updated_at: str, task_id: str) -> str:
    raw = json.dumps([updated_at, task_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode_token(token: str) -> tuple[str, str]:
    """The `(updated_at, id)` a page token carries; `StoreError` if this store did not issue it."""
    malformed = StoreError(f"malformed page token {token[:64]!r}: not issued by this store")
    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4), altchars=b"-_", validate=True)
        value: object = json.loads(raw.decode("utf-8"))
    except (binascii.Error, UnicodeError, ValueError) as exc:
        raise malformed from exc
    if not (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], str)
    ):
        raise malformed
    updated_at, task_id = value[0], value[1]
    try:
        canonical = _utc_text(datetime.fromisoformat(updated_at), "token")
    except (ValueError, StoreError) as exc:
        raise malformed from exc
    if canonical != updated_at:
        raise malformed
    return updated_at, task_id


def _record(document: str, task_id: str) -> TaskRecord:
    # The messages name the problem only: the document itself holds user content.
    unreadable = f"stored record of task {task_id!r} is unreadable"
    try:
        return TaskRecord.model_validate_json(document)
    except ValidationError as exc:
        raise StoreError(f"{unreadable}: {exc.error_count()} validation error(s)") from exc
    except (json_format.Error, TypeError) as exc:
        # `ProtoJson` lets protobuf's ParseError, and its own TypeError, through unwrapped.
        raise StoreError(f"{unreadable}: {type(exc).__name__}") from exc


def _text(value: object, column: str) -> str:
    if not isinstance(value, str):
        raise StoreError(f"column {column} holds {type(value).__name__}, expected text")
    return value


def _integer(value: object, column: str) -> int:
    if not isinstance(value, int):
        raise StoreError(f"column {column} holds {type(value).__name__}, expected an integer")
    return value

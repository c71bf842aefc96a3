"""`PostgresStore`: the task store in a PostgreSQL database several hosts share.

The store for a deployment of several `serve`, `server` and `worker` processes: every one
of them reads and writes the same tables, so a task started through one server is read,
listed and followed through any other. It speaks psycopg 3 (async) through a connection
pool, and creates or migrates its schema when it first connects (`postgres_schema`: a
versioned runner under an advisory lock, safe when several processes start at once). The
SQL lives with its tables: `postgres_tasks` (tasks, their logs, histories and
conversations) and `postgres_records` (records, blobs, purges).

Readers wait for a log to grow (`wait_for_log`) without polling hard: every write
notifies `postgres_tasks.LOG_CHANNEL` when it commits, and each store process LISTENs on
one connection of its own and wakes its waiters (`LogWaiters`, whose poll stays the
safety net should that connection drop). Its URL holds a password: it is never put in an
error, a log line or a record; errors name the host and database only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Final

import psycopg
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool

from tiny_harness.errors import StoreError
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.models.llm import InputItem
from tiny_harness.harness.persistence import postgres_records, postgres_tasks
from tiny_harness.harness.persistence.documents import (
    decode_page_token,
    encode_page_token,
    parse_task_record,
    utc_text,
)
from tiny_harness.harness.persistence.log_waiters import LogWaiters
from tiny_harness.harness.persistence.postgres_schema import migrate
from tiny_harness.harness.persistence.postgres_tasks import Connection
from tiny_harness.harness.persistence.records import Record, RecordKind
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

logger = logging.getLogger(__name__)

CONNECT_SECONDS: Final = 10
"""How long the store waits for the database when it first connects."""

_PARTICIPANTS = (
    "(CASE WHEN json_typeof(tasks.json -> 'task' -> 'metadata' -> %s -> 'participants') "
    "= 'array' THEN tasks.json -> 'task' -> 'metadata' -> %s -> 'participants' "
    "ELSE '[]'::json END)"
)
"""A task row's participants (the task extension data in its metadata), an array."""
_PARTICIPANT_FILTER = (
    f"EXISTS (SELECT 1 FROM json_array_elements({_PARTICIPANTS}) p WHERE p ->> 'id' = %s)"  # noqa: S608
)
_NO_PARTICIPANTS = f"json_array_length({_PARTICIPANTS}) = 0"


class PostgresStore(Store):
    """A `Store` in the PostgreSQL database at `url` (a libpq URL or conninfo), using at
    most `pool_size` connections plus one that listens. Connects on first use."""

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.ref = EntityRef(kind=EntityKind.STORE, id="postgres")
        self._url = url
        self._pool_size = pool_size
        self.where = location(url)
        """The host and database, for messages (never the password)."""
        self._pool: AsyncConnectionPool[AsyncConnection[tuple[object, ...]]] | None = None
        self._opening = asyncio.Lock()
        self._listener: asyncio.Task[None] | None = None
        self._waiters = LogWaiters()
        self._closed = False

    async def put_task(self, record: TaskRecord) -> None:
        """Upsert the row and replace the history, in one transaction."""
        await self._call(
            f"write task {record.task_id!r}", lambda c: postgres_tasks.put_task(c, record)
        )
        self._waiters.wake(record.task_id, record.version)

    async def get_task(
        self, task_id: str, *, history_length: int | None = None
    ) -> TaskRecord | None:
        """The stored record of `task_id` with its newest history, or None."""
        return await self._call(
            f"read task {task_id!r}", lambda c: postgres_tasks.get(c, task_id, history_length)
        )

    async def write_log(self, write: LogWrite) -> bool:
        """One step of the log in one transaction; wakes the task's waiters."""
        ended = await self._call(
            f"write the log of task {write.task_id!r}", lambda c: postgres_tasks.write_log(c, write)
        )
        self._waiters.wake(write.task_id, write.version)
        return ended

    async def end_task(self, write: LogWrite) -> bool:
        """The ending step, if the log is where it expects; wakes the task's waiters."""
        ended = await self._call(
            f"end task {write.task_id!r}", lambda c: postgres_tasks.end_task(c, write)
        )
        if ended:
            self._waiters.wake(write.task_id, write.version)
        return ended

    async def read_log(self, task_id: str, cursor: int, limit: int = EVENTS_PAGE) -> LogPage:
        """Up to `limit` events from number `cursor` on, with the log's length and whether
        the task is final, in one snapshot."""

        async def read(connection: Connection) -> LogPage:
            async with _snapshot(connection):
                return await postgres_tasks.log_page(connection, task_id, max(cursor, 0), limit)

        return await self._call(f"read the log of task {task_id!r}", read)

    async def conversation(
        self, task_id: str, start: int, end: int, *, picked: Sequence[int] = ()
    ) -> tuple[InputItem, ...]:
        """The items numbered `picked`, then items `start` to `end` (not included)."""
        return await self._call(
            f"read the conversation of task {task_id!r}",
            lambda c: postgres_tasks.conversation(c, task_id, picked, start, end),
        )

    async def purge_task(self, task_id: str) -> Purged | None:
        """Delete the task and all it owns in one transaction, keeping its id."""
        now = datetime.now(UTC)
        return await self._call(
            f"purge task {task_id!r}", lambda c: postgres_records.purge(c, task_id, now)
        )

    async def wait_for_log(self, task_id: str, beyond: int) -> None:
        """Return once the log holds more than `beyond` events: woken by this store's
        writes and by the notifications of other processes' (polling should they stop)."""
        await self._open()
        length = lambda: self._call(  # noqa: E731 - a read the waiters repeat
            f"read the log length of task {task_id!r}", lambda c: postgres_tasks.version(c, task_id)
        )
        await self._waiters.wait(task_id, beyond, length)

    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        """A page of matching records, newest status change first, ties broken by id
        descending; `updated_after` keeps the tasks whose status changed at or after it."""
        filters, params = _filters(query)
        page_filters, page_params = list(filters), list(params)
        if query.page_token is not None:
            after_updated_at, after_id = decode_page_token(query.page_token)
            page_filters.append("(updated_at, id) < (%s, %s)")
            page_params += [datetime.fromisoformat(after_updated_at), after_id]
        page_params.append(query.page_size + 1)
        # Only fixed fragments are joined into the SQL; every value is a parameter.
        count_sql = "SELECT COUNT(*) FROM tasks" + _where_clause(filters)  # noqa: S608
        page_sql = (
            "SELECT updated_at, id, json::text FROM tasks"  # noqa: S608
            + _where_clause(page_filters)
            + " ORDER BY updated_at DESC, id DESC LIMIT %s"
        )

        async def select(connection: Connection) -> tuple[int, list[tuple[object, ...]]]:
            async with _snapshot(connection):
                counted = await (await connection.execute(count_sql, params)).fetchone()
                rows = await (await connection.execute(page_sql, page_params)).fetchall()
                return (0 if counted is None else int(str(counted[0]))), rows

        total, rows = await self._call("list tasks", select)
        records = [parse_task_record(str(row[2]), str(row[1])) for row in rows[: query.page_size]]

        async def histories(connection: Connection) -> None:
            for record in records:
                await postgres_tasks.with_history(connection, record.task, query.history_length)

        await self._call("read the listed tasks' histories", histories)
        next_token = None
        if len(rows) > query.page_size:
            last = rows[query.page_size - 1]
            if not isinstance(last[0], datetime):
                raise StoreError("tasks.updated_at holds no timestamp")
            next_token = encode_page_token(utc_text(last[0], "updated_at"), str(last[1]))
        return TaskPage(records=tuple(records), next_page_token=next_token, total_size=total)

    async def put_record(self, record: Record) -> None:
        """Upsert the record in its kind's table; a stored higher version is kept."""
        await self._call(
            f"write {record.kind} record {record.key!r}",
            lambda c: postgres_records.upsert(c, record),
        )

    async def records(self, kind: RecordKind, task_id: str) -> tuple[Record, ...]:
        """The task's records of `kind`, oldest first."""
        return await self._call(
            f"read {kind} records of task {task_id!r}",
            lambda c: postgres_records.select(c, kind, task_id),
        )

    async def record(self, kind: RecordKind, key: str) -> Record | None:
        """The record of `kind` under `key`, or None."""
        return await self._call(
            f"read {kind} record {key!r}", lambda c: postgres_records.get(c, kind, key)
        )

    async def put_blob(self, data: bytes, *, owner: str, stored_at: datetime) -> str:
        """Keep `data` once and `owner`'s claim on it, in one transaction."""
        utc_text(stored_at, "the blob's stored_at")  # refuses a naive time, as SQLite does
        return await self._call(
            f"store a blob of {len(data)} bytes for {owner!r}",
            lambda c: postgres_records.put_blob(c, data, owner, stored_at),
        )

    async def get_blob(self, digest: str) -> bytes | None:
        """The blob under `digest`, checked against it, or None."""
        return await self._call(
            f"read blob {digest[:16]}", lambda c: postgres_records.get_blob(c, digest)
        )

    async def delete_expired(self, kind: RecordKind, before: datetime) -> int:
        """Delete the expired records of `kind` (tasks with the blobs left without a
        claim) in one transaction; how many records went."""
        utc_text(before, "the retention cutoff")

        async def delete(connection: Connection) -> int:
            if kind is not RecordKind.TASK:
                return await postgres_records.delete_expired(connection, kind, before)
            async with connection.transaction():
                deleted = await postgres_tasks.delete_expired(connection, before)
                await postgres_records.delete_unclaimed(connection, before)
            return deleted

        return await self._call(f"delete expired {kind} records", delete)

    async def close(self) -> None:
        """Stop listening and close the pool; later calls raise `StoreError`. Safe to call
        twice."""
        self._closed = True
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    async def call[T](self, action: str, work: Callable[[Connection], Awaitable[T]]) -> T:
        """Run `work` on a pooled connection; `action` names it in errors (for the push
        configs, which keep their table in this database)."""
        return await self._call(action, work)

    async def _call[T](self, action: str, work: Callable[[Connection], Awaitable[T]]) -> T:
        pool = await self._open()
        try:
            async with pool.connection() as connection:
                return await work(connection)
        except psycopg.Error as exc:
            raise StoreError(f"postgres store {self.where}: {action} failed: {exc}") from exc

    async def _open(self) -> AsyncConnectionPool[AsyncConnection[tuple[object, ...]]]:
        """The pool, opened (and the schema migrated) on first use."""
        if self._closed:
            raise StoreError(f"postgres store {self.where} is closed")
        if self._pool is not None:
            return self._pool
        async with self._opening:
            if self._pool is None:
                self._pool = await self._connect()
                self._listener = asyncio.create_task(self._listen(), name="postgres-listen")
        return self._pool

    async def _connect(self) -> AsyncConnectionPool[AsyncConnection[tuple[object, ...]]]:
        try:
            async with await AsyncConnection.connect(
                self._url, autocommit=True, connect_timeout=CONNECT_SECONDS
            ) as connection:
                await migrate(connection, self.where)
            pool: AsyncConnectionPool[AsyncConnection[tuple[object, ...]]] = AsyncConnectionPool(
                self._url,
                min_size=1,
                max_size=self._pool_size,
                open=False,
                kwargs={"autocommit": True},
                name="tiny-harness-store",
            )
            await pool.open(wait=True, timeout=CONNECT_SECONDS)
        except psycopg.Error as exc:
            raise StoreError(f"postgres store {self.where}: cannot connect: {exc}") from exc
        return pool

    async def _listen(self) -> None:
        """Wake this process's waiters on other processes' writes, reconnecting after a
        failure; the waiters poll meanwhile."""
        pause = 1.0
        while not self._closed:
            try:
                async for task_id, length in self._notifications():
                    pause = 1.0
                    self._waiters.wake(task_id, length)
            except psycopg.Error as exc:
                logger.warning("postgres store %s: listening failed: %s", self.where, exc)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 30.0)

    async def _notifications(self) -> AsyncIterator[tuple[str, int]]:
        async with await AsyncConnection.connect(
            self._url, autocommit=True, connect_timeout=CONNECT_SECONDS
        ) as connection:
            await connection.execute(f"LISTEN {postgres_tasks.LOG_CHANNEL}")
            async for notify in connection.notifies():
                task_id, _, length = notify.payload.rpartition(" ")
                if task_id and length.isdigit():
                    yield task_id, int(length)


def _filters(query: TaskQuery) -> tuple[list[str], list[object]]:
    filters: list[str] = []
    params: list[object] = []
    if query.context_id is not None:
        filters.append("context_id = %s")
        params.append(query.context_id)
    if query.state is not None:
        filters.append("state = %s")
        params.append(query.state)
    if query.updated_after is not None:
        utc_text(query.updated_after, "the query's updated_after")
        filters.append("updated_at >= %s")
        params.append(query.updated_after)
    if query.participant is not None:
        filters.append(_PARTICIPANT_FILTER if query.participant else _NO_PARTICIPANTS)
        params += [TASK_EXT_KEY, TASK_EXT_KEY]
        if query.participant:
            params.append(query.participant)
    return filters, params


def _where_clause(filters: list[str]) -> str:
    return " WHERE " + " AND ".join(filters) if filters else ""


@contextlib.asynccontextmanager
async def _snapshot(connection: Connection) -> AsyncIterator[None]:
    """One snapshot for several reads, so a count and its page (a log's length and its
    events) agree."""
    async with connection.transaction():
        await connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def location(url: str) -> str:
    """Where the database is, for messages: host and database name, no credentials."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:
        return "(unreadable url)"
    host = str(parts.get("host") or "localhost")
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"{host}{port}/{parts.get('dbname') or ''}"

"""The SQL of `PostgresStore`'s tasks: each task's row, its event log, history and
conversation (the tables are `postgres_schema`'s).

A task's `updated_at` column is the time of its last status change (its status timestamp;
the record's `updated_at` for a task without one), the listing's order. A step of the log
is one transaction that first locks the task's row, so a workflow's write and a server's
`end_task` for the same task are never interleaved: its events, messages and items (kept
if already there, so a retried write changes nothing) and the row (unless a higher version
is stored), then a notification on `LOG_CHANNEL` that other processes' readers wake on.
The functions run on a connection the store hands them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Final

from a2a.types import Message, StreamResponse, Task
from psycopg import AsyncConnection

from tiny_harness.errors import StoreError
from tiny_harness.harness.models.llm import InputItem
from tiny_harness.harness.persistence import documents
from tiny_harness.harness.persistence.documents import (
    conversation_items,
    item_json,
    parse_proto,
    parse_task_record,
    proto_json,
    utc_text,
    without_history,
)
from tiny_harness.harness.persistence.store import LogPage, LogWrite, TaskRecord
from tiny_harness.harness.tasks.states import FINAL

type Connection = AsyncConnection[tuple[object, ...]]

LOG_CHANNEL: Final = "tiny_harness_log"
"""Where a write announces `<task id> <log length>` once it commits."""

FINALS: Final = tuple(int(state) for state in sorted(FINAL))

_UPSERT: Final = """
    INSERT INTO tasks (id, context_id, state, version, updated_at, json)
    VALUES (%s, %s, %s, %s, %s, %s)
    ON CONFLICT (id) DO UPDATE SET
        context_id = excluded.context_id,
        state = excluded.state,
        version = excluded.version,
        updated_at = excluded.updated_at,
        json = excluded.json
    WHERE excluded.version >= tasks.version
"""


async def put_task(connection: Connection, record: TaskRecord) -> None:
    """The task's row and its whole history (replacing the stored one), unless a higher
    version is stored."""
    async with connection.transaction():
        if await is_purged(connection, record.task_id):
            return
        head = without_history(record.task)
        if await _put_row(connection, head, record.version, record.updated_at):
            await connection.execute(
                "DELETE FROM task_messages WHERE task_id = %s", (record.task_id,)
            )
            await _add_messages(connection, record.task_id, 0, record.task.history)
            await announce(connection, record.task_id)


async def write_log(connection: Connection, write: LogWrite) -> bool:
    """One step of the log; whether it ended the task (see `Store.write_log`)."""
    async with connection.transaction():
        if await is_purged(connection, write.task_id):
            return False  # a step that was on its way when the task was purged
        before = await _locked(connection, write.task_id)
        await _add_step(connection, write)
        after = await _locked(connection, write.task_id)
        await announce(connection, write.task_id)
    was_final = before is not None and before[1] in FINAL
    return not was_final and after is not None and after[1] in FINAL


async def end_task(connection: Connection, write: LogWrite) -> bool:
    """The step that ends the task, if the stored log ends just before it and the stored
    task is not final; whether it was written."""
    async with connection.transaction():
        row = await _locked(connection, write.task_id)
        if row is None or row[0] != write.first_seq or row[1] in FINAL:
            return False
        cursor = await connection.execute(
            "SELECT COALESCE(MAX(n) + 1, 0) FROM task_messages WHERE task_id = %s",
            (write.task_id,),
        )
        first = _integer(await cursor.fetchone())
        await _add_step(connection, write.model_copy(update={"first_message": first}))
        await announce(connection, write.task_id)
    return True


async def get(
    connection: Connection, task_id: str, history_length: int | None
) -> TaskRecord | None:
    """The task's record with its `history_length` newest messages (None: all)."""
    cursor = await connection.execute("SELECT json::text FROM tasks WHERE id = %s", (task_id,))
    row = await cursor.fetchone()
    if row is None:
        return None
    record = parse_task_record(str(row[0]), task_id)
    await with_history(connection, record.task, history_length)
    return record


async def with_history(connection: Connection, task: Task, history_length: int | None) -> None:
    """Put the task's `history_length` newest stored messages (None: all) in `task`."""
    if history_length == 0:
        return
    cursor = await connection.execute(
        "SELECT json FROM (SELECT n, json FROM task_messages WHERE task_id = %s "
        "ORDER BY n DESC LIMIT %s) newest ORDER BY n",
        (task.id, history_length),
    )
    rows = await cursor.fetchall()
    task.history.extend(parse_proto(Message, str(row[0]), task.id) for row in rows)


async def log_page(connection: Connection, task_id: str, cursor: int, limit: int) -> LogPage:
    """Up to `limit` events from `cursor` on, without a gap, with the log's length and
    whether the task is final. Call inside a snapshot, so the reads agree."""
    found = await connection.execute("SELECT version, state FROM tasks WHERE id = %s", (task_id,))
    row = await found.fetchone()
    if row is None:
        return LogPage(events=(), length=0, final=False)
    length, final = _int(row[0]), _int(row[1]) in FINAL
    if cursor >= length:
        return LogPage(events=(), length=length, final=final)
    read = await connection.execute(
        "SELECT seq, json FROM task_events WHERE task_id = %s AND seq >= %s ORDER BY seq LIMIT %s",
        (task_id, cursor, limit),
    )
    events: list[StreamResponse] = []
    for expected, event in enumerate(await read.fetchall(), start=cursor):
        if _int(event[0]) != expected:
            break  # a reader never takes a later event for the one it waits for
        events.append(parse_proto(StreamResponse, str(event[1]), task_id))
    return LogPage(events=tuple(events), length=length, final=final)


async def conversation(
    connection: Connection, task_id: str, picked: Sequence[int], start: int, end: int
) -> tuple[InputItem, ...]:
    """The task's conversation items `picked` (in that order), then `start` to `end` (not
    included); `StoreError` when one is missing."""
    cursor = await connection.execute(
        "SELECT n, json FROM task_items WHERE task_id = %s "
        "AND (n = ANY(%s) OR (n >= %s AND n < %s))",
        (task_id, list(picked), start, end),
    )
    found = {_int(row[0]): str(row[1]) for row in await cursor.fetchall()}
    return conversation_items(found, picked, start, end, task_id)


async def version(connection: Connection, task_id: str) -> int:
    """How many events the task's log holds (0 for a task the store never saw)."""
    cursor = await connection.execute("SELECT version FROM tasks WHERE id = %s", (task_id,))
    row = await cursor.fetchone()
    return 0 if row is None else _int(row[0])


async def delete_expired(connection: Connection, before: datetime) -> int:
    """Delete the final tasks whose status last changed before `before`, with their
    events, history and conversation; how many tasks went. Call inside a transaction."""
    cursor = await connection.execute(
        "DELETE FROM tasks WHERE updated_at < %s AND state = ANY(%s) RETURNING id",
        (before, list(FINALS)),
    )
    gone = [str(row[0]) for row in await cursor.fetchall()]
    for table in ("task_events", "task_messages", "task_items"):
        await connection.execute(
            f"DELETE FROM {table} WHERE task_id = ANY(%s)",  # noqa: S608 - fixed names
            (gone,),
        )
    return len(gone)


async def is_purged(connection: Connection, task_id: str) -> bool:
    """Whether `task_id`, or the task whose own workflow it is, was purged."""
    task = task_id.split(".", 1)[0]
    cursor = await connection.execute(
        "SELECT 1 FROM purged_tasks WHERE task_id IN (%s, %s)", (task_id, task)
    )
    return await cursor.fetchone() is not None


async def announce(connection: Connection, task_id: str) -> None:
    """Tell other processes the task's log length once this transaction commits."""
    await connection.execute(
        "SELECT pg_notify(%s, id || ' ' || version) FROM tasks WHERE id = %s",
        (LOG_CHANNEL, task_id),
    )


async def _add_step(connection: Connection, write: LogWrite) -> None:
    async with connection.cursor() as cursor:
        await cursor.executemany(
            "INSERT INTO task_events (task_id, seq, json) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            [
                (write.task_id, write.first_seq + i, proto_json(e))
                for i, e in enumerate(write.events)
            ],
        )
        await cursor.executemany(
            "INSERT INTO task_items (task_id, n, json) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            [
                (write.task_id, write.first_item + i, item_json(it))
                for i, it in enumerate(write.items)
            ],
        )
    await _add_messages(connection, write.task_id, write.first_message, write.messages)
    await _put_row(connection, without_history(write.task), write.version, write.updated_at)


async def _add_messages(
    connection: Connection, task_id: str, first: int, messages: Sequence[Message]
) -> None:
    async with connection.cursor() as cursor:
        await cursor.executemany(
            "INSERT INTO task_messages (task_id, n, json) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            [(task_id, first + i, proto_json(m)) for i, m in enumerate(messages)],
        )


async def _put_row(connection: Connection, task: Task, version: int, updated_at: datetime) -> bool:
    """Upsert the task's row; whether it was written (no higher version was stored)."""
    if not task.id:
        raise StoreError("cannot store a task record whose task has no id")
    utc_text(updated_at, "the record's updated_at")  # refuses a naive time
    record = TaskRecord(task=task, version=version, updated_at=updated_at)
    params = (
        task.id,
        task.context_id,
        int(task.status.state),
        version,
        documents.status_changed_at(task, updated_at),
        record.model_dump_json(),
    )
    cursor = await connection.execute(_UPSERT, params)
    return cursor.rowcount > 0


async def _locked(connection: Connection, task_id: str) -> tuple[int, int] | None:
    """The task's version and state, its row locked to the end of the transaction."""
    cursor = await connection.execute(
        "SELECT version, state FROM tasks WHERE id = %s FOR UPDATE", (task_id,)
    )
    row = await cursor.fetchone()
    return None if row is None else (_int(row[0]), _int(row[1]))


def _integer(row: tuple[object, ...] | None) -> int:
    return 0 if row is None else _int(row[0])


def _int(value: object) -> int:
    if not isinstance(value, int):
        raise StoreError(f"a column holds {type(value).__name__}, expected an integer")
    return value

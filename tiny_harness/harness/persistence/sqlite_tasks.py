"""The SQL of `SqliteStore`'s tasks: each task's row, its event log and its history.

    tasks          id ─ context_id ─ state ─ version ─ updated_at ─ json (no history)
    task_events    task_id ─ seq ─ json      the stream, numbered from 0
    task_messages  task_id ─ n ─ json        the history, numbered from 0
    task_items     task_id ─ n ─ json        the conversation, numbered from 0

A task's `updated_at` column is the time of its last status change (its status timestamp;
the record's `updated_at` for a task without one), the listing's order. A step of the log
(`write_log`) is one transaction: its events, messages and items (kept if already there,
so a retried write changes nothing) and the task's row (unless a higher version is stored). The
functions run on a connection the store hands them, under its lock.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Final

from a2a.types import Message, StreamResponse, Task
from pydantic import BaseModel

from tiny_harness.errors import StoreError
from tiny_harness.harness.models.llm import InputItem
from tiny_harness.harness.persistence import documents
from tiny_harness.harness.persistence.documents import (
    conversation_items,
    item_json,
    parse_proto,
    proto_json,
    utc_text,
    validated,
    without_history,
)
from tiny_harness.harness.persistence.sqlite_file import integer_of, text_of, transaction
from tiny_harness.harness.persistence.sqlite_purge import is_purged
from tiny_harness.harness.persistence.store import LogPage, LogWrite, TaskRecord
from tiny_harness.harness.protocol.proto_fields import ProtoJson
from tiny_harness.harness.tasks.states import FINAL

SCHEMA: Final = (
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
    """
    CREATE TABLE IF NOT EXISTS task_events (
        task_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (task_id, seq)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS task_messages (
        task_id TEXT NOT NULL,
        n INTEGER NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (task_id, n)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS task_items (
        task_id TEXT NOT NULL,
        n INTEGER NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (task_id, n)
    )
    """,
)

_FINALS: Final = ", ".join(str(int(state)) for state in sorted(FINAL))

_UPSERT: Final = """
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


def put_task(connection: sqlite3.Connection, record: TaskRecord) -> None:
    """The task's row and its whole history (replacing the stored one), unless a higher
    version is stored."""
    with transaction(connection):
        if is_purged(connection, record.task_id):
            return
        if _put_row(connection, without_history(record.task), record.version, record.updated_at):
            connection.execute("DELETE FROM task_messages WHERE task_id = ?", (record.task_id,))
            _add_messages(connection, record.task_id, 0, record.task.history)


def write_log(connection: sqlite3.Connection, write: LogWrite) -> bool:
    """One step of the log; whether it ended the task (see `Store.write_log`)."""
    with transaction(connection):
        if is_purged(connection, write.task_id):
            return False  # a step that was on its way when the task was purged
        before = _state(connection, write.task_id)
        _add_step(connection, write)
        after = _state(connection, write.task_id)
    return (before is None or before not in FINAL) and after in FINAL


def end_task(connection: sqlite3.Connection, write: LogWrite) -> bool:
    """The step that ends the task, if the stored log ends just before it and the stored
    task is not final; whether it was written."""
    with transaction(connection):
        row: tuple[object, ...] | None = connection.execute(
            "SELECT version, state FROM tasks WHERE id = ?", (write.task_id,)
        ).fetchone()
        if row is None or row[0] != write.first_seq or row[1] in FINAL:
            return False
        after: tuple[object, ...] = connection.execute(
            "SELECT COALESCE(MAX(n) + 1, 0) FROM task_messages WHERE task_id = ?",
            (write.task_id,),
        ).fetchone()
        first = integer_of(after[0], "n")
        _add_step(connection, write.model_copy(update={"first_message": first}))
    return True


def get(
    connection: sqlite3.Connection, task_id: str, history_length: int | None
) -> TaskRecord | None:
    """The task's record with its `history_length` newest messages (None: all)."""
    row: tuple[object, ...] | None = connection.execute(
        "SELECT json FROM tasks WHERE id = ?", (task_id,)
    ).fetchone()
    if row is None:
        return None
    record = parse_record(text_of(row[0], "json"), task_id)
    with_history(connection, record.task, history_length)
    return record


def with_history(connection: sqlite3.Connection, task: Task, history_length: int | None) -> None:
    """Put the task's `history_length` newest stored messages (None: all) in `task`."""
    if history_length == 0:
        return
    limit = -1 if history_length is None else history_length
    rows: list[tuple[object, ...]] = connection.execute(
        "SELECT json FROM (SELECT n, json FROM task_messages WHERE task_id = ? "
        "ORDER BY n DESC LIMIT ?) ORDER BY n",
        (task.id, limit),
    ).fetchall()
    task.history.extend(parse_proto(Message, text_of(r[0], "json"), task.id) for r in rows)


def events(
    connection: sqlite3.Connection, task_id: str, cursor: int, limit: int
) -> tuple[StreamResponse, ...]:
    """Up to `limit` events from number `cursor` on, without a gap: a reader never takes
    a later event for the one it waits for."""
    rows: list[tuple[object, ...]] = connection.execute(
        "SELECT seq, json FROM task_events WHERE task_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
        (task_id, cursor, limit),
    ).fetchall()
    found: list[StreamResponse] = []
    for expected, row in enumerate(rows, start=cursor):
        if integer_of(row[0], "seq") != expected:
            break
        found.append(parse_proto(StreamResponse, text_of(row[1], "json"), task_id))
    return tuple(found)


def conversation(
    connection: sqlite3.Connection, task_id: str, picked: Sequence[int], start: int, end: int
) -> tuple[InputItem, ...]:
    """The task's conversation items `picked` (in that order), then `start` to `end` (not
    included); `StoreError` when one is missing."""
    found: dict[int, str] = {}
    if picked:
        marks = ", ".join("?" * len(picked))
        rows: list[tuple[object, ...]] = connection.execute(
            f"SELECT n, json FROM task_items WHERE task_id = ? AND n IN ({marks})",  # noqa: S608
            (task_id, *picked),
        ).fetchall()
        found |= {integer_of(row[0], "n"): text_of(row[1], "json") for row in rows}
    rows = connection.execute(
        "SELECT n, json FROM task_items WHERE task_id = ? AND n >= ? AND n < ?",
        (task_id, start, end),
    ).fetchall()
    found |= {integer_of(row[0], "n"): text_of(row[1], "json") for row in rows}
    return conversation_items(found, picked, start, end, task_id)


def log_page(connection: sqlite3.Connection, task_id: str, cursor: int, limit: int) -> LogPage:
    """`events` from `cursor` on, with the log's length and whether the task is final.
    Call inside a read transaction, so the three agree."""
    row: tuple[object, ...] | None = connection.execute(
        "SELECT version, state FROM tasks WHERE id = ?", (task_id,)
    ).fetchone()
    if row is None:
        return LogPage(events=(), length=0, final=False)
    length = integer_of(row[0], "version")
    final = integer_of(row[1], "state") in FINAL
    found = events(connection, task_id, cursor, limit) if cursor < length else ()
    return LogPage(events=found, length=length, final=final)


def version(connection: sqlite3.Connection, task_id: str) -> int | None:
    """How many events the task's log holds, or None for a task the store never saw."""
    row: tuple[object, ...] | None = connection.execute(
        "SELECT version FROM tasks WHERE id = ?", (task_id,)
    ).fetchone()
    return None if row is None else integer_of(row[0], "version")


def delete_expired(connection: sqlite3.Connection, before: str) -> int:
    """Delete the final tasks whose status last changed before `before`, with their events
    and history; how many tasks went. Call inside a transaction."""
    rows: list[tuple[object, ...]] = connection.execute(
        f"DELETE FROM tasks WHERE updated_at < ? AND state IN ({_FINALS}) RETURNING id",  # noqa: S608
        (before,),
    ).fetchall()
    gone = [(text_of(row[0], "id"),) for row in rows]
    connection.executemany("DELETE FROM task_events WHERE task_id = ?", gone)
    connection.executemany("DELETE FROM task_messages WHERE task_id = ?", gone)
    connection.executemany("DELETE FROM task_items WHERE task_id = ?", gone)
    return len(gone)


def parse_record(document: str, task_id: str) -> TaskRecord:
    """A stored task row's record; `StoreError` naming the problem, never the content."""
    return documents.parse_task_record(document, task_id)


class _LegacyRecord(BaseModel):
    """A task row as schema versions 1 to 3 wrote it: the history inside the task, and the
    whole event log in the row once the task had ended."""

    task: ProtoJson[Task]
    version: int
    updated_at: datetime
    events: tuple[ProtoJson[StreamResponse], ...] = ()


def move_logs_out_of_rows(connection: sqlite3.Connection) -> None:
    """Upgrade rows written by schema versions 1 to 3: their history and events move to
    their own tables, the row keeps the task without them. Call inside a transaction."""
    rows: list[tuple[object, ...]] = connection.execute("SELECT id, json FROM tasks").fetchall()
    for row in rows:
        task_id = text_of(row[0], "id")
        legacy = validated(_LegacyRecord, text_of(row[1], "json"), task_id)
        _add_messages(connection, task_id, 0, legacy.task.history)
        connection.executemany(
            "INSERT OR IGNORE INTO task_events (task_id, seq, json) VALUES (?, ?, ?)",
            [(task_id, seq, proto_json(e)) for seq, e in enumerate(legacy.events)],
        )
        record = TaskRecord(
            task=without_history(legacy.task), version=legacy.version, updated_at=legacy.updated_at
        )
        connection.execute(
            "UPDATE tasks SET json = ? WHERE id = ?", (record.model_dump_json(), task_id)
        )


def status_changed_at(task: Task, updated_at: datetime) -> str:
    """A task's listing time as the column holds it: its status timestamp, else
    `updated_at`, as `utc_text`."""
    return utc_text(documents.status_changed_at(task, updated_at), "the task's listing time")


def _add_step(connection: sqlite3.Connection, write: LogWrite) -> None:
    connection.executemany(
        "INSERT OR IGNORE INTO task_events (task_id, seq, json) VALUES (?, ?, ?)",
        [(write.task_id, write.first_seq + i, proto_json(e)) for i, e in enumerate(write.events)],
    )
    _add_messages(connection, write.task_id, write.first_message, write.messages)
    connection.executemany(
        "INSERT OR IGNORE INTO task_items (task_id, n, json) VALUES (?, ?, ?)",
        [
            (write.task_id, write.first_item + i, item_json(item))
            for i, item in enumerate(write.items)
        ],
    )
    _put_row(connection, without_history(write.task), write.version, write.updated_at)


def _add_messages(
    connection: sqlite3.Connection, task_id: str, first: int, messages: Sequence[Message]
) -> None:
    connection.executemany(
        "INSERT OR IGNORE INTO task_messages (task_id, n, json) VALUES (?, ?, ?)",
        [(task_id, first + i, proto_json(m)) for i, m in enumerate(messages)],
    )


def _put_row(
    connection: sqlite3.Connection, task: Task, version: int, updated_at: datetime
) -> bool:
    """Upsert the task's row; whether it was written (no higher version was stored)."""
    if not task.id:
        raise StoreError("cannot store a task record whose task has no id")
    record = TaskRecord(task=task, version=version, updated_at=updated_at)
    params = (
        task.id,
        task.context_id,
        int(task.status.state),
        version,
        status_changed_at(task, updated_at),
        record.model_dump_json(),
    )
    return connection.execute(_UPSERT, params).rowcount > 0


def _state(connection: sqlite3.Connection, task_id: str) -> int | None:
    row: tuple[object, ...] | None = connection.execute(
        "SELECT state FROM tasks WHERE id = ?", (task_id,)
    ).fetchone()
    return None if row is None else integer_of(row[0], "state")

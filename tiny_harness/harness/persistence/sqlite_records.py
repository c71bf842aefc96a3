"""The SQL of `SqliteStore`'s task-scoped record kinds: plans, state, inbox audit, compactions,
channel messages and stored tool results.

One table per kind, all of one shape: the record's key, its task, its version, when it was
recorded (fixed-width UTC text, so text order is time order) and the record as JSON. The
functions run on a connection the store hands them, under its lock.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from tiny_harness.harness.persistence.documents import (
    OUTLIVE_THEIR_TASK,
    RECORD_TABLES,
    parse_record,
    record_table,
)
from tiny_harness.harness.persistence.records import Record, RecordKind
from tiny_harness.harness.tasks.states import FINAL

TABLES: Final = RECORD_TABLES


def schema() -> tuple[str, ...]:
    """CREATE statements for every record table and its indexes."""
    statements: list[str] = []
    for table in TABLES.values():
        statements += [
            f"""
            CREATE TABLE IF NOT EXISTS {table} (
                key TEXT PRIMARY KEY,
                task_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                recorded_at TEXT NOT NULL,
                json TEXT NOT NULL
            )
            """,
            f"CREATE INDEX IF NOT EXISTS {table}_task ON {table} (task_id, recorded_at, key)",
            f"CREATE INDEX IF NOT EXISTS {table}_recorded_at ON {table} (recorded_at)",
        ]
    return tuple(statements)


table_of = record_table


def upsert(connection: sqlite3.Connection, record: Record, recorded_at: str) -> None:
    """Insert or replace `record` under its key unless a higher version is stored."""
    table = table_of(RecordKind(record.kind))
    connection.execute(
        f"""
        INSERT INTO {table} (key, task_id, version, recorded_at, json) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET
            task_id = excluded.task_id, version = excluded.version,
            recorded_at = excluded.recorded_at, json = excluded.json
        WHERE excluded.version >= {table}.version
        """,  # noqa: S608 - the table name is one of TABLES' fixed values
        (record.key, record.task_id, record.version, recorded_at, record.model_dump_json()),
    )


def select(connection: sqlite3.Connection, kind: RecordKind, task_id: str) -> tuple[Record, ...]:
    """The task's records of `kind`, oldest first."""
    table = table_of(kind)
    rows: list[tuple[object, ...]] = connection.execute(
        f"SELECT key, json FROM {table} WHERE task_id = ? ORDER BY recorded_at, key",  # noqa: S608
        (task_id,),
    ).fetchall()
    return tuple(parse_record(str(row[1]), str(row[0])) for row in rows)


def get(connection: sqlite3.Connection, kind: RecordKind, key: str) -> Record | None:
    """The record of `kind` under `key`, or None."""
    table = table_of(kind)
    row: tuple[object, ...] | None = connection.execute(
        f"SELECT json FROM {table} WHERE key = ?",  # noqa: S608
        (key,),
    ).fetchone()
    return None if row is None else parse_record(str(row[0]), key)


def delete_expired(connection: sqlite3.Connection, kind: RecordKind, before: str) -> int:
    """Delete the records of `kind` older than `before`; a running task keeps its own.

    A plan or state record counts from its task's terminal state as the task does: it goes
    once both it and its final task were last written before `before` (or, its task unknown
    to the store, by its own age), never while its task runs.
    """
    finals = ", ".join(str(int(state)) for state in sorted(FINAL))
    params: tuple[str, ...] = (before,)
    if kind is RecordKind.TASK:
        sql = f"DELETE FROM tasks WHERE updated_at < ? AND state IN ({finals})"  # noqa: S608
    else:
        table = table_of(kind)
        sql = f"DELETE FROM {table} WHERE recorded_at < ?"  # noqa: S608
        if kind in OUTLIVE_THEIR_TASK:
            # A plan last changed long before its task ended must not go at the task's end.
            sql += (
                " AND NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.id = "  # noqa: S608
                f"{table}.task_id AND (tasks.state NOT IN ({finals}) OR tasks.updated_at >= ?))"
            )
            params = (before, before)
    return connection.execute(sql, params).rowcount

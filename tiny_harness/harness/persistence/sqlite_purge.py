"""The SQL of `SqliteStore.purge_task`: everything of one task deleted at once, its id kept.

    purged_tasks  task_id ─ purged_at     so a write that was on its way is dropped

A task's own workflows (its stand-ins `<task>.sub-N`, its couriers `<task>.push.<id>`) store
under ids that start with the task's id and a dot: their records and blob claims go with it.
The functions run on a connection the store hands them, under its lock.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from tiny_harness.harness.persistence.sqlite_file import transaction
from tiny_harness.harness.persistence.sqlite_records import TABLES
from tiny_harness.harness.persistence.store import Purged

SCHEMA: Final = (
    """
    CREATE TABLE IF NOT EXISTS purged_tasks (
        task_id TEXT PRIMARY KEY,
        purged_at TEXT NOT NULL
    )
    """,
)

_OWNED: Final = "(task_id = ? OR substr(task_id, 1, ?) = ?)"
"""The task's rows and those of its own workflows; `substr`, not LIKE, so no id is a
pattern."""


def purge(connection: sqlite3.Connection, task_id: str, purged_at: str) -> Purged | None:
    """Delete the task and all it owns in one transaction; None when the store never held
    the task (nothing is deleted then)."""
    owned = (task_id, len(task_id) + 1, f"{task_id}.")
    with transaction(connection):
        if connection.execute("SELECT 1 FROM tasks WHERE id = ?", (task_id,)).fetchone() is None:
            return None
        counts = {
            table: connection.execute(
                f"DELETE FROM {table} WHERE task_id = ?",  # noqa: S608 (fixed table names)
                (task_id,),
            ).rowcount
            for table in ("task_events", "task_messages", "task_items")
        }
        records = {
            str(kind): deleted
            for kind, table in TABLES.items()
            if (deleted := _delete_owned(connection, table, owned))
        }
        blobs = _delete_blobs(connection, owned)
        connection.execute("DELETE FROM tasks WHERE id = ?", (task_id,))
        connection.execute(
            "INSERT OR REPLACE INTO purged_tasks (task_id, purged_at) VALUES (?, ?)",
            (task_id, purged_at),
        )
    return Purged(
        events=counts["task_events"],
        messages=counts["task_messages"],
        items=counts["task_items"],
        records=records,
        blobs=blobs,
    )


def is_purged(connection: sqlite3.Connection, task_id: str) -> bool:
    """Whether `task_id`, or the task whose own workflow it is, was purged."""
    task = task_id.split(".", 1)[0]
    row = connection.execute(
        "SELECT 1 FROM purged_tasks WHERE task_id IN (?, ?)", (task_id, task)
    ).fetchone()
    return row is not None


def _delete_owned(connection: sqlite3.Connection, table: str, owned: tuple[object, ...]) -> int:
    sql = f"DELETE FROM {table} WHERE {_OWNED}"  # noqa: S608 (fixed table names)
    return connection.execute(sql, owned).rowcount


def _delete_blobs(connection: sqlite3.Connection, owned: tuple[object, ...]) -> int:
    """Drop the task's claims, then each blob it claimed that no other task claims."""
    rows: list[tuple[object, ...]] = connection.execute(
        f"SELECT DISTINCT digest FROM blob_owners WHERE {_OWNED}",  # noqa: S608
        owned,
    ).fetchall()
    _delete_owned(connection, "blob_owners", owned)
    deleted = 0
    for (digest,) in rows:
        deleted += connection.execute(
            "DELETE FROM blobs WHERE digest = ? "
            "AND NOT EXISTS (SELECT 1 FROM blob_owners WHERE digest = ?)",
            (digest, digest),
        ).rowcount
    return deleted

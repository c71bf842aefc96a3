"""The SQL of `SqliteStore`'s blobs: large payloads kept once per content, claimed per task.

    blobs        digest ─ size ─ data             one row per content
    blob_owners  task_id ─ digest ─ stored_at     one row per task that stored it

A blob goes when no claim is left on it; a claim goes with its task, or by its age when the
store never held its task. The functions run on a connection the store hands them, under
its lock.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.store import blob_digest

SCHEMA: Final = (
    """
    CREATE TABLE IF NOT EXISTS blobs (
        digest TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        data BLOB NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS blob_owners (
        task_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        stored_at TEXT NOT NULL,
        PRIMARY KEY (task_id, digest)
    )
    """,
    "CREATE INDEX IF NOT EXISTS blob_owners_digest ON blob_owners (digest)",
)


def put(connection: sqlite3.Connection, data: bytes, owner: str, stored_at: str) -> str:
    """Keep `data` (once) and `owner`'s claim on it, in one transaction; its digest."""
    digest = blob_digest(data)
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(
            "INSERT INTO blobs (digest, size, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (digest, len(data), data),
        )
        # A claim renewed keeps the blob as long as its newest use, for an unknown task.
        connection.execute(
            """
            INSERT INTO blob_owners (task_id, digest, stored_at) VALUES (?, ?, ?)
            ON CONFLICT (task_id, digest) DO UPDATE SET stored_at = excluded.stored_at
            WHERE excluded.stored_at > blob_owners.stored_at
            """,
            (owner, digest, stored_at),
        )
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return digest


def get(connection: sqlite3.Connection, digest: str) -> bytes | None:
    """The blob under `digest`, checked against it, or None."""
    row: tuple[object, ...] | None = connection.execute(
        "SELECT data FROM blobs WHERE digest = ?", (digest,)
    ).fetchone()
    if row is None:
        return None
    data = row[0]
    if not isinstance(data, bytes) or blob_digest(data) != digest:
        raise StoreError(f"stored blob {digest} does not match its digest")
    return data


def delete_unclaimed(connection: sqlite3.Connection, before: str) -> int:
    """Drop the claims of tasks the store no longer holds that were stored before
    `before`, then every blob without a claim; how many blobs went."""
    connection.execute(
        """
        DELETE FROM blob_owners WHERE stored_at < ?
        AND NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.id = blob_owners.task_id)
        """,
        (before,),
    )
    cursor = connection.execute(
        """
        DELETE FROM blobs
        WHERE NOT EXISTS (SELECT 1 FROM blob_owners WHERE blob_owners.digest = blobs.digest)
        """
    )
    return cursor.rowcount

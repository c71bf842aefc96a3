"""The SQL of `PostgresStore`'s task-scoped records, blobs and purges (the tables are
`postgres_schema`'s).

Records: one table per kind, all of one shape (key, task, version, when recorded, JSON).
Blobs: kept once per content, claimed per task; a blob goes when no claim is left on it.
A purge deletes everything of one task and of its own workflows (ids `<task>.…`: its
stand-ins and couriers) in one transaction, and keeps the task's id so a write that was
already on its way is dropped. The functions run on a connection the store hands them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.documents import (
    OUTLIVE_THEIR_TASK,
    RECORD_TABLES,
    parse_record,
    record_table,
    utc_text,
)
from tiny_harness.harness.persistence.postgres_tasks import FINALS, Connection, is_purged
from tiny_harness.harness.persistence.records import Record, RecordKind
from tiny_harness.harness.persistence.store import Purged, blob_digest

_OWNED: Final = "(task_id = %s OR starts_with(task_id, %s))"
"""The task's rows and those of its own workflows (`starts_with`, so no id is a pattern)."""


async def upsert(connection: Connection, record: Record) -> None:
    """Insert or replace `record` under its key unless a higher version is stored or its
    task was purged."""
    table = record_table(RecordKind(record.kind))
    utc_text(record.recorded_at, "the record's recorded_at")  # refuses a naive time
    async with connection.transaction():
        if await is_purged(connection, record.task_id):
            return
        await connection.execute(
            f"""
            INSERT INTO {table} (key, task_id, version, recorded_at, json)
            VALUES (%s, %s, %s, %s, %s)
            ON CONFLICT (key) DO UPDATE SET
                task_id = excluded.task_id, version = excluded.version,
                recorded_at = excluded.recorded_at, json = excluded.json
            WHERE excluded.version >= {table}.version
            """,  # noqa: S608 - the table name is one of RECORD_TABLES' fixed values
            (
                record.key,
                record.task_id,
                record.version,
                record.recorded_at,
                record.model_dump_json(),
            ),
        )


async def select(connection: Connection, kind: RecordKind, task_id: str) -> tuple[Record, ...]:
    """The task's records of `kind`, oldest first."""
    table = record_table(kind)
    cursor = await connection.execute(
        f"SELECT key, json FROM {table} WHERE task_id = %s ORDER BY recorded_at, key",  # noqa: S608
        (task_id,),
    )
    return tuple(parse_record(str(row[1]), str(row[0])) for row in await cursor.fetchall())


async def get(connection: Connection, kind: RecordKind, key: str) -> Record | None:
    """The record of `kind` under `key`, or None."""
    table = record_table(kind)
    cursor = await connection.execute(
        f"SELECT json FROM {table} WHERE key = %s",  # noqa: S608
        (key,),
    )
    row = await cursor.fetchone()
    return None if row is None else parse_record(str(row[0]), key)


async def delete_expired(connection: Connection, kind: RecordKind, before: datetime) -> int:
    """Delete the records of `kind` older than `before`; a running task keeps its plan,
    state and stored tool results, which count from its terminal state as it does."""
    table = record_table(kind)
    sql = f"DELETE FROM {table} WHERE recorded_at < %s"  # noqa: S608
    params: tuple[object, ...] = (before,)
    if kind in OUTLIVE_THEIR_TASK:
        sql += (
            " AND NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.id = "  # noqa: S608
            f"{table}.task_id AND (NOT (tasks.state = ANY(%s)) OR tasks.updated_at >= %s))"
        )
        params = (before, list(FINALS), before)
    cursor = await connection.execute(sql, params)
    return cursor.rowcount


async def put_blob(connection: Connection, data: bytes, owner: str, stored_at: datetime) -> str:
    """Keep `data` (once) and `owner`'s claim on it, in one transaction; its digest."""
    digest = blob_digest(data)
    async with connection.transaction():
        await connection.execute(
            "INSERT INTO blobs (digest, size, data) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            (digest, len(data), data),
        )
        # A claim renewed keeps the blob as long as its newest use, for an unknown task.
        await connection.execute(
            """
            INSERT INTO blob_owners (task_id, digest, stored_at) VALUES (%s, %s, %s)
            ON CONFLICT (task_id, digest) DO UPDATE SET stored_at = excluded.stored_at
            WHERE excluded.stored_at > blob_owners.stored_at
            """,
            (owner, digest, stored_at),
        )
    return digest


async def get_blob(connection: Connection, digest: str) -> bytes | None:
    """The blob under `digest`, checked against it, or None."""
    cursor = await connection.execute("SELECT data FROM blobs WHERE digest = %s", (digest,))
    row = await cursor.fetchone()
    if row is None:
        return None
    data = row[0]
    if not isinstance(data, bytes) or blob_digest(data) != digest:
        raise StoreError(f"stored blob {digest} does not match its digest")
    return data


async def delete_unclaimed(connection: Connection, before: datetime) -> int:
    """Drop the claims of tasks the store no longer holds that were stored before
    `before`, then every blob without a claim; how many blobs went."""
    await connection.execute(
        "DELETE FROM blob_owners WHERE stored_at < %s "
        "AND NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.id = blob_owners.task_id)",
        (before,),
    )
    cursor = await connection.execute(
        "DELETE FROM blobs WHERE NOT EXISTS "
        "(SELECT 1 FROM blob_owners WHERE blob_owners.digest = blobs.digest)"
    )
    return cursor.rowcount


async def purge(connection: Connection, task_id: str, purged_at: datetime) -> Purged | None:
    """Delete the task and all it owns in one transaction; None when the store never held
    the task (nothing is deleted then)."""
    owned = (task_id, f"{task_id}.")
    async with connection.transaction():
        cursor = await connection.execute(
            "SELECT 1 FROM tasks WHERE id = %s FOR UPDATE", (task_id,)
        )
        if await cursor.fetchone() is None:
            return None
        counts: dict[str, int] = {}
        for table in ("task_events", "task_messages", "task_items"):
            deleted = await connection.execute(
                f"DELETE FROM {table} WHERE task_id = %s",  # noqa: S608 (fixed table names)
                (task_id,),
            )
            counts[table] = deleted.rowcount
        records: dict[str, int] = {}
        for kind, table in RECORD_TABLES.items():
            deleted = await connection.execute(
                f"DELETE FROM {table} WHERE {_OWNED}",  # noqa: S608 (fixed table names)
                owned,
            )
            if deleted.rowcount:
                records[str(kind)] = deleted.rowcount
        blobs = await _delete_blobs(connection, owned)
        await connection.execute("DELETE FROM tasks WHERE id = %s", (task_id,))
        await connection.execute(
            "INSERT INTO purged_tasks (task_id, purged_at) VALUES (%s, %s) "
            "ON CONFLICT (task_id) DO UPDATE SET purged_at = excluded.purged_at",
            (task_id, purged_at),
        )
    return Purged(
        events=counts["task_events"],
        messages=counts["task_messages"],
        items=counts["task_items"],
        records=records,
        blobs=blobs,
    )


async def _delete_blobs(connection: Connection, owned: tuple[str, str]) -> int:
    """Drop the task's claims, then each blob it claimed that no other task claims."""
    cursor = await connection.execute(
        f"DELETE FROM blob_owners WHERE {_OWNED} RETURNING digest",  # noqa: S608
        owned,
    )
    digests = sorted({str(row[0]) for row in await cursor.fetchall()})
    deleted = await connection.execute(
        "DELETE FROM blobs WHERE digest = ANY(%s) AND NOT EXISTS "
        "(SELECT 1 FROM blob_owners WHERE blob_owners.digest = blobs.digest)",
        (digests,),
    )
    return deleted.rowcount

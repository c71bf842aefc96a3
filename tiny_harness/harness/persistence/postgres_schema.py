"""The schema of `PostgresStore`, created and migrated when a store first connects.

A small versioned runner, not a migration tool: the migrations are numbered lists of SQL
statements in this module, the table `tiny_harness_schema` records each one applied, and
all of it runs in one transaction under an advisory lock, so several processes starting
at once apply each migration once and a failed one leaves nothing half done. Alembic or
yoyo would add a dependency and a second place where the schema lives, for a schema of a
dozen tables that only this module writes.

    tasks          id ─ context_id ─ state ─ version ─ updated_at ─ json (no history)
    task_events    task_id ─ seq ─ json      the stream, numbered from 0
    task_messages  task_id ─ n ─ json        the history, numbered from 0
    task_items     task_id ─ n ─ json        the conversation, numbered from 0
    <records>      key ─ task_id ─ version ─ recorded_at ─ json   (one table per kind)
    blobs          digest ─ size ─ data      blob_owners  task_id ─ digest ─ stored_at
    purged_tasks   task_id ─ purged_at       push_configs (sealed, `push_config_store`)

Ids compare byte by byte (`COLLATE "C"`), so a listing's order and its page tokens do not
depend on the database's locale.
"""

from __future__ import annotations

from typing import Final

from psycopg import AsyncConnection

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.documents import RECORD_TABLES

LOCK_KEY: Final = 0x7448_5343_4845_4D41
"""The advisory lock migrations run under (any fixed 64-bit number: "tHSCHEMA")."""

_ID = 'text COLLATE "C" NOT NULL'


def _records() -> tuple[str, ...]:
    statements: list[str] = []
    for table in RECORD_TABLES.values():
        statements += [
            f"""CREATE TABLE {table} (
                key {_ID} PRIMARY KEY,
                task_id {_ID},
                version bigint NOT NULL,
                recorded_at timestamptz NOT NULL,
                json text NOT NULL)""",
            f"CREATE INDEX {table}_task ON {table} (task_id, recorded_at, key)",
            f"CREATE INDEX {table}_recorded_at ON {table} (recorded_at)",
        ]
    return tuple(statements)


_FIRST: Final = (
    f"""CREATE TABLE tasks (
        id {_ID} PRIMARY KEY,
        context_id {_ID},
        state integer NOT NULL,
        version bigint NOT NULL,
        updated_at timestamptz NOT NULL,
        json json NOT NULL)""",
    # Both indexes end in the listing order, so a filtered, paged listing reads one range.
    "CREATE INDEX tasks_context_id ON tasks (context_id, updated_at, id)",
    "CREATE INDEX tasks_updated_at ON tasks (updated_at, id)",
    *(
        f"""CREATE TABLE {table} (
            task_id {_ID},
            {number} bigint NOT NULL,
            json text NOT NULL,
            PRIMARY KEY (task_id, {number}))"""
        for table, number in (("task_events", "seq"), ("task_messages", "n"), ("task_items", "n"))
    ),
    *_records(),
    "CREATE TABLE blobs (digest text PRIMARY KEY, size bigint NOT NULL, data bytea NOT NULL)",
    f"""CREATE TABLE blob_owners (
        task_id {_ID},
        digest text NOT NULL,
        stored_at timestamptz NOT NULL,
        PRIMARY KEY (task_id, digest))""",
    "CREATE INDEX blob_owners_digest ON blob_owners (digest)",
    f"CREATE TABLE purged_tasks (task_id {_ID} PRIMARY KEY, purged_at timestamptz NOT NULL)",
    # `seq` is the creation order; `scheme` NULL means no authentication at all.
    f"""CREATE TABLE push_configs (
        seq bigserial PRIMARY KEY,
        task_id {_ID},
        id {_ID},
        tenant text NOT NULL,
        url text NOT NULL,
        scheme text,
        token bytea,
        credentials bytea,
        UNIQUE (task_id, id))""",
)

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (_FIRST,)
"""Migration N is `MIGRATIONS[N - 1]`; a new one is appended, never edited once shipped."""

SCHEMA_VERSION: Final = len(MIGRATIONS)


async def migrate(connection: AsyncConnection[tuple[object, ...]], where: str) -> int:
    """Bring the database to `SCHEMA_VERSION`; the version it was at. Raises `StoreError`
    for a database a newer tiny-harness migrated."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        await connection.execute(
            "CREATE TABLE IF NOT EXISTS tiny_harness_schema ("
            "version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        cursor = await connection.execute(
            "SELECT COALESCE(MAX(version), 0) FROM tiny_harness_schema"
        )
        row = await cursor.fetchone()
        found = row[0] if row is not None and isinstance(row[0], int) else 0
        if found > SCHEMA_VERSION:
            raise StoreError(
                f"postgres store {where}: schema version {found} is newer than this "
                f"tiny-harness supports ({SCHEMA_VERSION})"
            )
        for version in range(found + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[version - 1]:
                await connection.execute(statement)
            await connection.execute(
                "INSERT INTO tiny_harness_schema (version) VALUES (%s)", (version,)
            )
    return found

"""SQL run on a store's own database beside the store: to look at what it keeps, or to
break it the way a disk or an operator could."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from tiny_harness.harness.persistence.postgres import PostgresStore
from tiny_harness.harness.persistence.postgres_tasks import Connection
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.store import Store


async def execute(store: Store, sql: str, *params: object) -> list[tuple[object, ...]]:
    """The rows of `sql` (`?` placeholders) run in its own transaction on `store`'s
    database."""
    if isinstance(store, SqliteStore):
        with closing(sqlite3.connect(store.path)) as connection, connection:
            rows: list[tuple[object, ...]] = connection.execute(sql, params).fetchall()
            return rows
    if not isinstance(store, PostgresStore):
        raise TypeError(f"no database behind {type(store).__name__}")

    async def run(connection: Connection) -> list[tuple[object, ...]]:
        cursor = await connection.execute(sql.replace("?", "%s"), params)
        return await cursor.fetchall() if cursor.description else []

    return await store.call("run a test's SQL", run)

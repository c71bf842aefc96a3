"""`SqlitePushConfigs`: the push configs' table in the task store's SQLite file.

The table `push_configs` lives beside the store's tables and independent of them (created
here, with CREATE TABLE IF NOT EXISTS, and not part of the store's schema version). Like
`SqliteStore`, it is made for one writer process.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.push_config_store import (
    PUSH_CONFIG_COLUMNS,
    PushConfigRow,
    PushConfigTable,
    push_config_upsert,
    room_for,
    row_of,
)
from tiny_harness.harness.persistence.sqlite_file import SqliteFile, transaction

_SCHEMA: Final = """
    CREATE TABLE IF NOT EXISTS push_configs (
        seq INTEGER PRIMARY KEY,
        task_id TEXT NOT NULL,
        id TEXT NOT NULL,
        tenant TEXT NOT NULL,
        url TEXT NOT NULL,
        scheme TEXT,
        token BLOB,
        credentials BLOB,
        UNIQUE (task_id, id)
    )
"""
# `seq` is the creation order; `scheme` NULL means the config has no authentication at all;
# `token`/`credentials` NULL mean the client gave none. A replaced config keeps its `seq`.

_UPSERT: Final = push_config_upsert("?")


class SqlitePushConfigs(PushConfigTable):
    """The push configs in the SQLite file at `path` (created with its directory on first
    use, readable by its owner only)."""

    def __init__(self, path: Path) -> None:
        self._file = SqliteFile(path, label="push config store", prepare=_create_table)

    async def put(self, row: PushConfigRow, max_per_task: int) -> None:
        """Insert or replace the row, within the task's cap."""
        task_id, config_id = row[0], row[1]

        def put(connection: sqlite3.Connection) -> None:
            with transaction(connection):  # the count and the write see one state
                found = connection.execute(
                    "SELECT COUNT(*), COALESCE(SUM(id = ?), 0) FROM push_configs WHERE task_id = ?",
                    (config_id, task_id),
                ).fetchone()
                count, replaces = int(found[0]), bool(found[1])
                room_for(task_id, replaces=replaces, count=count, max_per_task=max_per_task)
                connection.execute(_UPSERT, row)

        await self._file.call(f"write push config {config_id!r} of task {task_id!r}", put)

    async def rows(self, task_id: str) -> list[PushConfigRow]:
        """The task's rows, oldest first."""

        def select(connection: sqlite3.Connection) -> list[PushConfigRow]:
            found: list[tuple[object, ...]] = connection.execute(
                f"SELECT {PUSH_CONFIG_COLUMNS} FROM push_configs WHERE task_id = ? ORDER BY seq",  # noqa: S608
                (task_id,),
            ).fetchall()
            return [row_of(row) for row in found]

        return await self._file.call(f"list push configs of task {task_id!r}", select)

    async def row(self, task_id: str, config_id: str) -> PushConfigRow | None:
        """The task's row `config_id`, or None."""

        def select(connection: sqlite3.Connection) -> PushConfigRow | None:
            found: tuple[object, ...] | None = connection.execute(
                f"SELECT {PUSH_CONFIG_COLUMNS} FROM push_configs WHERE task_id = ? AND id = ?",  # noqa: S608
                (task_id, config_id),
            ).fetchone()
            return None if found is None else row_of(found)

        return await self._file.call(f"read push config {config_id!r} of task {task_id!r}", select)

    async def delete(self, task_id: str, config_id: str) -> bool:
        """Delete the task's row `config_id`; whether there was one."""

        def delete(connection: sqlite3.Connection) -> bool:
            cursor = connection.execute(
                "DELETE FROM push_configs WHERE task_id = ? AND id = ?", (task_id, config_id)
            )
            return cursor.rowcount > 0

        return await self._file.call(
            f"delete push config {config_id!r} of task {task_id!r}", delete
        )

    async def delete_task(self, task_id: str) -> int:
        """Delete every row of the task; how many there were."""

        def delete(connection: sqlite3.Connection) -> int:
            cursor = connection.execute("DELETE FROM push_configs WHERE task_id = ?", (task_id,))
            return cursor.rowcount

        return await self._file.call(f"delete push configs of task {task_id!r}", delete)

    async def close(self) -> None:
        """Close the connection; later calls raise `StoreError`. Safe to call twice."""
        await self._file.close()


def _create_table(connection: sqlite3.Connection, path: Path) -> None:
    try:
        connection.execute(_SCHEMA)
    except sqlite3.Error as exc:
        raise StoreError(f"push config store {path}: cannot create its table: {exc}") from exc

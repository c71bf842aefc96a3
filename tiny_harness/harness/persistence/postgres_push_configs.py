"""`PostgresPushConfigs`: the push configs' table in the task store's PostgreSQL database.

The table is `postgres_schema`'s, migrated with the store's; the calls go through the
store's pool, so every server of a deployment reads the configs any of them took. A put
locks its task (an advisory lock for the transaction) before it counts, so two servers
adding configs to one task at once cannot both pass the cap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.postgres import PostgresStore
from tiny_harness.harness.persistence.postgres_tasks import Connection
from tiny_harness.harness.persistence.push_config_store import (
    PUSH_CONFIG_COLUMNS,
    PushConfigRow,
    PushConfigTable,
    push_config_upsert,
    room_for,
    row_of,
)

_UPSERT: Final = push_config_upsert("%s")


class PostgresPushConfigs(PushConfigTable):
    """The push configs in `store`'s database (closing the table leaves the store open)."""

    def __init__(self, store: PostgresStore) -> None:
        self._store = store
        self._closed = False

    async def put(self, row: PushConfigRow, max_per_task: int) -> None:
        """Insert or replace the row, within the task's cap."""
        task_id, config_id = row[0], row[1]

        async def put(connection: Connection) -> None:
            async with connection.transaction():
                await connection.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (task_id,))
                cursor = await connection.execute(
                    "SELECT COUNT(*), COUNT(*) FILTER (WHERE id = %s) FROM push_configs "
                    "WHERE task_id = %s",
                    (config_id, task_id),
                )
                found = await cursor.fetchone()
                count = int(str(found[0])) if found else 0
                replaces = bool(found and int(str(found[1])))
                room_for(task_id, replaces=replaces, count=count, max_per_task=max_per_task)
                await connection.execute(_UPSERT, row)

        await self._call(f"write push config {config_id!r} of task {task_id!r}", put)

    async def rows(self, task_id: str) -> list[PushConfigRow]:
        """The task's rows, oldest first."""

        async def select(connection: Connection) -> list[PushConfigRow]:
            cursor = await connection.execute(
                f"SELECT {PUSH_CONFIG_COLUMNS} FROM push_configs WHERE task_id = %s ORDER BY seq",  # noqa: S608
                (task_id,),
            )
            return [row_of(row) for row in await cursor.fetchall()]

        return await self._call(f"list push configs of task {task_id!r}", select)

    async def row(self, task_id: str, config_id: str) -> PushConfigRow | None:
        """The task's row `config_id`, or None."""

        async def select(connection: Connection) -> PushConfigRow | None:
            cursor = await connection.execute(
                f"SELECT {PUSH_CONFIG_COLUMNS} FROM push_configs WHERE task_id = %s AND id = %s",  # noqa: S608
                (task_id, config_id),
            )
            found = await cursor.fetchone()
            return None if found is None else row_of(found)

        return await self._call(f"read push config {config_id!r} of task {task_id!r}", select)

    async def delete(self, task_id: str, config_id: str) -> bool:
        """Delete the task's row `config_id`; whether there was one."""

        async def delete(connection: Connection) -> bool:
            cursor = await connection.execute(
                "DELETE FROM push_configs WHERE task_id = %s AND id = %s", (task_id, config_id)
            )
            return cursor.rowcount > 0

        return await self._call(f"delete push config {config_id!r} of task {task_id!r}", delete)

    async def delete_task(self, task_id: str) -> int:
        """Delete every row of the task; how many there were."""

        async def delete(connection: Connection) -> int:
            cursor = await connection.execute(
                "DELETE FROM push_configs WHERE task_id = %s", (task_id,)
            )
            return cursor.rowcount

        return await self._call(f"delete push configs of task {task_id!r}", delete)

    async def close(self) -> None:
        """Refuse later calls; the store's pool is the store's to close."""
        self._closed = True

    async def _call[T](self, action: str, work: Callable[[Connection], Awaitable[T]]) -> T:
        if self._closed:
            raise StoreError(f"push config store {self._store.where} is closed")
        return await self._store.call(action, work)

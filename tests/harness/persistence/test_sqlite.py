"""What is SQLite's own in `SqliteStore`, the task store in one local SQLite file: the file,
its mode and schema, reopening and closing (the contract is `test_task_store`'s)."""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.harness.persistence.test_task_store import make_record
from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.sqlite import SCHEMA_VERSION, SqliteStore
from tiny_harness.harness.persistence.store import TaskQuery

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "data" / "tasks.db")
    yield opened
    await opened.close()


# --- the file --------------------------------------------------------------------------


async def test_file_and_directory_are_created_on_first_use(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "tasks.db"
    store = SqliteStore(path)
    assert not path.parent.exists()
    try:
        assert await store.get_task("t-1") is None
        assert path.is_file()
    finally:
        await store.close()


async def test_database_file_is_readable_by_its_owner_only(store: SqliteStore) -> None:
    await store.put_task(make_record("t-1"))

    for path in (store.path, store.path.with_name(store.path.name + "-wal")):
        assert path.exists()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


async def test_existing_database_file_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "tasks.db"
    path.touch(mode=0o644)
    path.chmod(0o644)
    store = SqliteStore(path)
    try:
        await store.put_task(make_record("t-1"))
    finally:
        await store.close()

    assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_database_uses_wal_and_records_its_schema_version(store: SqliteStore) -> None:
    await store.put_task(make_record("t-1"))

    with sqlite3.connect(store.path) as peek:
        mode = peek.execute("PRAGMA journal_mode").fetchone()[0]
        version = peek.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in peek.execute("SELECT name FROM sqlite_master")}
    peek.close()

    assert (mode, version) == ("wal", SCHEMA_VERSION)
    assert {"tasks", "tasks_context_id", "tasks_updated_at"} <= tables


async def test_reopen_after_close_sees_data(tmp_path: Path) -> None:
    path = tmp_path / "tasks.db"
    record = make_record("t-1", version=3)
    first = SqliteStore(path)
    await first.put_task(record)
    await first.close()

    second = SqliteStore(path)
    try:
        assert await second.get_task("t-1") == record
        assert (await second.list_tasks(TaskQuery())).total_size == 1
    finally:
        await second.close()


async def test_close_is_idempotent_and_later_calls_raise(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "tasks.db")
    await store.put_task(make_record("t-1"))

    await store.close()
    await store.close()

    with pytest.raises(StoreError, match="closed"):
        await store.get_task("t-1")


async def test_close_before_first_use_is_fine(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "never" / "tasks.db")

    await store.close()
    await store.close()

    assert not (tmp_path / "never").exists()


async def test_file_that_is_not_a_database_raises_store_error(tmp_path: Path) -> None:
    path = tmp_path / "tasks.db"
    path.write_bytes(b"this is not a sqlite database, not even close" * 100)
    store = SqliteStore(path)
    try:
        with pytest.raises(StoreError) as raised:
            await store.get_task("t-1")
    finally:
        await store.close()

    assert isinstance(raised.value.__cause__, sqlite3.DatabaseError)


async def test_database_from_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tasks.db"
    with sqlite3.connect(path) as future:
        future.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    future.close()
    store = SqliteStore(path)
    try:
        with pytest.raises(StoreError, match="newer"):
            await store.get_task("t-1")
    finally:
        await store.close()


async def test_unreadable_stored_record_raises_store_error(store: SqliteStore) -> None:
    await store.put_task(make_record("t-1"))
    with sqlite3.connect(store.path) as tamper:
        tamper.execute("UPDATE tasks SET json = ? WHERE id = 't-1'", ('{"task": {"bogus": 1}}',))
    tamper.close()

    with pytest.raises(StoreError, match="unreadable"):
        await store.get_task("t-1")


async def test_version_beyond_sqlite_integer_raises_store_error(store: SqliteStore) -> None:
    with pytest.raises(StoreError, match="write task"):
        await store.put_task(make_record("t-1", version=2**63))

"""The store the persistence tests share, on each kind of store: a fresh SQLite file, or a
fresh database on the session's PostgreSQL server, per test, closed after it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tiny_harness.harness.persistence.postgres import PostgresStore
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.store import Store

type OpenStore = Callable[[], Store]


@pytest.fixture(params=["sqlite", "postgres"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> OpenStore:
    """Opens a store on this test's database; each one opened is a process of its own."""
    if request.param == "sqlite":
        return lambda: SqliteStore(tmp_path / "tasks.db")
    url: str = request.getfixturevalue("postgres_url")
    return lambda: PostgresStore(url)


@pytest.fixture
async def store(open_store: OpenStore) -> AsyncIterator[Store]:
    opened = open_store()
    yield opened
    await opened.close()

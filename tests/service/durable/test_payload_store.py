"""`StorePayloads` on the data converter every harness client uses: what is kept by
reference, for which task, and what a reference without its bytes does."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import closing
from pathlib import Path

import pytest
from temporalio.converter import (
    DataConverter,
    StorageDriverActivityInfo,
    StorageDriverClaim,
    StorageDriverRetrieveContext,
    StorageDriverStoreContext,
    StorageDriverWorkflowInfo,
)

from tiny_harness.errors import MissingPayloadError
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.service.durable.client.temporal import harness_converter
from tiny_harness.service.durable.payload_store import StorePayloads, owning_task

THRESHOLD = 4096


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "tasks.db")
    yield opened
    await opened.close()


def _sized(converter: DataConverter, size: int) -> str:
    """A string whose payload is exactly `size` bytes."""
    text = "z" * size
    while (excess := converter.payload_converter.to_payloads([text])[0].ByteSize() - size) > 0:
        text = text[:-excess]
    assert converter.payload_converter.to_payloads([text])[0].ByteSize() == size
    return text


def _for_workflow(workflow_id: str) -> StorageDriverStoreContext:
    return StorageDriverStoreContext(
        target=StorageDriverWorkflowInfo(namespace="default", id=workflow_id)
    )


async def test_a_large_value_travels_as_a_reference_and_comes_back_whole(
    store: SqliteStore,
) -> None:
    converter = harness_converter(store, threshold=THRESHOLD)
    small, large = "s" * 100, "L" * 10_000
    payloads = await converter.encode([small, large])

    assert not payloads[0].external_payloads
    assert payloads[1].external_payloads, "the large value was sent inline"
    assert payloads[1].ByteSize() < THRESHOLD
    assert await converter.decode(payloads, [str, str]) == [small, large]


async def test_the_threshold_is_inclusive(store: SqliteStore) -> None:
    converter = harness_converter(store, threshold=THRESHOLD)
    under, at = _sized(converter, THRESHOLD - 1), _sized(converter, THRESHOLD)

    payloads = await converter.encode([under, at])

    assert not payloads[0].external_payloads
    assert payloads[1].external_payloads


async def test_a_credential_is_masked_before_the_bytes_are_kept(store: SqliteStore) -> None:
    token = "ghp_" + "a1B2" * 9  # a GitHub token's shape
    converter = harness_converter(store, threshold=THRESHOLD)
    [reference] = await converter.encode([f"{token} " + "x" * 10_000])

    [kept] = await converter.decode([reference], [str])

    assert token not in kept
    assert kept.endswith("x" * 10_000)


def test_a_payload_belongs_to_the_task_whose_workflow_it_is_for() -> None:
    assert owning_task(_for_workflow("4f1c")) == "4f1c"
    assert owning_task(_for_workflow("4f1c.sub-2")) == "4f1c"
    assert owning_task(_for_workflow("4f1c.push.cfg-1")) == "4f1c"
    activity = StorageDriverActivityInfo(namespace="default", id="7")
    assert owning_task(StorageDriverStoreContext(target=activity)) == ""
    assert owning_task(StorageDriverStoreContext(target=None)) == ""


async def test_a_stand_ins_payload_is_claimed_by_its_parent_task(store: SqliteStore) -> None:
    driver = StorePayloads(store)
    [payload] = await harness_converter(store, threshold=THRESHOLD).encode(["y" * 10])
    [claim] = await driver.store(_for_workflow("parent.sub-1"), [payload])

    digest = claim.claim_data["sha256"]
    assert await store.get_blob(digest) == payload.SerializeToString(deterministic=True)
    with closing(sqlite3.connect(store.path)) as connection:
        owners = connection.execute(
            "SELECT task_id FROM blob_owners WHERE digest = ?", (digest,)
        ).fetchall()
    assert owners == [("parent",)]


async def test_a_reference_whose_bytes_are_gone_says_so(store: SqliteStore) -> None:
    driver = StorePayloads(store)
    claim = StorageDriverClaim(claim_data={"sha256": "0" * 64})
    with pytest.raises(MissingPayloadError, match="is not in the store"):
        await driver.retrieve(StorageDriverRetrieveContext(), [claim])

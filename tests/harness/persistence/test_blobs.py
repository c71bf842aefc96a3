"""The store's blobs: large payloads kept once per content, claimed by the tasks that stored
them, and deleted with the last of those tasks."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from a2a.types import Task, TaskState, TaskStatus

from tests.harness.persistence.database import execute
from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.records import RecordKind
from tiny_harness.harness.persistence.store import Store, TaskRecord

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=40)


async def _task(store: Store, task_id: str, state: TaskState, at: datetime) -> None:
    task = Task(id=task_id, context_id="ctx", status=TaskStatus(state=state))
    await store.put_task(TaskRecord(task=task, version=1, updated_at=at))


async def test_a_blob_comes_back_under_the_sha256_of_its_bytes(store: Store) -> None:
    data = bytes(range(256)) * 12_000  # 3 MB, binary
    digest = await store.put_blob(data, owner="task-1", stored_at=T0)
    assert digest == hashlib.sha256(data).hexdigest()
    assert await store.get_blob(digest) == data


async def test_an_unknown_digest_is_none(store: Store) -> None:
    assert await store.get_blob(hashlib.sha256(b"never stored").hexdigest()) is None


async def test_content_is_stored_once_however_many_tasks_store_it(
    store: Store,
) -> None:
    data = b"the same large reply" * 10_000
    first = await store.put_blob(data, owner="task-1", stored_at=T0)
    again = await store.put_blob(data, owner="task-1", stored_at=T0)
    other = await store.put_blob(data, owner="task-2", stored_at=T0)
    assert first == again == other
    assert await execute(store, "SELECT COUNT(*) FROM blobs") == [(1,)]


async def test_blobs_go_with_their_expired_task_and_stay_with_a_running_one(
    store: Store,
) -> None:
    await _task(store, "done", TaskState.TASK_STATE_COMPLETED, T0)
    await _task(store, "running", TaskState.TASK_STATE_INPUT_REQUIRED, T0)
    done = await store.put_blob(b"done's payload", owner="done", stored_at=T0)
    running = await store.put_blob(b"running's payload", owner="running", stored_at=T0)
    shared = await store.put_blob(b"both stored this", owner="done", stored_at=T0)
    await store.put_blob(b"both stored this", owner="running", stored_at=T0)

    deleted = await store.delete_expired(RecordKind.TASK, LATER - timedelta(days=30))

    assert deleted == 1
    assert await store.get_blob(done) is None
    assert await store.get_blob(running) == b"running's payload"
    assert await store.get_blob(shared) == b"both stored this"


async def test_blobs_of_a_task_the_store_never_held_go_by_their_age(
    store: Store,
) -> None:
    old = await store.put_blob(b"old orphan", owner="never-stored", stored_at=T0)
    young = await store.put_blob(b"young orphan", owner="never-stored", stored_at=LATER)

    await store.delete_expired(RecordKind.TASK, LATER - timedelta(days=30))

    assert await store.get_blob(old) is None
    assert await store.get_blob(young) == b"young orphan"


async def test_a_blob_stored_again_lives_from_its_newest_use(store: Store) -> None:
    digest = await store.put_blob(b"reused", owner="never-stored", stored_at=T0)
    await store.put_blob(b"reused", owner="never-stored", stored_at=LATER)
    await store.put_blob(b"reused", owner="never-stored", stored_at=T0)  # an old retry

    await store.delete_expired(RecordKind.TASK, LATER - timedelta(days=30))

    assert await store.get_blob(digest) == b"reused"


async def test_a_final_tasks_blobs_stay_until_the_task_itself_expires(
    store: Store,
) -> None:
    await _task(store, "done", TaskState.TASK_STATE_FAILED, LATER)
    digest = await store.put_blob(b"kept with its task", owner="done", stored_at=T0)

    assert await store.delete_expired(RecordKind.TASK, LATER - timedelta(days=30)) == 0

    assert await store.get_blob(digest) == b"kept with its task"


async def test_a_blob_changed_on_disk_is_refused(store: Store) -> None:
    digest = await store.put_blob(b"original", owner="task-1", stored_at=T0)
    await execute(store, "UPDATE blobs SET data = ? WHERE digest = ?", b"tampered", digest)
    with pytest.raises(StoreError, match="does not match its digest"):
        await store.get_blob(digest)


async def test_a_naive_stored_at_is_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="timezone-aware"):
        await store.put_blob(b"x", owner="task-1", stored_at=datetime(2025, 1, 1))

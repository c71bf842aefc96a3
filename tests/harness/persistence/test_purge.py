"""`Store.purge_task`: a task deleted now, with all it owns, and kept deleted."""

from __future__ import annotations

from datetime import UTC, datetime

from a2a.types import Message, Part, Role, TaskState

from tiny_harness.harness.models.llm import UserItem
from tiny_harness.harness.persistence.records import RecordKind, StateRecord
from tiny_harness.harness.persistence.store import LogPage, LogWrite, Purged, Store, TaskRecord
from tiny_harness.service.durable.workflows.events import new_task, status_event, task_event

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def first_step(task_id: str) -> LogWrite:
    """A task's first step: the task, WORKING, the message it took, one conversation item."""
    task = new_task(task_id, "ctx", T0)
    message = Message(message_id=f"{task_id}-m", role=Role.ROLE_USER, parts=[Part(text="hi")])
    working = status_event(task, TaskState.TASK_STATE_WORKING, T0)
    task.status.state = TaskState.TASK_STATE_WORKING
    return LogWrite(
        task=task,
        first_seq=0,
        events=(task_event(new_task(task_id, "ctx", T0)), working),
        first_message=0,
        messages=(message,),
        first_item=0,
        items=(UserItem(message_id=message.message_id, text="hi"),),
        updated_at=T0,
    )


def state_of(task_id: str) -> StateRecord:
    return StateRecord(task_id=task_id, context_id="ctx", iteration=1, recorded_at=T0)


async def test_purge_deletes_the_task_its_own_workflows_records_and_unshared_payloads(
    store: Store,
) -> None:
    await store.write_log(first_step("t-1"))
    await store.write_log(first_step("t-2"))
    await store.put_record(state_of("t-1"))
    await store.put_record(state_of("t-1.sub-1"))  # its stand-in's
    await store.put_record(state_of("t-2"))
    only_mine = await store.put_blob(b"a" * 300, owner="t-1", stored_at=T0)
    of_my_courier = await store.put_blob(b"c" * 300, owner="t-1.push.cfg", stored_at=T0)
    shared = await store.put_blob(b"s" * 300, owner="t-1", stored_at=T0)
    await store.put_blob(b"s" * 300, owner="t-2", stored_at=T0)

    purged = await store.purge_task("t-1")

    assert purged == Purged(
        events=2, messages=1, items=1, records={str(RecordKind.STATE): 2}, blobs=2
    )
    assert await store.get_task("t-1") is None
    assert await store.read_log("t-1", 0) == LogPage(events=(), length=0, final=False)
    assert await store.records(RecordKind.STATE, "t-1") == ()
    assert await store.records(RecordKind.STATE, "t-1.sub-1") == ()
    assert await store.get_blob(only_mine) is None
    assert await store.get_blob(of_my_courier) is None
    assert await store.get_blob(shared) == b"s" * 300
    other = await store.get_task("t-2")
    assert other is not None
    assert len(other.task.history) == 1
    assert len(await store.records(RecordKind.STATE, "t-2")) == 1


async def test_a_write_on_its_way_when_the_task_was_purged_brings_nothing_back(
    store: Store,
) -> None:
    step = first_step("t-1")
    await store.write_log(step)
    await store.purge_task("t-1")

    ended = await store.write_log(step)
    await store.put_task(TaskRecord(task=step.task, version=2, updated_at=T0))
    await store.put_record(state_of("t-1"))
    await store.put_record(state_of("t-1.sub-1"))

    assert ended is False
    assert await store.get_task("t-1") is None
    assert (await store.read_log("t-1", 0)).events == ()
    assert await store.records(RecordKind.STATE, "t-1") == ()
    assert await store.records(RecordKind.STATE, "t-1.sub-1") == ()


async def test_purging_a_task_the_store_never_held_deletes_nothing(store: Store) -> None:
    await store.write_log(first_step("t-10"))
    await store.put_record(state_of("t-1.sub-1"))

    assert await store.purge_task("t-1") is None
    assert await store.get_task("t-10") is not None
    assert len(await store.records(RecordKind.STATE, "t-1.sub-1")) == 1

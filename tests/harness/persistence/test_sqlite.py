"""Behaviour of `SqliteStore`: the task store in one local SQLite file."""

from __future__ import annotations

import asyncio
import base64
import sqlite3
import stat
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from a2a.helpers import (
    new_text_artifact,
    new_text_artifact_update_event,
    new_text_message,
    new_text_status_update_event,
)
from a2a.types import Role, StreamResponse, Task, TaskState, TaskStatus

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.sqlite import SCHEMA_VERSION, SqliteStore
from tiny_harness.harness.persistence.store import LogWrite, TaskQuery, TaskRecord

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def make_record(
    task_id: str,
    *,
    context_id: str = "ctx-1",
    state: TaskState = TaskState.TASK_STATE_WORKING,
    version: int = 1,
    updated_at: datetime = T0,
) -> TaskRecord:
    task = Task(id=task_id, context_id=context_id, status=TaskStatus(state=state))
    return TaskRecord(task=task, version=version, updated_at=updated_at)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "data" / "tasks.db")
    yield opened
    await opened.close()


async def list_all(store: SqliteStore, page_size: int, **filters: object) -> list[str]:
    """Walk every page of a listing; the task ids in the order they were returned."""
    seen: list[str] = []
    token: str | None = None
    for _ in range(100):  # a cursor that does not advance must fail, not hang
        query = TaskQuery.model_validate({**filters, "page_size": page_size, "page_token": token})
        page = await store.list_tasks(query)
        assert len(page.records) <= page_size
        seen.extend(record.task_id for record in page.records)
        token = page.next_page_token
        if token is None:
            return seen
    pytest.fail(f"pagination did not end; saw {seen[:20]}...")


# --- reading and writing ---------------------------------------------------------------


async def test_get_of_unknown_task_is_none(store: SqliteStore) -> None:
    assert await store.get_task("no-such-task") is None


async def test_task_with_status_history_and_artifact_round_trips(store: SqliteStore) -> None:
    question = new_text_message(
        "what is 2+2?", context_id="ctx-1", task_id="t-1", role=Role.ROLE_USER
    )
    answer = new_text_message("4", context_id="ctx-1", task_id="t-1")
    task = Task(
        id="t-1",
        context_id="ctx-1",
        status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED, message=answer),
        history=[question, answer],
        artifacts=[new_text_artifact(name="result", text="4", description="the sum")],
    )
    task.metadata.update({"origin": "test", "attempt": 2})
    record = TaskRecord(task=task, version=7, updated_at=T0)

    await store.put_task(record)
    loaded = await store.get_task("t-1")

    assert loaded == record
    assert loaded is not None
    assert loaded.task.history[0].parts[0].text == "what is 2+2?"
    assert loaded.task.artifacts[0].name == "result"
    assert loaded.task.status.state == TaskState.TASK_STATE_COMPLETED


async def test_every_kind_of_event_round_trips_in_the_log(store: SqliteStore) -> None:
    events = (
        StreamResponse(task=Task(id="t-1", context_id="ctx-1")),
        StreamResponse(
            status_update=new_text_status_update_event(
                "t-1", "ctx-1", TaskState.TASK_STATE_WORKING, "thinking"
            )
        ),
        StreamResponse(message=new_text_message("partial", context_id="ctx-1", task_id="t-1")),
        StreamResponse(
            artifact_update=new_text_artifact_update_event("t-1", "ctx-1", "result", "42")
        ),
    )
    record = make_record("t-1", state=TaskState.TASK_STATE_COMPLETED, version=4)
    step = LogWrite(task=record.task, first_seq=0, events=events, first_message=0, updated_at=T0)

    await store.write_log(step)
    loaded = (await store.read_log("t-1", 0)).events

    assert loaded == events
    assert [event.WhichOneof("payload") for event in loaded] == [
        "task",
        "status_update",
        "message",
        "artifact_update",
    ]


async def test_updated_at_round_trips_as_the_same_instant(store: SqliteStore) -> None:
    plus_five = timezone(timedelta(hours=5))
    record = make_record("t-1", updated_at=datetime(2025, 3, 1, 17, 0, 0, 123456, tzinfo=plus_five))

    await store.put_task(record)
    loaded = await store.get_task("t-1")

    assert loaded is not None
    assert loaded.updated_at == datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


async def test_newer_version_replaces_the_stored_record(store: SqliteStore) -> None:
    await store.put_task(make_record("t-1", version=1))
    newer = make_record("t-1", state=TaskState.TASK_STATE_COMPLETED, version=2)

    await store.put_task(newer)

    assert await store.get_task("t-1") == newer


async def test_same_version_replaces_the_stored_record(store: SqliteStore) -> None:
    await store.put_task(make_record("t-1", version=3))
    again = make_record("t-1", state=TaskState.TASK_STATE_FAILED, version=3)

    await store.put_task(again)

    assert await store.get_task("t-1") == again


async def test_older_version_never_overwrites_newer(store: SqliteStore) -> None:
    newer = make_record(
        "t-1", state=TaskState.TASK_STATE_COMPLETED, version=5, updated_at=T0 + timedelta(1)
    )
    await store.put_task(newer)

    await store.put_task(make_record("t-1", context_id="other", version=4, updated_at=T0))

    assert await store.get_task("t-1") == newer
    # Nor do the listing columns move: the late write is dropped as a whole.
    assert (await store.list_tasks(TaskQuery(context_id="other"))).total_size == 0
    states = await store.list_tasks(TaskQuery(state=TaskState.TASK_STATE_COMPLETED))
    assert [record.task_id for record in states.records] == ["t-1"]


async def test_racing_writes_keep_the_highest_version(store: SqliteStore) -> None:
    versions = [3, 17, 1, 9, 17, 12, 0, 16, 5]
    await asyncio.gather(
        *(
            store.put_task(make_record("t-1", version=v, updated_at=T0 + timedelta(minutes=v)))
            for v in versions
        )
    )

    loaded = await store.get_task("t-1")

    assert loaded is not None
    assert loaded.version == 17


async def test_naive_updated_at_is_refused(store: SqliteStore) -> None:
    record = make_record("t-1", updated_at=datetime(2025, 3, 1, 12, 0))

    with pytest.raises(StoreError, match="timezone-aware"):
        await store.put_task(record)


async def test_task_without_id_is_refused(store: SqliteStore) -> None:
    with pytest.raises(StoreError, match="no id"):
        await store.put_task(make_record(""))


# --- listing ---------------------------------------------------------------------------


async def test_list_filters_by_context_state_and_updated_at_or_after(store: SqliteStore) -> None:
    working, done = TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED
    for record in (
        make_record("a", context_id="ctx-1", state=working, updated_at=T0),
        make_record("b", context_id="ctx-1", state=done, updated_at=T0 + timedelta(hours=1)),
        make_record("c", context_id="ctx-2", state=working, updated_at=T0 + timedelta(hours=2)),
        make_record("d", context_id="ctx-2", state=done, updated_at=T0 + timedelta(hours=3)),
    ):
        await store.put_task(record)

    async def ids(query: TaskQuery) -> list[str]:
        page = await store.list_tasks(query)
        assert page.total_size == len(page.records)
        return [record.task_id for record in page.records]

    assert await ids(TaskQuery()) == ["d", "c", "b", "a"]
    assert await ids(TaskQuery(context_id="ctx-1")) == ["b", "a"]
    assert await ids(TaskQuery(state=done)) == ["d", "b"]
    assert await ids(TaskQuery(context_id="ctx-2", state=working)) == ["c"]
    assert await ids(TaskQuery(context_id="nope")) == []
    # updated_after is inclusive (A2A: "greater than or equal"): the task updated at
    # exactly that instant is kept.
    assert await ids(TaskQuery(updated_after=T0 + timedelta(hours=1))) == ["d", "c", "b"]
    assert await ids(TaskQuery(updated_after=T0 + timedelta(hours=1, microseconds=1))) == [
        "d",
        "c",
    ]
    # ... and compared as an instant, whatever the offset it is given in.
    minus_three = timezone(timedelta(hours=-3))
    after = (T0 + timedelta(hours=1, minutes=30)).astimezone(minus_three)
    assert await ids(TaskQuery(updated_after=after, state=done)) == ["d"]


async def test_list_orders_by_instant_not_by_written_offset(store: SqliteStore) -> None:
    # 10:00+05:00 is 05:00Z, which is earlier than 06:00Z though "10" sorts after "06".
    plus_five = timezone(timedelta(hours=5))
    await store.put_task(
        make_record("early", updated_at=datetime(2025, 3, 1, 10, tzinfo=plus_five))
    )
    await store.put_task(make_record("late", updated_at=datetime(2025, 3, 1, 6, tzinfo=UTC)))

    page = await store.list_tasks(TaskQuery())

    assert [record.task_id for record in page.records] == ["late", "early"]


def stamped(task_id: str, status_at: datetime, *, written_at: datetime) -> TaskRecord:
    """A record whose task changed status at `status_at`, written at `written_at`."""
    status = TaskStatus(state=TaskState.TASK_STATE_COMPLETED)
    status.timestamp.FromDatetime(status_at)
    task = Task(id=task_id, context_id="ctx-1", status=status)
    return TaskRecord(task=task, version=1, updated_at=written_at)


async def test_list_orders_by_status_change_not_by_write_time(store: SqliteStore) -> None:
    # "first" changed status first but was written last: the status change decides.
    await store.put_task(stamped("first", T0, written_at=T0 + timedelta(hours=2)))
    await store.put_task(stamped("second", T0 + timedelta(minutes=1), written_at=T0))

    page = await store.list_tasks(TaskQuery())
    after = await store.list_tasks(TaskQuery(updated_after=T0 + timedelta(seconds=30)))

    assert [record.task_id for record in page.records] == ["second", "first"]
    assert [record.task_id for record in after.records] == ["second"]


async def test_a_write_that_changes_no_status_keeps_the_task_in_place(
    store: SqliteStore,
) -> None:
    await store.put_task(stamped("a", T0, written_at=T0))
    await store.put_task(stamped("b", T0 + timedelta(seconds=1), written_at=T0))
    first = await store.list_tasks(TaskQuery(page_size=1))
    assert first.next_page_token is not None

    # The closing write of "b" carries the same status, written an hour later.
    closing = stamped("b", T0 + timedelta(seconds=1), written_at=T0 + timedelta(hours=1))
    await store.put_task(closing.model_copy(update={"version": 2}))
    second = await store.list_tasks(TaskQuery(page_size=1, page_token=first.next_page_token))

    assert [r.task_id for r in first.records + second.records] == ["b", "a"]


async def test_naive_updated_after_is_refused(store: SqliteStore) -> None:
    query = TaskQuery(updated_after=datetime(2025, 3, 1))

    with pytest.raises(StoreError, match="timezone-aware"):
        await store.list_tasks(query)


async def twelve_tasks(store: SqliteStore) -> list[str]:
    """Twelve tasks in two contexts, three sharing each timestamp; ids newest first."""
    records = [
        make_record(
            f"task-{i:02d}",
            context_id=f"ctx-{i % 2}",
            updated_at=T0 + timedelta(seconds=i // 3),
        )
        for i in range(12)
    ]
    for record in reversed(records):
        await store.put_task(record)
    return [f"task-{i:02d}" for i in reversed(range(12))]


@pytest.mark.parametrize("page_size", range(1, 8))
async def test_pagination_visits_every_task_exactly_once(
    store: SqliteStore, page_size: int
) -> None:
    newest_first = await twelve_tasks(store)

    seen = await list_all(store, page_size)

    assert seen == newest_first


@pytest.mark.parametrize("page_size", range(1, 8))
async def test_pagination_with_a_filter_visits_every_match_once(
    store: SqliteStore, page_size: int
) -> None:
    newest_first = await twelve_tasks(store)

    seen = await list_all(store, page_size, context_id="ctx-1")

    assert seen == [task_id for task_id in newest_first if int(task_id[-2:]) % 2 == 1]


async def test_total_size_counts_every_match_on_every_page(store: SqliteStore) -> None:
    await twelve_tasks(store)

    first = await store.list_tasks(TaskQuery(page_size=5))
    second = await store.list_tasks(TaskQuery(page_size=5, page_token=first.next_page_token))
    filtered = await store.list_tasks(TaskQuery(page_size=2, context_id="ctx-0"))

    assert (first.total_size, second.total_size, filtered.total_size) == (12, 12, 6)


async def test_last_page_has_no_next_token(store: SqliteStore) -> None:
    await twelve_tasks(store)

    exact = await store.list_tasks(TaskQuery(page_size=12))
    empty = await store.list_tasks(TaskQuery(context_id="nobody"))

    assert len(exact.records) == 12
    assert exact.next_page_token is None
    assert empty.records == ()
    assert empty.next_page_token is None
    assert empty.total_size == 0


async def test_stale_token_still_works_after_new_tasks_arrive(store: SqliteStore) -> None:
    newest_first = await twelve_tasks(store)
    first = await store.list_tasks(TaskQuery(page_size=5))
    assert first.next_page_token is not None

    for i in range(3):
        await store.put_task(make_record(f"new-{i}", updated_at=T0 + timedelta(hours=1 + i)))
    second = await store.list_tasks(TaskQuery(page_size=5, page_token=first.next_page_token))

    assert [record.task_id for record in second.records] == newest_first[5:10]
    assert second.total_size == 15


@pytest.mark.parametrize(
    "token",
    [
        "not base64 at all!",
        "%%%",
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        base64.urlsafe_b64encode(b"{not json").decode(),
        base64.urlsafe_b64encode(b'{"updated_at": "x"}').decode(),
        base64.urlsafe_b64encode(b'["2025-03-01T12:00:00.000000Z"]').decode(),
        base64.urlsafe_b64encode(b'["yesterday", "task-01"]').decode(),
        base64.urlsafe_b64encode(b'["2025-03-01T12:00:00", "task-01"]').decode(),
        base64.urlsafe_b64encode(b'["2025-03-01T12:00:00.000000Z", 7]').decode(),
    ],
)
async def test_malformed_page_token_raises_store_error(store: SqliteStore, token: str) -> None:
    await twelve_tasks(store)

    with pytest.raises(StoreError, match="page token"):
        await store.list_tasks(TaskQuery(page_token=token))


async def test_page_token_is_url_safe(store: SqliteStore) -> None:
    await store.put_task(make_record("a/b?c=d&e+f", updated_at=T0))
    await store.put_task(make_record("z", updated_at=T0 + timedelta(seconds=1)))

    page = await store.list_tasks(TaskQuery(page_size=1))

    assert page.next_page_token is not None
    assert set(page.next_page_token) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_="
    )


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

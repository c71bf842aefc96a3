"""The task store's contract for tasks, on every kind of store (`conftest.store`): records
round-trip, versions win, listings filter, order and page."""

from __future__ import annotations

import asyncio
import base64
from datetime import UTC, datetime, timedelta, timezone

import pytest
from a2a.helpers import (
    new_text_artifact,
    new_text_artifact_update_event,
    new_text_message,
    new_text_status_update_event,
)
from a2a.types import Role, StreamResponse, Task, TaskState, TaskStatus

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.store import LogWrite, Store, TaskQuery, TaskRecord

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


async def list_all(store: Store, page_size: int, **filters: object) -> list[str]:
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


async def test_get_of_unknown_task_is_none(store: Store) -> None:
    assert await store.get_task("no-such-task") is None


async def test_task_with_status_history_and_artifact_round_trips(store: Store) -> None:
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


async def test_every_kind_of_event_round_trips_in_the_log(store: Store) -> None:
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


async def test_updated_at_round_trips_as_the_same_instant(store: Store) -> None:
    plus_five = timezone(timedelta(hours=5))
    record = make_record("t-1", updated_at=datetime(2025, 3, 1, 17, 0, 0, 123456, tzinfo=plus_five))

    await store.put_task(record)
    loaded = await store.get_task("t-1")

    assert loaded is not None
    assert loaded.updated_at == datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


async def test_newer_version_replaces_the_stored_record(store: Store) -> None:
    await store.put_task(make_record("t-1", version=1))
    newer = make_record("t-1", state=TaskState.TASK_STATE_COMPLETED, version=2)

    await store.put_task(newer)

    assert await store.get_task("t-1") == newer


async def test_same_version_replaces_the_stored_record(store: Store) -> None:
    await store.put_task(make_record("t-1", version=3))
    again = make_record("t-1", state=TaskState.TASK_STATE_FAILED, version=3)

    await store.put_task(again)

    assert await store.get_task("t-1") == again


async def test_older_version_never_overwrites_newer(store: Store) -> None:
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


async def test_racing_writes_keep_the_highest_version(store: Store) -> None:
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


async def test_naive_updated_at_is_refused(store: Store) -> None:
    record = make_record("t-1", updated_at=datetime(2025, 3, 1, 12, 0))

    with pytest.raises(StoreError, match="timezone-aware"):
        await store.put_task(record)


async def test_task_without_id_is_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="no id"):
        await store.put_task(make_record(""))


# --- listing ---------------------------------------------------------------------------


async def test_list_filters_by_context_state_and_updated_at_or_after(store: Store) -> None:
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


async def test_list_orders_by_instant_not_by_written_offset(store: Store) -> None:
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


async def test_list_orders_by_status_change_not_by_write_time(store: Store) -> None:
    # "first" changed status first but was written last: the status change decides.
    await store.put_task(stamped("first", T0, written_at=T0 + timedelta(hours=2)))
    await store.put_task(stamped("second", T0 + timedelta(minutes=1), written_at=T0))

    page = await store.list_tasks(TaskQuery())
    after = await store.list_tasks(TaskQuery(updated_after=T0 + timedelta(seconds=30)))

    assert [record.task_id for record in page.records] == ["second", "first"]
    assert [record.task_id for record in after.records] == ["second"]


async def test_a_write_that_changes_no_status_keeps_the_task_in_place(
    store: Store,
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


async def test_naive_updated_after_is_refused(store: Store) -> None:
    query = TaskQuery(updated_after=datetime(2025, 3, 1))

    with pytest.raises(StoreError, match="timezone-aware"):
        await store.list_tasks(query)


async def twelve_tasks(store: Store) -> list[str]:
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
async def test_pagination_visits_every_task_exactly_once(store: Store, page_size: int) -> None:
    newest_first = await twelve_tasks(store)

    seen = await list_all(store, page_size)

    assert seen == newest_first


@pytest.mark.parametrize("page_size", range(1, 8))
async def test_pagination_with_a_filter_visits_every_match_once(
    store: Store, page_size: int
) -> None:
    newest_first = await twelve_tasks(store)

    seen = await list_all(store, page_size, context_id="ctx-1")

    assert seen == [task_id for task_id in newest_first if int(task_id[-2:]) % 2 == 1]


async def test_total_size_counts_every_match_on_every_page(store: Store) -> None:
    await twelve_tasks(store)

    first = await store.list_tasks(TaskQuery(page_size=5))
    second = await store.list_tasks(TaskQuery(page_size=5, page_token=first.next_page_token))
    filtered = await store.list_tasks(TaskQuery(page_size=2, context_id="ctx-0"))

    assert (first.total_size, second.total_size, filtered.total_size) == (12, 12, 6)


async def test_last_page_has_no_next_token(store: Store) -> None:
    await twelve_tasks(store)

    exact = await store.list_tasks(TaskQuery(page_size=12))
    empty = await store.list_tasks(TaskQuery(context_id="nobody"))

    assert len(exact.records) == 12
    assert exact.next_page_token is None
    assert empty.records == ()
    assert empty.next_page_token is None
    assert empty.total_size == 0


async def test_stale_token_still_works_after_new_tasks_arrive(store: Store) -> None:
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
async def test_malformed_page_token_raises_store_error(store: Store, token: str) -> None:
    await twelve_tasks(store)

    with pytest.raises(StoreError, match="page token"):
        await store.list_tasks(TaskQuery(page_token=token))


async def test_page_token_is_url_safe(store: Store) -> None:
    await store.put_task(make_record("a/b?c=d&e+f", updated_at=T0))
    await store.put_task(make_record("z", updated_at=T0 + timedelta(seconds=1)))

    page = await store.list_tasks(TaskQuery(page_size=1))

    assert page.next_page_token is not None
    assert set(page.next_page_token) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_="
    )

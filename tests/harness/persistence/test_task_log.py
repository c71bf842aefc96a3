"""A task's log in the store: written a step at a time by its workflow, read by every reader,
and waited on; an end the workflow could not write stored once."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from a2a.types import Message, Part, Role, StreamResponse, Task, TaskState
from pydantic import BaseModel

from tests.harness.persistence.conftest import OpenStore
from tests.harness.persistence.database import execute
from tiny_harness.errors import StoreError
from tiny_harness.harness.models.llm import AssistantItem, InputItem, ToolResultItem, UserItem
from tiny_harness.harness.persistence.records import RecordKind
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.store import LogPage, LogWrite, Store, TaskRecord
from tiny_harness.harness.protocol.proto_fields import ProtoJson
from tiny_harness.harness.tools.definition import ToolCall
from tiny_harness.service.durable.workflows.events import (
    agent_message,
    apply_event,
    fold,
    new_task,
    status_event,
    task_event,
)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class Log:
    """A task's log as its workflow builds it: each `step` the events since the last one."""

    def __init__(self, task_id: str = "t-1") -> None:
        self.task = new_task(task_id, "ctx", T0)
        self.seq = 0
        self.messages = 0
        self.items = 0

    def step(
        self,
        *events: StreamResponse,
        messages: tuple[Message, ...] = (),
        items: tuple[InputItem, ...] = (),
    ) -> LogWrite:
        joined = list(messages)
        for event in events:
            message = fold(self.task, event)
            if message is not None:
                joined.append(message)
        head = Task()
        head.CopyFrom(self.task)
        write = LogWrite(
            task=head,
            first_seq=self.seq,
            events=events,
            first_message=self.messages,
            messages=tuple(joined),
            first_item=self.items,
            items=items,
            updated_at=T0,
        )
        self.seq += len(events)
        self.messages += len(joined)
        self.items += len(items)
        return write

    def status(self, state: TaskState, text: str | None = None) -> StreamResponse:
        message = None if text is None else agent_message(self.task, f"m{self.seq}", text)
        return status_event(self.task, state, T0 + timedelta(seconds=self.seq), message)


def user(text: str) -> Message:
    return Message(message_id=f"u-{text}", role=Role.ROLE_USER, parts=[Part(text=text)])


async def test_a_tasks_log_and_history_are_read_as_written(store: Store) -> None:
    log = Log()
    await store.write_log(log.step(task_event(log.task), messages=(user("go"),)))
    await store.write_log(log.step(log.status(TaskState.TASK_STATE_WORKING, "Looking.")))
    await store.write_log(log.step(log.status(TaskState.TASK_STATE_INPUT_REQUIRED, "Which?")))

    record = await store.get_task("t-1")
    events = (await store.read_log("t-1", 0)).events

    assert record is not None
    assert record.version == 3
    assert record.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert [m.parts[0].text for m in record.task.history] == ["go", "Looking.", "Which?"]
    assert len(events) == 3
    assert events[0].task.id == "t-1"
    assert [e.status_update.status.state for e in events[1:]] == [
        TaskState.TASK_STATE_WORKING,
        TaskState.TASK_STATE_INPUT_REQUIRED,
    ]
    assert (await store.read_log("t-1", 2)).events == events[2:]
    assert (await store.read_log("t-1", 3)).events == ()


async def test_a_page_of_the_log_tells_its_length_and_whether_it_is_final(
    store: Store,
) -> None:
    assert await store.read_log("t-1", 0) == LogPage(events=(), length=0, final=False)
    log = Log()
    await store.write_log(log.step(task_event(log.task)))
    await store.write_log(log.step(log.status(TaskState.TASK_STATE_WORKING, "Looking.")))

    working = await store.read_log("t-1", 1)
    await store.write_log(log.step(log.status(TaskState.TASK_STATE_COMPLETED, "Done.")))
    done = await store.read_log("t-1", 3)

    assert (len(working.events), working.length, working.final) == (1, 2, False)
    assert (done.events, done.length, done.final) == ((), 3, True)
    assert len((await store.read_log("t-1", 0, limit=2)).events) == 2


async def test_get_task_reads_only_the_newest_history_asked_for(store: Store) -> None:
    log = Log()
    await store.write_log(log.step(task_event(log.task), messages=(user("a"), user("b"))))
    await store.write_log(log.step(log.status(TaskState.TASK_STATE_WORKING, "c")))

    none = await store.get_task("t-1", history_length=0)
    two = await store.get_task("t-1", history_length=2)

    assert none is not None
    assert list(none.task.history) == []
    assert two is not None
    assert [m.parts[0].text for m in two.task.history] == ["b", "c"]


async def test_a_retried_step_changes_nothing(store: Store) -> None:
    log = Log()
    first = log.step(task_event(log.task), messages=(user("go"),))
    second = log.step(log.status(TaskState.TASK_STATE_WORKING, "Looking."))
    await store.write_log(first)
    await store.write_log(second)

    await store.write_log(first)  # a late retry of an older step

    record = await store.get_task("t-1")
    assert record is not None
    assert record.version == 2
    assert record.task.status.state == TaskState.TASK_STATE_WORKING
    assert len(record.task.history) == 2
    assert len((await store.read_log("t-1", 0)).events) == 2


async def test_the_write_that_ends_a_task_says_so_once(store: Store) -> None:
    log = Log()
    working = log.step(task_event(log.task), log.status(TaskState.TASK_STATE_WORKING))
    done = log.step(log.status(TaskState.TASK_STATE_COMPLETED, "Done."))

    assert await store.write_log(working) is False
    assert await store.write_log(done) is True
    assert await store.write_log(done) is False  # retried: the end was stored already


async def test_an_end_is_stored_only_where_the_log_stands(store: Store) -> None:
    log = Log()
    await store.write_log(log.step(task_event(log.task), messages=(user("go"),)))
    await store.write_log(log.step(log.status(TaskState.TASK_STATE_INPUT_REQUIRED, "Which?")))
    stale = Log()
    stale.seq, stale.messages = 1, 1
    ending = log.step(log.status(TaskState.TASK_STATE_FAILED, "The workflow was terminated."))

    assert await store.end_task(stale.step(stale.status(TaskState.TASK_STATE_FAILED))) is False
    assert await store.end_task(ending) is True
    assert await store.end_task(ending) is False  # a second server noticed it too

    record = await store.get_task("t-1")
    assert record is not None
    assert record.version == 3
    assert record.task.status.state == TaskState.TASK_STATE_FAILED
    assert [m.parts[0].text for m in record.task.history][-1] == "The workflow was terminated."


async def test_a_waiter_is_woken_by_a_write_through_the_same_store(store: Store) -> None:
    log = Log()
    await store.write_log(log.step(task_event(log.task)))
    waiting = asyncio.create_task(store.wait_for_log("t-1", 1))
    await asyncio.sleep(0)
    assert not waiting.done()

    await store.write_log(log.step(log.status(TaskState.TASK_STATE_WORKING)))

    await asyncio.wait_for(waiting, timeout=30)


async def test_a_waiter_notices_a_write_by_another_process(
    store: Store, open_store: OpenStore
) -> None:
    log = Log()
    await store.write_log(log.step(task_event(log.task)))
    other = open_store()  # another process's connection to the same database
    try:
        waiting = asyncio.create_task(store.wait_for_log("t-1", 1))
        await other.write_log(log.step(log.status(TaskState.TASK_STATE_WORKING)))
        await asyncio.wait_for(waiting, timeout=30)
    finally:
        await other.close()


async def test_a_waiter_on_a_log_already_past_returns_at_once(store: Store) -> None:
    log = Log()
    await store.write_log(log.step(task_event(log.task), log.status(TaskState.TASK_STATE_WORKING)))

    await asyncio.wait_for(store.wait_for_log("t-1", 1), timeout=30)


async def test_a_tasks_conversation_is_read_by_range_as_written(store: Store) -> None:
    log = Log()
    asked = UserItem(message_id="u-go", text="go")
    answer = AssistantItem(text="", tool_calls=(ToolCall(call_id="c1", name="t", arguments={}),))
    result = ToolResultItem(call_id="c1", name="t", text="x" * 100_000)
    first = log.step(task_event(log.task), items=(asked, answer))
    await store.write_log(first)
    await store.write_log(log.step(log.status(TaskState.TASK_STATE_WORKING), items=(result,)))
    late = first.model_copy(update={"items": (UserItem(message_id="other", text="no"),)})
    await store.write_log(late)  # a retried step keeps what was written under its numbers

    assert await store.conversation("t-1", 0, 3) == (asked, answer, result)
    assert await store.conversation("t-1", 1, 2) == (answer,)
    assert await store.conversation("t-1", 3, 3) == ()


async def test_a_conversation_read_past_what_is_stored_is_refused(store: Store) -> None:
    log = Log()
    only = UserItem(message_id="a", text="a")
    await store.write_log(log.step(task_event(log.task), items=(only,)))

    with pytest.raises(StoreError, match="not all stored"):
        await store.conversation("t-1", 0, 2)
    with pytest.raises(StoreError, match="not all stored"):
        await store.conversation("t-2", 0, 1)


async def test_an_expired_task_goes_with_its_log_and_history(store: Store) -> None:
    log = Log()
    item = UserItem(message_id="u-go", text="go")
    await store.write_log(log.step(task_event(log.task), messages=(user("go"),), items=(item,)))
    await store.write_log(log.step(log.status(TaskState.TASK_STATE_COMPLETED, "Done.")))

    assert await store.delete_expired(RecordKind.TASK, T0 + timedelta(days=1)) == 1

    assert await store.get_task("t-1") is None
    assert (await store.read_log("t-1", 0)).events == ()
    messages = await execute(store, "SELECT COUNT(*) FROM task_messages")
    items = await execute(store, "SELECT COUNT(*) FROM task_items")
    assert (messages, items) == ([(0,)], [(0,)])


async def test_put_task_keeps_the_whole_task_with_its_history(store: Store) -> None:
    task = Task(id="t-9", context_id="ctx")
    task.status.state = TaskState.TASK_STATE_COMPLETED
    task.history.extend([user("one"), user("two")])

    await store.put_task(TaskRecord(task=task, version=4, updated_at=T0))

    record = await store.get_task("t-9")
    assert record is not None
    assert record.task == task
    assert record.version == 4


async def test_a_version_3_file_is_upgraded_with_its_history_and_log_moved_out(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    log = Log("t-old")
    events = (task_event(log.task), log.status(TaskState.TASK_STATE_COMPLETED, "Done."))
    for event in events:
        apply_event(log.task, event)
    old = log.task
    old.history.insert(0, user("go"))
    document = _Version3Row(task=old, version=2, updated_at=T0, events=events).model_dump_json()
    with closing(sqlite3.connect(path)) as v3, v3:
        v3.execute(
            "CREATE TABLE tasks (id TEXT PRIMARY KEY, context_id TEXT NOT NULL, state INTEGER "
            "NOT NULL, version INTEGER NOT NULL, updated_at TEXT NOT NULL, json TEXT NOT NULL)"
        )
        v3.execute(
            "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?)",
            (
                "t-old",
                "ctx",
                int(TaskState.TASK_STATE_COMPLETED),
                2,
                "2026-01-01T12:00:00Z",
                document,
            ),
        )
        v3.execute("PRAGMA user_version = 3")

    store = SqliteStore(path)
    try:
        record = await store.get_task("t-old")
        moved = (await store.read_log("t-old", 0)).events
    finally:
        await store.close()

    assert record is not None
    assert [m.parts[0].text for m in record.task.history] == ["go", "Done."]
    assert moved == events
    with closing(sqlite3.connect(path)) as peek:
        (row,) = peek.execute("SELECT json FROM tasks").fetchone()
    assert '"events"' not in row
    assert '"history"' not in row


class _Version3Row(BaseModel):
    """A task row as schema version 3 wrote it: history inside, the whole log at the end."""

    task: ProtoJson[Task]
    version: int
    updated_at: datetime
    events: tuple[ProtoJson[StreamResponse], ...]

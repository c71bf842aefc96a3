"""Behaviour of the retention sweep over a real `SqliteStore`."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from a2a.types import Task, TaskState, TaskStatus
from pydantic import ValidationError

from tests.harness.persistence.database import execute
from tiny_harness.config import load_settings
from tiny_harness.errors import StoreError
from tiny_harness.harness.context.compaction import CompactionRecord
from tiny_harness.harness.persistence.records import (
    ChannelMessageRecord,
    InboxAuditRecord,
    PlanRecord,
    Record,
    RecordKind,
    StateRecord,
    ToolResultRecord,
)
from tiny_harness.harness.persistence.retention import DEFAULT_TTL, RetentionConfig, sweep
from tiny_harness.harness.persistence.store import Store, TaskRecord
from tiny_harness.harness.tasks.plan import Plan, Step

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
TWO_DAYS_AGO = NOW - timedelta(days=2)
AN_HOUR_AGO = NOW - timedelta(hours=1)
LOGGER = "tiny_harness.harness.persistence.retention"


def one_day_for(*kinds: RecordKind) -> RetentionConfig:
    """A ttl of one day for `kinds`, the default for the rest."""
    return RetentionConfig(**{kind.value: timedelta(days=1) for kind in kinds})


def task_record(task_id: str, state: TaskState, updated_at: datetime) -> TaskRecord:
    task = Task(id=task_id, context_id="ctx-1", status=TaskStatus(state=state))
    return TaskRecord(task=task, version=1, updated_at=updated_at)


def records_of(task_id: str, recorded_at: datetime) -> tuple[Record, ...]:
    """One record of every task-scoped kind."""
    return (
        PlanRecord(
            task_id=task_id,
            context_id="ctx-1",
            revision=1,
            recorded_at=recorded_at,
            plan=Plan(steps=(Step(id="s1", name="Do it"),)),
        ),
        StateRecord(task_id=task_id, context_id="ctx-1", iteration=2, recorded_at=recorded_at),
        InboxAuditRecord(
            task_id=task_id,
            context_id="ctx-1",
            message_id="m-1",
            role="user",
            parts=1,
            text_chars=12,
            recorded_at=recorded_at,
        ),
        CompactionRecord(
            task_id=task_id,
            context_id="ctx-1",
            ordinal=1,
            recorded_at=recorded_at,
            removed_ids=("m-0",),
            summary="earlier turns",
            tokens_before=100,
            tokens_after=20,
        ),
        ChannelMessageRecord(
            id="m-1/0",
            task_id=task_id,
            channel_id=task_id,
            sender="alice",
            message_kind="message",
            text_chars=5,
            text_sha256="a" * 64,
            recorded_at=recorded_at,
        ),
        ToolResultRecord(
            task_id=task_id,
            call_id="call-1",
            name="library.shelf.read_book",
            text="a long page",
            recorded_at=recorded_at,
        ),
    )


async def add_task(store: Store, task_id: str, state: TaskState, moment: datetime) -> None:
    """A task last updated at `moment`, with one record of every kind recorded then."""
    await store.put_task(task_record(task_id, state, moment))
    for record in records_of(task_id, moment):
        await store.put_record(record)


async def kinds_left(store: Store, task_id: str) -> set[RecordKind]:
    """The kinds the store still holds for `task_id`."""
    left = {RecordKind.TASK} if await store.get_task(task_id) is not None else set()
    for kind in RecordKind:
        if kind is not RecordKind.TASK and await store.records(kind, task_id):
            left.add(kind)
    return left


def nothing_deleted() -> dict[RecordKind, int]:
    return dict.fromkeys(RecordKind, 0)


async def test_sweep_deletes_records_past_their_ttl_and_keeps_the_newer(
    store: Store,
) -> None:
    await add_task(store, "t-old", TaskState.TASK_STATE_COMPLETED, TWO_DAYS_AGO)
    await add_task(store, "t-new", TaskState.TASK_STATE_COMPLETED, AN_HOUR_AGO)

    deleted = await sweep(store, one_day_for(RecordKind.PLAN), NOW)

    assert deleted == {**nothing_deleted(), RecordKind.PLAN: 1}
    assert await kinds_left(store, "t-old") == set(RecordKind) - {RecordKind.PLAN}
    assert await kinds_left(store, "t-new") == set(RecordKind)


async def test_sweep_covers_every_kind(store: Store) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_FAILED, TWO_DAYS_AGO)

    deleted = await sweep(store, one_day_for(*RecordKind), NOW)

    assert deleted == dict.fromkeys(RecordKind, 1)
    assert await kinds_left(store, "t-1") == set()


async def test_sweep_never_takes_a_running_tasks_task_plan_state_or_tool_results(
    store: Store,
) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_INPUT_REQUIRED, TWO_DAYS_AGO)

    deleted = await sweep(store, one_day_for(*RecordKind), NOW)

    assert deleted == {
        **nothing_deleted(),
        RecordKind.INBOX_AUDIT: 1,
        RecordKind.COMPACTION: 1,
        RecordKind.CHANNEL_MESSAGE: 1,
    }
    assert await kinds_left(store, "t-1") == {
        RecordKind.TASK,
        RecordKind.PLAN,
        RecordKind.STATE,
        RecordKind.TOOL_RESULT,
    }


async def test_default_ttl_keeps_records_younger_than_thirty_days(store: Store) -> None:
    assert timedelta(days=30) == DEFAULT_TTL
    await add_task(store, "t-29", TaskState.TASK_STATE_COMPLETED, NOW - timedelta(days=29))
    await add_task(store, "t-31", TaskState.TASK_STATE_COMPLETED, NOW - timedelta(days=31))

    deleted = await sweep(store, RetentionConfig(), NOW)

    assert deleted == dict.fromkeys(RecordKind, 1)
    assert await kinds_left(store, "t-29") == set(RecordKind)
    assert await kinds_left(store, "t-31") == set()


async def test_ttl_reaching_before_year_one_keeps_everything(store: Store) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_COMPLETED, TWO_DAYS_AGO)
    forever = RetentionConfig.every(timedelta(days=999_999_999))

    assert await sweep(store, forever, NOW) == nothing_deleted()
    assert await kinds_left(store, "t-1") == set(RecordKind)


async def test_sweep_logs_one_info_line_with_the_non_zero_counts(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_COMPLETED, TWO_DAYS_AGO)
    caplog.set_level(logging.INFO, logger=LOGGER)

    await sweep(store, one_day_for(RecordKind.PLAN, RecordKind.COMPACTION), NOW)

    lines = [r for r in caplog.records if r.name == LOGGER and r.levelno >= logging.INFO]
    assert [(r.levelno, r.getMessage()) for r in lines] == [
        (logging.INFO, "retention sweep deleted 1 plan, 1 compaction")
    ]


async def test_sweep_that_deletes_nothing_logs_nothing_at_info(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_COMPLETED, AN_HOUR_AGO)
    caplog.set_level(logging.INFO, logger=LOGGER)

    assert await sweep(store, one_day_for(*RecordKind), NOW) == nothing_deleted()

    assert [r for r in caplog.records if r.name == LOGGER] == []


async def test_a_failing_kind_does_not_stop_the_others(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_COMPLETED, TWO_DAYS_AGO)
    # Break one kind's table under the open store: its DELETE fails inside SQLite.
    await execute(store, "DROP TABLE inbox_audit")
    caplog.set_level(logging.INFO, logger=LOGGER)

    with pytest.raises(StoreError, match="retention sweep failed for inbox_audit") as raised:
        await sweep(store, one_day_for(*RecordKind), NOW)

    assert isinstance(raised.value.__cause__, StoreError)
    assert "inbox_audit" in str(raised.value.__cause__)
    # The kinds before and after the broken one were swept all the same.
    assert await store.get_task("t-1") is None
    for kind in (
        RecordKind.PLAN,
        RecordKind.STATE,
        RecordKind.COMPACTION,
        RecordKind.CHANNEL_MESSAGE,
        RecordKind.TOOL_RESULT,
    ):
        assert await store.records(kind, "t-1") == ()
    logged = {(r.levelno, r.getMessage().split(":")[0]) for r in caplog.records if r.name == LOGGER}
    assert logged == {
        (logging.ERROR, "retention sweep"),
        (
            logging.INFO,
            "retention sweep deleted 1 task, 1 plan, 1 state, 1 compaction, 1 channel_message, "
            "1 tool_result",
        ),
    }


async def test_several_failing_kinds_are_all_named(store: Store) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_COMPLETED, TWO_DAYS_AGO)
    await execute(store, "DROP TABLE plans")
    await execute(store, "DROP TABLE compactions")

    with pytest.raises(StoreError, match="failed for plan, compaction "):
        await sweep(store, one_day_for(*RecordKind), NOW)

    assert await store.get_task("t-1") is None
    assert await store.records(RecordKind.STATE, "t-1") == ()
    assert await store.records(RecordKind.INBOX_AUDIT, "t-1") == ()


async def test_naive_now_is_refused_before_anything_is_deleted(store: Store) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_COMPLETED, TWO_DAYS_AGO)

    with pytest.raises(StoreError, match="timezone-aware"):
        await sweep(store, one_day_for(*RecordKind), NOW.replace(tzinfo=None))

    assert await kinds_left(store, "t-1") == set(RecordKind)


def test_a_ttl_must_be_positive() -> None:
    with pytest.raises(ValidationError, match="greater than 0"):
        RetentionConfig(plan=timedelta(0))


def test_channel_messages_have_their_own_ttl_in_toml_and_the_environment(
    tmp_path: Path,
) -> None:
    config = tmp_path / "harness.toml"
    config.write_text('[retention]\nchannel_message = "P7D"\n', encoding="utf-8")

    from_file = load_settings(config, environ={})
    from_env = load_settings(environ={"TINY_HARNESS_RETENTION__CHANNEL_MESSAGE": "P2D"})

    assert from_file.retention.ttl_of(RecordKind.CHANNEL_MESSAGE) == timedelta(days=7)
    assert from_env.retention.channel_message == timedelta(days=2)
    assert RetentionConfig().channel_message == DEFAULT_TTL


async def test_sweep_takes_only_the_channel_messages_past_their_ttl(store: Store) -> None:
    await add_task(store, "t-1", TaskState.TASK_STATE_WORKING, TWO_DAYS_AGO)

    deleted = await sweep(store, one_day_for(RecordKind.CHANNEL_MESSAGE), NOW)

    assert deleted == {**nothing_deleted(), RecordKind.CHANNEL_MESSAGE: 1}
    assert await kinds_left(store, "t-1") == set(RecordKind) - {RecordKind.CHANNEL_MESSAGE}

"""Behaviour of `SqliteStore`'s task-scoped records: plans, state, inbox audit, compactions,
channel messages."""

from __future__ import annotations

import sqlite3
import types
import typing
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from a2a.types import Task, TaskState, TaskStatus
from pydantic import BaseModel, SecretBytes, SecretStr

from tests.harness.persistence.database import execute
from tiny_harness.errors import StoreError
from tiny_harness.harness.context.compaction import CompactionRecord
from tiny_harness.harness.models.llm import Usage
from tiny_harness.harness.persistence.records import (
    ChannelMessageRecord,
    InboxAuditRecord,
    PlanRecord,
    Record,
    RecordKind,
    StateRecord,
    ToolResultRecord,
)
from tiny_harness.harness.persistence.sqlite import SCHEMA_VERSION, SqliteStore
from tiny_harness.harness.persistence.store import Store, TaskRecord
from tiny_harness.harness.tasks.plan import Plan, Step

NOW = datetime(2025, 3, 31, 12, 0, tzinfo=UTC)
TTL = timedelta(days=30)
CUTOFF = NOW - TTL
OLD = CUTOFF - timedelta(days=1)
"""A day past the cutoff: expired."""
RECENT = CUTOFF + timedelta(days=1)
"""A day within the cutoff: kept."""

FINAL_STATES = (
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
)
RUNNING_STATES = (
    TaskState.TASK_STATE_SUBMITTED,
    TaskState.TASK_STATE_WORKING,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.TASK_STATE_AUTH_REQUIRED,
)

V1_SCHEMA = (
    """
    CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        context_id TEXT NOT NULL,
        state INTEGER NOT NULL,
        version INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        json TEXT NOT NULL
    )
    """,
    "CREATE INDEX tasks_context_id ON tasks (context_id, updated_at, id)",
    "CREATE INDEX tasks_updated_at ON tasks (updated_at, id)",
)
"""The schema a version-1 store file has: the tasks table alone."""


def task_record(
    task_id: str, *, state: TaskState = TaskState.TASK_STATE_WORKING, updated_at: datetime = OLD
) -> TaskRecord:
    task = Task(id=task_id, context_id="ctx-1", status=TaskStatus(state=state))
    return TaskRecord(task=task, version=1, updated_at=updated_at)


def plan_record(task_id: str, *, revision: int = 1, recorded_at: datetime = OLD) -> PlanRecord:
    plan = Plan(
        steps=(
            Step(id="look", name="Look it up"),
            Step(id="answer", name="Answer", depends_on=("look",)),
        )
    )
    if revision > 1:
        plan = plan.complete("look", f"found at revision {revision}")
    return PlanRecord(
        task_id=task_id, context_id="ctx-1", revision=revision, recorded_at=recorded_at, plan=plan
    )


def state_record(task_id: str, *, iteration: int = 3, recorded_at: datetime = OLD) -> StateRecord:
    return StateRecord(
        task_id=task_id,
        context_id="ctx-1",
        iteration=iteration,
        recorded_at=recorded_at,
        loaded_skills=("refunds", "tone"),
        summary="the user wants a refund",
        compactions=1,
        usage=Usage(input_tokens=1200, cached_tokens=800, output_tokens=90),
        pending_question=f"call-{iteration}",
    )


def inbox_record(
    task_id: str, *, message_id: str = "m-1", recorded_at: datetime = OLD
) -> InboxAuditRecord:
    return InboxAuditRecord(
        task_id=task_id,
        context_id="ctx-1",
        message_id=message_id,
        role="user",
        parts=2,
        text_chars=41,
        reply_to="call-3",
        recorded_at=recorded_at,
    )


def compaction_record(
    task_id: str, *, ordinal: int = 1, recorded_at: datetime = OLD
) -> CompactionRecord:
    return CompactionRecord(
        task_id=task_id,
        context_id="ctx-1",
        ordinal=ordinal,
        recorded_at=recorded_at,
        removed_ids=("m-1", "assistant:call-1", "tool_result:call-1"),
        summary="looked up the order; it shipped on Monday",
        tokens_before=9000,
        tokens_after=2100,
    )


def channel_record(
    task_id: str, *, record_id: str = "m-1/0", recorded_at: datetime = OLD
) -> ChannelMessageRecord:
    return ChannelMessageRecord(
        id=record_id,
        task_id=task_id,
        channel_id=task_id,
        sender="alice",
        message_kind="help_request",
        text_chars=12,
        text_sha256="0" * 64,
        recorded_at=recorded_at,
    )


def tool_result_record(
    task_id: str, *, call_id: str = "call-1", recorded_at: datetime = OLD
) -> ToolResultRecord:
    return ToolResultRecord(
        task_id=task_id,
        call_id=call_id,
        name="library.shelf.read_book",
        text="chapter one " * 2_000,
        recorded_at=recorded_at,
    )


def record_of(kind: RecordKind, task_id: str, recorded_at: datetime) -> Record:
    """One record of `kind` for `task_id`."""
    match kind:
        case RecordKind.PLAN:
            return plan_record(task_id, recorded_at=recorded_at)
        case RecordKind.STATE:
            return state_record(task_id, recorded_at=recorded_at)
        case RecordKind.INBOX_AUDIT:
            return inbox_record(task_id, recorded_at=recorded_at)
        case RecordKind.COMPACTION:
            return compaction_record(task_id, recorded_at=recorded_at)
        case RecordKind.CHANNEL_MESSAGE:
            return channel_record(task_id, recorded_at=recorded_at)
        case RecordKind.TOOL_RESULT:
            return tool_result_record(task_id, recorded_at=recorded_at)
        case RecordKind.TASK:
            raise AssertionError("a task record is not a task-scoped record")


RECORD_KINDS = tuple(kind for kind in RecordKind if kind is not RecordKind.TASK)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "data" / "tasks.db")
    yield opened
    await opened.close()


# --- writing and reading ---------------------------------------------------------------


@pytest.mark.parametrize(
    "record",
    [
        plan_record("t-1", revision=2),
        state_record("t-1"),
        inbox_record("t-1"),
        compaction_record("t-1"),
        channel_record("t-1"),
        tool_result_record("t-1"),
    ],
    ids=lambda record: str(record.kind),
)
async def test_each_record_kind_round_trips(store: Store, record: Record) -> None:
    await store.put_record(record)

    assert await store.records(RecordKind(record.kind), "t-1") == (record,)
    assert await store.record(RecordKind(record.kind), record.key) == record


async def test_a_record_under_an_unknown_key_is_none(store: Store) -> None:
    await store.put_record(tool_result_record("t-1", call_id="call-1"))

    assert await store.record(RecordKind.TOOL_RESULT, "t-1/call-2") is None
    assert await store.record(RecordKind.PLAN, "t-1/call-1") is None


async def test_records_are_ordered_by_instant_not_by_written_offset(store: Store) -> None:
    # 12:00 at UTC+5 is 07:00 UTC, an hour before 08:00 UTC, though its wall clock is later.
    early = datetime(2025, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=5)))
    late = datetime(2025, 3, 1, 8, 0, tzinfo=UTC)
    await store.put_record(inbox_record("t-1", message_id="m-a", recorded_at=late))
    await store.put_record(inbox_record("t-1", message_id="m-b", recorded_at=early))

    loaded = await store.records(RecordKind.INBOX_AUDIT, "t-1")

    assert [record.key for record in loaded] == ["t-1/m-b", "t-1/m-a"]
    assert loaded[0].recorded_at == early


async def test_records_of_a_kind_stay_in_that_kinds_table(store: Store) -> None:
    await store.put_record(plan_record("t-1"))

    assert await store.records(RecordKind.STATE, "t-1") == ()
    assert await store.records(RecordKind.INBOX_AUDIT, "t-1") == ()
    assert await store.records(RecordKind.COMPACTION, "t-1") == ()
    assert await store.records(RecordKind.CHANNEL_MESSAGE, "t-1") == ()
    assert await store.records(RecordKind.TOOL_RESULT, "t-1") == ()


async def test_lower_plan_revision_never_replaces_a_higher_one(store: Store) -> None:
    await store.put_record(plan_record("t-1", revision=2))
    await store.put_record(plan_record("t-1", revision=1, recorded_at=NOW))

    (kept,) = await store.records(RecordKind.PLAN, "t-1")

    assert kept == plan_record("t-1", revision=2)


async def test_higher_plan_revision_replaces_the_stored_one(store: Store) -> None:
    await store.put_record(plan_record("t-1", revision=1))
    await store.put_record(plan_record("t-1", revision=2, recorded_at=NOW))

    assert await store.records(RecordKind.PLAN, "t-1") == (
        plan_record("t-1", revision=2, recorded_at=NOW),
    )


async def test_equal_version_replaces_the_stored_record(store: Store) -> None:
    first = state_record("t-1", iteration=4)
    retried = first.model_copy(update={"summary": "written again", "recorded_at": NOW})
    await store.put_record(first)
    await store.put_record(retried)

    assert await store.records(RecordKind.STATE, "t-1") == (retried,)


async def test_lower_state_iteration_never_replaces_a_higher_one(store: Store) -> None:
    await store.put_record(state_record("t-1", iteration=5))
    await store.put_record(state_record("t-1", iteration=4, recorded_at=NOW))

    assert await store.records(RecordKind.STATE, "t-1") == (state_record("t-1", iteration=5),)


async def test_records_are_oldest_first_and_only_the_tasks_own(store: Store) -> None:
    day = timedelta(days=1)
    # Written out of order, interleaved with another task's records.
    await store.put_record(compaction_record("t-1", ordinal=3, recorded_at=OLD + 2 * day))
    await store.put_record(compaction_record("t-2", ordinal=1, recorded_at=OLD))
    await store.put_record(compaction_record("t-1", ordinal=1, recorded_at=OLD))
    await store.put_record(compaction_record("t-1", ordinal=2, recorded_at=OLD + day))

    mine = await store.records(RecordKind.COMPACTION, "t-1")
    theirs = await store.records(RecordKind.COMPACTION, "t-2")

    assert [(record.task_id, record.key) for record in mine] == [
        ("t-1", "t-1/1"),
        ("t-1", "t-1/2"),
        ("t-1", "t-1/3"),
    ]
    assert [record.key for record in theirs] == ["t-2/1"]


async def test_records_of_one_instant_are_ordered_by_key(store: Store) -> None:
    for message_id in ("m-c", "m-a", "m-b"):
        await store.put_record(inbox_record("t-1", message_id=message_id, recorded_at=OLD))

    loaded = await store.records(RecordKind.INBOX_AUDIT, "t-1")

    assert [record.key for record in loaded] == ["t-1/m-a", "t-1/m-b", "t-1/m-c"]


async def test_records_of_an_unknown_task_are_empty(store: Store) -> None:
    await store.put_record(plan_record("t-1"))

    assert await store.records(RecordKind.PLAN, "t-unknown") == ()


async def test_records_of_the_task_kind_are_refused(store: Store) -> None:
    await store.put_task(task_record("t-1"))

    with pytest.raises(StoreError, match="not task-scoped"):
        await store.records(RecordKind.TASK, "t-1")


async def test_unreadable_stored_record_raises_store_error(store: Store) -> None:
    await store.put_record(plan_record("t-1"))
    await execute(store, "UPDATE plans SET json = ?", '{"kind": "plan", "bogus": 1}')

    with pytest.raises(StoreError, match="unreadable"):
        await store.records(RecordKind.PLAN, "t-1")


# --- naive datetimes -------------------------------------------------------------------


async def test_naive_recorded_at_is_refused(store: Store) -> None:
    naive = plan_record("t-1", recorded_at=datetime(2025, 3, 1, 12, 0))

    with pytest.raises(StoreError, match="timezone-aware"):
        await store.put_record(naive)

    assert await store.records(RecordKind.PLAN, "t-1") == ()


@pytest.mark.parametrize("kind", list(RecordKind))
async def test_naive_cutoff_is_refused(store: Store, kind: RecordKind) -> None:
    await store.put_record(inbox_record("t-1"))

    with pytest.raises(StoreError, match="timezone-aware"):
        await store.delete_expired(kind, datetime(2030, 1, 1))

    assert len(await store.records(RecordKind.INBOX_AUDIT, "t-1")) == 1


# --- expiry ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", RECORD_KINDS)
async def test_delete_expired_deletes_only_records_older_than_the_cutoff(
    store: Store, kind: RecordKind
) -> None:
    # Tasks that ended before the cutoff: only the records' own age decides.
    for task_id in ("t-old-1", "t-old-2", "t-at", "t-recent"):
        await store.put_task(
            task_record(task_id, state=TaskState.TASK_STATE_COMPLETED, updated_at=OLD)
        )
    await store.put_record(record_of(kind, "t-old-1", OLD))
    await store.put_record(record_of(kind, "t-old-2", CUTOFF - timedelta(microseconds=1)))
    await store.put_record(record_of(kind, "t-at", CUTOFF))
    await store.put_record(record_of(kind, "t-recent", RECENT))

    deleted = await store.delete_expired(kind, CUTOFF)

    assert deleted == 2
    assert await store.records(kind, "t-old-1") == ()
    assert await store.records(kind, "t-old-2") == ()
    assert len(await store.records(kind, "t-at")) == 1
    assert len(await store.records(kind, "t-recent")) == 1


async def test_delete_expired_of_nothing_expired_returns_zero(store: Store) -> None:
    await store.put_record(inbox_record("t-1", recorded_at=RECENT))

    assert await store.delete_expired(RecordKind.INBOX_AUDIT, CUTOFF) == 0
    assert await store.delete_expired(RecordKind.TASK, CUTOFF) == 0


@pytest.mark.parametrize("state", RUNNING_STATES, ids=TaskState.Name)
async def test_a_running_tasks_task_plan_and_state_survive_any_cutoff(
    store: Store, state: TaskState
) -> None:
    await store.put_task(task_record("t-1", state=state, updated_at=OLD))
    await store.put_record(plan_record("t-1", recorded_at=OLD))
    await store.put_record(state_record("t-1", recorded_at=OLD))
    far_future = datetime(9999, 1, 1, tzinfo=UTC)

    for kind in (RecordKind.TASK, RecordKind.PLAN, RecordKind.STATE):
        assert await store.delete_expired(kind, far_future) == 0

    assert await store.get_task("t-1") == task_record("t-1", state=state, updated_at=OLD)
    assert await store.records(RecordKind.PLAN, "t-1") == (plan_record("t-1"),)
    assert await store.records(RecordKind.STATE, "t-1") == (state_record("t-1"),)


@pytest.mark.parametrize("state", FINAL_STATES, ids=TaskState.Name)
async def test_a_final_tasks_task_plan_and_state_expire(store: Store, state: TaskState) -> None:
    await store.put_task(task_record("t-1", state=state, updated_at=OLD))
    await store.put_record(plan_record("t-1", recorded_at=OLD))
    await store.put_record(state_record("t-1", recorded_at=OLD))

    for kind in (RecordKind.PLAN, RecordKind.STATE, RecordKind.TASK):
        assert await store.delete_expired(kind, CUTOFF) == 1

    assert await store.get_task("t-1") is None
    assert await store.records(RecordKind.PLAN, "t-1") == ()
    assert await store.records(RecordKind.STATE, "t-1") == ()


async def test_a_final_task_is_kept_until_it_has_been_final_for_the_ttl(
    store: Store,
) -> None:
    await store.put_task(
        task_record("t-1", state=TaskState.TASK_STATE_COMPLETED, updated_at=RECENT)
    )

    assert await store.delete_expired(RecordKind.TASK, CUTOFF) == 0
    assert await store.get_task("t-1") is not None


async def test_a_final_tasks_old_plan_and_state_count_from_its_end(store: Store) -> None:
    # The plan was last changed long ago, but the task ended within the ttl: the plan
    # and state are the task's own, kept as long as the task record is.
    await store.put_task(
        task_record("t-1", state=TaskState.TASK_STATE_COMPLETED, updated_at=RECENT)
    )
    await store.put_record(plan_record("t-1", recorded_at=OLD))
    await store.put_record(state_record("t-1", recorded_at=OLD))

    assert await store.delete_expired(RecordKind.PLAN, CUTOFF) == 0
    assert await store.delete_expired(RecordKind.STATE, CUTOFF) == 0

    assert len(await store.records(RecordKind.PLAN, "t-1")) == 1
    assert len(await store.records(RecordKind.STATE, "t-1")) == 1


async def test_plan_and_state_of_a_task_the_store_never_saw_expire_by_age(
    store: Store,
) -> None:
    await store.put_record(plan_record("t-gone", recorded_at=OLD))
    await store.put_record(state_record("t-gone", recorded_at=OLD))

    assert await store.delete_expired(RecordKind.PLAN, CUTOFF) == 1
    assert await store.delete_expired(RecordKind.STATE, CUTOFF) == 1


@pytest.mark.parametrize(
    "kind", [RecordKind.INBOX_AUDIT, RecordKind.COMPACTION, RecordKind.CHANNEL_MESSAGE]
)
@pytest.mark.parametrize("state", [*RUNNING_STATES, *FINAL_STATES], ids=TaskState.Name)
async def test_inbox_audit_compactions_and_channel_messages_expire_by_age_whatever_the_task_state(
    store: Store, kind: RecordKind, state: TaskState
) -> None:
    await store.put_task(task_record("t-1", state=state, updated_at=RECENT))
    await store.put_record(record_of(kind, "t-1", OLD))

    assert await store.delete_expired(kind, CUTOFF) == 1
    assert await store.records(kind, "t-1") == ()


async def test_delete_expired_touches_only_its_own_kind(store: Store) -> None:
    await store.put_task(task_record("t-1", state=TaskState.TASK_STATE_FAILED))
    for kind in RECORD_KINDS:
        await store.put_record(record_of(kind, "t-1", OLD))

    assert await store.delete_expired(RecordKind.COMPACTION, CUTOFF) == 1

    assert await store.get_task("t-1") is not None
    for kind in (
        RecordKind.PLAN,
        RecordKind.STATE,
        RecordKind.INBOX_AUDIT,
        RecordKind.CHANNEL_MESSAGE,
    ):
        assert len(await store.records(kind, "t-1")) == 1


# --- schema ----------------------------------------------------------------------------


async def test_version_1_file_is_upgraded_in_place_and_keeps_its_tasks(tmp_path: Path) -> None:
    path = tmp_path / "tasks.db"
    old = task_record("t-1", state=TaskState.TASK_STATE_COMPLETED, updated_at=OLD)
    with sqlite3.connect(path) as v1:
        for statement in V1_SCHEMA:
            v1.execute(statement)
        v1.execute(
            "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?)",
            (
                "t-1",
                "ctx-1",
                int(TaskState.TASK_STATE_COMPLETED),
                1,
                OLD.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z",
                old.model_dump_json(),
            ),
        )
        v1.execute("PRAGMA user_version = 1")
    v1.close()

    store = SqliteStore(path)
    try:
        assert await store.get_task("t-1") == old
        await store.put_record(plan_record("t-1"))
        assert await store.records(RecordKind.PLAN, "t-1") == (plan_record("t-1"),)
    finally:
        await store.close()

    with sqlite3.connect(path) as peek:
        version = peek.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in peek.execute("SELECT name FROM sqlite_master")}
    peek.close()
    assert version == SCHEMA_VERSION == 6
    assert {
        "tasks",
        "plans",
        "state",
        "inbox_audit",
        "compactions",
        "channel_messages",
        "tool_results",
        "blobs",
        "blob_owners",
        "task_events",
        "task_messages",
        "task_items",
        "purged_tasks",
    } <= tables


async def test_records_survive_reopening_the_store(tmp_path: Path) -> None:
    path = tmp_path / "tasks.db"
    first = SqliteStore(path)
    await first.put_record(compaction_record("t-1"))
    await first.close()

    second = SqliteStore(path)
    try:
        assert await second.records(RecordKind.COMPACTION, "t-1") == (compaction_record("t-1"),)
    finally:
        await second.close()


# --- no secrets ------------------------------------------------------------------------

SECRET_WORDS = frozenset(
    {"secret", "password", "passwd", "credential", "credentials", "authorization", "apikey"}
)


def secret_fields(model: type[BaseModel], path: str = "") -> Iterator[str]:
    """The fields of `model` (and of the models inside it) whose name or type suggests a
    secret: `api_key`, `*_token` (not `*_tokens`, which are counts), a `SecretStr`..."""
    for name, field in model.model_fields.items():
        where = f"{path}{model.__name__}.{name}"
        words = name.lower().split("_")
        inner_types = list(annotation_types(field.annotation))
        if (
            SECRET_WORDS.intersection(words)
            or "api_key" in name.lower()
            or words[-1] in {"token", "key", "cookie"}
            or any(inner in (SecretStr, SecretBytes) for inner in inner_types)
        ):
            yield where
        for inner in inner_types:
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                yield from secret_fields(inner, f"{where} -> ")


def annotation_types(annotation: object) -> Iterator[object]:
    """Every type an annotation names, through unions, containers and `Annotated`."""
    if isinstance(annotation, typing.TypeAliasType):
        yield from annotation_types(annotation.__value__)
        return
    arguments = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Annotated:
        yield from annotation_types(arguments[0])
        return
    if arguments or isinstance(annotation, types.UnionType):
        for argument in arguments:
            yield from annotation_types(argument)
        return
    yield annotation


@pytest.mark.parametrize(
    "model",
    [
        TaskRecord,
        PlanRecord,
        StateRecord,
        InboxAuditRecord,
        CompactionRecord,
        ChannelMessageRecord,
    ],
    ids=lambda model: model.__name__,
)
def test_records_hold_no_secret_bearing_fields(model: type[BaseModel]) -> None:
    assert list(secret_fields(model)) == []


def test_secret_field_check_finds_a_credential_in_a_nested_model() -> None:
    class Credentials(BaseModel):
        api_key: SecretStr
        refresh_token: str
        tokens_used: int

    class Leaky(BaseModel):
        summary: str
        auth: Credentials | None = None
        cookies: tuple[SecretBytes, ...] = ()

    assert list(secret_fields(Leaky)) == [
        "Leaky.auth -> Credentials.api_key",
        "Leaky.auth -> Credentials.refresh_token",
        "Leaky.cookies",
    ]


def test_a_channel_message_record_keeps_no_text_only_its_length_and_digest() -> None:
    fields = set(ChannelMessageRecord.model_fields)

    assert "text" not in fields
    assert {"text_chars", "text_sha256"} <= fields
    with pytest.raises(ValueError, match="text_sha256"):
        channel_record("t-1").model_validate(
            {**channel_record("t-1").model_dump(), "text_sha256": "the text itself"}
        )

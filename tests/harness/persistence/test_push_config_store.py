"""Behaviour of `PushConfigStore`: our clients' push configs, token and credentials sealed,
in the SQLite file or the PostgreSQL database of the task store."""

from __future__ import annotations

import stat
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from a2a.types import AuthenticationInfo, Task, TaskPushNotificationConfig

from tests.harness.persistence.database import execute
from tiny_harness.errors import PushConfigError, PushConfigLimitError, PushKeyError, StoreError
from tiny_harness.harness.persistence.postgres import PostgresStore
from tiny_harness.harness.persistence.postgres_push_configs import PostgresPushConfigs
from tiny_harness.harness.persistence.push_config_store import (
    PushConfigStore,
    PushConfigTable,
    redacted,
)
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.sqlite_push_configs import SqlitePushConfigs
from tiny_harness.harness.persistence.store import Store, TaskRecord

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
TOKEN = "tok-0f1e2d3c4b5a-never-on-disk"
CREDENTIALS = "cred-a1b2c3d4e5f6-never-on-disk"
URL = "https://receiver.example/hooks/th-7781"


def make_config(
    task_id: str = "task-1",
    config_id: str = "",
    *,
    url: str = URL,
    token: str = TOKEN,
    scheme: str = "Bearer",
    credentials: str = CREDENTIALS,
) -> TaskPushNotificationConfig:
    return TaskPushNotificationConfig(
        id=config_id,
        task_id=task_id,
        url=url,
        token=token,
        authentication=AuthenticationInfo(scheme=scheme, credentials=credentials),
    )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "tiny-harness.sqlite3"


@pytest.fixture(params=["sqlite", "postgres"])
async def database(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[Store]:
    """The task store whose database the configs are kept in."""
    opened: Store
    if request.param == "sqlite":
        opened = SqliteStore(db_path)
    else:
        opened = PostgresStore(request.getfixturevalue("postgres_url"))
    yield opened
    await opened.close()


def table_in(database: Store) -> PushConfigTable:
    """The push configs' table in `database`."""
    if isinstance(database, SqliteStore):
        return SqlitePushConfigs(database.path)
    if isinstance(database, PostgresStore):
        return PostgresPushConfigs(database)
    raise TypeError(type(database).__name__)


@pytest.fixture
async def store(database: Store) -> AsyncIterator[PushConfigStore]:
    opened = PushConfigStore(table_in(database), KEY, max_per_task=3)
    yield opened
    await opened.close()


def raw_bytes(db_path: Path) -> bytes:
    """The database file and its WAL, as they are on disk."""
    wal = db_path.with_name(db_path.name + "-wal")
    return db_path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def file_mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- round trip and redaction -------------------------------------------------------------


async def test_put_then_for_dispatch_round_trips_the_whole_config(store: PushConfigStore) -> None:
    given = make_config(config_id="c-1")
    given.tenant = "acme"

    await store.put(given)
    opened = await store.for_dispatch("task-1", "c-1")

    assert opened == given


async def test_put_assigns_a_uuid_hex_id_when_empty_and_leaves_the_argument_alone(
    store: PushConfigStore,
) -> None:
    given = make_config()

    view = await store.put(given)

    assert len(view.id) == 32
    int(view.id, 16)
    assert given.id == ""
    assert given.token == TOKEN
    assert (await store.for_dispatch("task-1", view.id)) is not None


async def test_put_get_and_list_return_the_redacted_view(store: PushConfigStore) -> None:
    view = await store.put(make_config(config_id="c-1"))
    got = await store.get("task-1", "c-1")
    listed = await store.list("task-1")

    for config in (view, got, *listed):
        assert config is not None
        assert config.url == URL
        assert config.token == ""
        assert config.authentication.scheme == "Bearer"
        assert config.authentication.credentials == ""
    assert listed == [view]


async def test_config_without_authentication_stays_without_it(store: PushConfigStore) -> None:
    given = TaskPushNotificationConfig(id="c-1", task_id="task-1", url=URL)

    await store.put(given)

    got = await store.get("task-1", "c-1")
    opened = await store.for_dispatch("task-1", "c-1")
    assert got is not None
    assert not got.HasField("authentication")
    assert opened == given


def test_redacted_keeps_the_scheme_and_does_not_touch_its_argument() -> None:
    given = make_config(config_id="c-1")

    view = redacted(given)

    assert (view.token, view.authentication.credentials) == ("", "")
    assert view.authentication.scheme == "Bearer"
    assert given.token == TOKEN


async def test_list_is_in_creation_order_and_a_replacement_keeps_its_place(
    store: PushConfigStore,
) -> None:
    for config_id in ("c-b", "c-a", "c-c"):
        await store.put(make_config(config_id=config_id))
    await store.put(make_config(config_id="c-b", url="https://elsewhere.example/x"))

    listed = await store.list("task-1")

    assert [c.id for c in listed] == ["c-b", "c-a", "c-c"]
    assert listed[0].url == "https://elsewhere.example/x"
    assert await store.list("other-task") == []


async def test_unknown_config_reads_as_none(store: PushConfigStore) -> None:
    assert await store.get("task-1", "nope") is None
    assert await store.for_dispatch("task-1", "nope") is None


async def test_configs_of_different_tasks_may_share_an_id(store: PushConfigStore) -> None:
    await store.put(make_config("task-1", "same", token="one"))
    await store.put(make_config("task-2", "same", token="two"))

    first = await store.for_dispatch("task-1", "same")
    second = await store.for_dispatch("task-2", "same")
    assert (first and first.token, second and second.token) == ("one", "two")


# --- sealing ------------------------------------------------------------------------------


async def test_push_token_encrypted_at_rest(store: PushConfigStore, database: Store) -> None:
    await store.put(make_config(config_id="c-1"))
    await store.put(make_config(config_id="c-1"))  # and its replacement

    rows = await execute(database, "SELECT url, token, credentials FROM push_configs")
    stored = b"".join(bytes(value) for row in rows for value in row if isinstance(value, bytes))
    assert [row[0] for row in rows] == [URL]
    assert stored  # sealed, not left out
    assert TOKEN.encode() not in stored
    assert CREDENTIALS.encode() not in stored


async def test_the_sqlite_file_and_its_wal_hold_no_secret_and_are_private(db_path: Path) -> None:
    store = PushConfigStore(SqlitePushConfigs(db_path), KEY)
    await store.put(make_config(config_id="c-1"))
    await store.put(make_config(config_id="c-1"))  # and its replacement

    on_disk = raw_bytes(db_path)
    assert URL.encode() in on_disk
    assert TOKEN.encode() not in on_disk
    assert CREDENTIALS.encode() not in on_disk
    for path in (db_path, db_path.with_name(db_path.name + "-wal")):
        assert file_mode(path) == 0o600, path

    await store.close()  # the WAL is checkpointed into the file
    on_disk = raw_bytes(db_path)
    assert URL.encode() in on_disk
    assert TOKEN.encode() not in on_disk
    assert CREDENTIALS.encode() not in on_disk


async def test_a_different_key_cannot_open_the_secrets(
    store: PushConfigStore, database: Store
) -> None:
    await store.put(make_config(config_id="c-1"))
    other = PushConfigStore(table_in(database), OTHER_KEY)
    try:
        assert await other.get("task-1", "c-1") is not None  # the redacted view needs no key
        with pytest.raises(PushKeyError) as caught:
            await other.for_dispatch("task-1", "c-1")
    finally:
        await other.close()

    assert TOKEN not in str(caught.value)
    assert caught.value.__cause__ is None


@pytest.mark.parametrize(
    ("column", "to_task", "to_id"),
    [("token", "task-1", "c-2"), ("token", "task-2", "c-1"), ("credentials", "task-1", "c-2")],
)
async def test_a_sealed_value_copied_to_another_row_does_not_open(
    store: PushConfigStore, database: Store, column: str, to_task: str, to_id: str
) -> None:
    await store.put(make_config("task-1", "c-1"))
    await store.put(make_config(to_task, to_id, token="mine", credentials="mine"))
    await execute(
        database,
        f"UPDATE push_configs SET {column} = "
        f"(SELECT {column} FROM push_configs WHERE task_id = 'task-1' AND id = 'c-1') "
        "WHERE task_id = ? AND id = ?",
        to_task,
        to_id,
    )

    with pytest.raises(PushKeyError, match=column):
        await store.for_dispatch(to_task, to_id)
    assert await store.for_dispatch("task-1", "c-1") is not None


async def test_a_sealed_token_moved_into_the_credentials_does_not_open(
    store: PushConfigStore, database: Store
) -> None:
    await store.put(make_config("task-1", "c-1"))
    await execute(database, "UPDATE push_configs SET credentials = token")

    with pytest.raises(PushKeyError, match="credentials"):
        await store.for_dispatch("task-1", "c-1")


# --- refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        make_config(token="abc\r\nX-Injected: 1"),
        make_config(token="abc\n"),
        make_config(scheme="Bearer\r"),
        make_config(credentials="c\nX-Injected: 1"),
    ],
    ids=["token-crlf", "token-lf", "scheme-cr", "credentials-lf"],
)
async def test_line_breaks_in_header_values_are_refused_and_nothing_is_stored(
    store: PushConfigStore, config: TaskPushNotificationConfig
) -> None:
    with pytest.raises(PushConfigError) as caught:
        await store.put(config)

    assert "X-Injected" not in str(caught.value)
    assert TOKEN not in str(caught.value)
    assert await store.list(config.task_id) == []


@pytest.mark.parametrize(
    "config",
    [make_config(task_id=""), make_config(url="")],
    ids=["no-task-id", "no-url"],
)
async def test_config_without_task_id_or_url_is_refused(
    store: PushConfigStore, config: TaskPushNotificationConfig
) -> None:
    with pytest.raises(PushConfigError):
        await store.put(config)

    assert await store.list(config.task_id) == []


async def test_a_new_config_beyond_the_cap_is_refused_but_replacing_one_is_allowed(
    store: PushConfigStore,
) -> None:
    for config_id in ("c-1", "c-2", "c-3"):
        await store.put(make_config(config_id=config_id))

    with pytest.raises(PushConfigLimitError, match="3"):
        await store.put(make_config(config_id="c-4"))
    with pytest.raises(PushConfigLimitError):
        await store.put(make_config())  # an id to be assigned is a new id too
    await store.put(make_config(config_id="c-2", token="replaced"))
    await store.put(make_config("task-2", "c-4"))  # the cap is per task

    assert [c.id for c in await store.list("task-1")] == ["c-1", "c-2", "c-3"]
    replaced = await store.for_dispatch("task-1", "c-2")
    assert replaced is not None
    assert replaced.token == "replaced"


async def test_replacing_an_id_under_the_cap_does_not_count_twice(
    store: PushConfigStore,
) -> None:
    await store.put(make_config(config_id="c-1"))
    await store.put(make_config(config_id="c-1", token="again"))
    await store.put(make_config(config_id="c-2"))
    await store.put(make_config(config_id="c-3"))

    assert [c.id for c in await store.list("task-1")] == ["c-1", "c-2", "c-3"]


def test_a_key_that_is_not_32_bytes_is_refused(db_path: Path) -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        PushConfigStore(SqlitePushConfigs(db_path), KEY[:16])


# --- deleting -----------------------------------------------------------------------------


async def test_delete_removes_one_config_and_says_whether_it_existed(
    store: PushConfigStore,
) -> None:
    await store.put(make_config(config_id="c-1"))
    await store.put(make_config(config_id="c-2"))

    assert await store.delete("task-1", "c-1") is True
    assert await store.delete("task-1", "c-1") is False
    assert await store.delete("task-2", "c-2") is False

    assert [c.id for c in await store.list("task-1")] == ["c-2"]


async def test_delete_task_removes_all_of_its_configs_only(store: PushConfigStore) -> None:
    for config_id in ("c-1", "c-2"):
        await store.put(make_config("task-1", config_id))
    await store.put(make_config("task-2", "c-1"))

    assert await store.delete_task("task-1") == 2
    assert await store.delete_task("task-1") == 0

    assert await store.list("task-1") == []
    assert len(await store.list("task-2")) == 1


# --- sharing the store's file -------------------------------------------------------------


async def test_shares_the_task_stores_database_without_disturbing_it(
    store: PushConfigStore, database: Store
) -> None:
    now = datetime.now(UTC)
    task = Task(id="task-1", context_id="ctx-1")
    await database.put_task(TaskRecord(task=task, version=1, updated_at=now))
    await store.put(make_config(config_id="c-1"))
    await database.put_task(TaskRecord(task=task, version=2, updated_at=now))

    stored = await database.get_task("task-1")
    assert stored is not None
    assert stored.version == 2
    assert [c.id for c in await store.list("task-1")] == ["c-1"]


async def test_calls_after_close_fail(store: PushConfigStore) -> None:
    await store.close()
    await store.close()

    with pytest.raises(StoreError, match="closed"):
        await store.list("task-1")

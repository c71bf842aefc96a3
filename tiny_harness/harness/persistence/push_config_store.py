"""`PushConfigStore`: our clients' push-notification configs, their secrets sealed at rest.

A2A clients register, per task, where and how the server should push the task's updates: a
URL, and optionally a token and an authentication scheme with credentials. The URL, the
scheme and the ids are kept in clear; the token and the credentials are sealed with AES-GCM
under the push key (`push_key.py`), each with its own random 96-bit nonce and with the task
id, the config id and the field name as associated data, so a sealed value copied into another
row or field does not open.

Every read for a client is the redacted view (token and credentials cleared, scheme kept: show
the scheme, not the secret). Only `for_dispatch`, for the sender of a notification, opens the
secrets. The store checks what the store can: ids, the per-task cap, and CR/LF in the values
that become HTTP headers. Whether the URL may be called at all is the URL guard's business,
not this module's.

Limits: the table `push_configs` lives in the task store's SQLite file, beside and independent
of the store's tables (it is created here, with CREATE TABLE IF NOT EXISTS, and is not part of
the store's schema version), so deleting a task's record does not delete its configs: call
`delete_task`. Like `SqliteStore`, it is made for one writer process. Configs sealed under
another key (`TINY_HARNESS_PUSH_KEY` changed) stay listed but no longer open.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Final, Literal

from a2a.types import AuthenticationInfo, TaskPushNotificationConfig
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from tiny_harness.errors import PushConfigError, PushConfigLimitError, PushKeyError, StoreError
from tiny_harness.harness.persistence.push_key import PUSH_KEY_BYTES
from tiny_harness.harness.persistence.sqlite_file import SqliteFile

__all__ = ["PushConfigStore", "redacted"]

_NONCE_BYTES: Final[int] = 12
_SEAL_VERSION: Final[bytes] = b"\x01"
"""First byte of every sealed value: how it was sealed, should that ever change."""

type _SecretField = Literal["token", "credentials"]

_SCHEMA = """
    CREATE TABLE IF NOT EXISTS push_configs (
        seq INTEGER PRIMARY KEY,
        task_id TEXT NOT NULL,
        id TEXT NOT NULL,
        tenant TEXT NOT NULL,
        url TEXT NOT NULL,
        scheme TEXT,
        token BLOB,
        credentials BLOB,
        UNIQUE (task_id, id)
    )
"""
# `seq` is the creation order; `scheme` NULL means the config has no authentication at all;
# `token`/`credentials` NULL mean the client gave none. A replaced config keeps its `seq`.

_UPSERT = """
    INSERT INTO push_configs (task_id, id, tenant, url, scheme, token, credentials)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (task_id, id) DO UPDATE SET
        tenant = excluded.tenant,
        url = excluded.url,
        scheme = excluded.scheme,
        token = excluded.token,
        credentials = excluded.credentials
"""

_COLUMNS = "task_id, id, tenant, url, scheme, token, credentials"

type _Row = tuple[object, ...]


def redacted(config: TaskPushNotificationConfig) -> TaskPushNotificationConfig:
    """A copy of `config` without its token and credentials; the scheme is kept."""
    view = TaskPushNotificationConfig()
    view.CopyFrom(config)
    view.token = ""
    if view.HasField("authentication"):
        view.authentication.credentials = ""
    return view


class PushConfigStore:
    """Push configs in the SQLite file at `path` (created with its directory on first use),
    secrets sealed with the 32-byte `key`; at most `max_per_task` configs per task."""

    def __init__(self, path: Path, key: bytes, *, max_per_task: int = 10) -> None:
        if len(key) != PUSH_KEY_BYTES:
            raise ValueError(f"the push key must be {PUSH_KEY_BYTES} bytes, not {len(key)}")
        if max_per_task < 1:
            raise ValueError(f"max_per_task must be at least 1, not {max_per_task}")
        self._file = SqliteFile(path, label="push config store", prepare=_create_table)
        self._aead = AESGCM(key)
        self._max_per_task = max_per_task

    async def put(self, config: TaskPushNotificationConfig) -> TaskPushNotificationConfig:
        """Store `config`, replacing the task's config of the same id; its redacted view.

        An empty id is assigned one (uuid4 hex). Raises `PushConfigError` for an empty task
        id or URL, or a CR or LF in the token, scheme or credentials (they become HTTP
        headers), and `PushConfigLimitError` when the id is new and the task already has
        `max_per_task` configs. Nothing is stored when it raises.
        """
        stored = TaskPushNotificationConfig()
        stored.CopyFrom(config)
        _check(stored)
        if not stored.id:
            stored.id = uuid.uuid4().hex
        has_auth = stored.HasField("authentication")
        params = (
            stored.task_id,
            stored.id,
            stored.tenant,
            stored.url,
            stored.authentication.scheme if has_auth else None,
            self._seal(stored, "token", stored.token),
            self._seal(stored, "credentials", stored.authentication.credentials),
        )

        def put(connection: sqlite3.Connection) -> None:
            connection.execute("BEGIN IMMEDIATE")  # the count and the write see one state
            try:
                self._check_room(connection, stored.task_id, stored.id)
                connection.execute(_UPSERT, params)
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

        await self._call(f"write push config {stored.id!r} of task {stored.task_id!r}", put)
        return redacted(stored)

    async def get(self, task_id: str, config_id: str) -> TaskPushNotificationConfig | None:
        """The redacted view of the task's config `config_id`, or None."""
        row = await self._row(task_id, config_id)
        return None if row is None else redacted(self._config(row, open_secrets=False))

    async def list(self, task_id: str) -> list[TaskPushNotificationConfig]:
        """The redacted views of the task's configs, oldest first."""

        def select(connection: sqlite3.Connection) -> list[_Row]:
            rows: list[_Row] = connection.execute(
                f"SELECT {_COLUMNS} FROM push_configs WHERE task_id = ? ORDER BY seq",  # noqa: S608
                (task_id,),
            ).fetchall()
            return rows

        rows = await self._call(f"list push configs of task {task_id!r}", select)
        return [redacted(self._config(row, open_secrets=False)) for row in rows]

    async def delete(self, task_id: str, config_id: str) -> bool:
        """Delete the task's config `config_id`; whether there was one."""

        def delete(connection: sqlite3.Connection) -> bool:
            cursor = connection.execute(
                "DELETE FROM push_configs WHERE task_id = ? AND id = ?", (task_id, config_id)
            )
            return cursor.rowcount > 0

        return await self._call(f"delete push config {config_id!r} of task {task_id!r}", delete)

    async def delete_task(self, task_id: str) -> int:
        """Delete every config of the task; how many there were."""

        def delete(connection: sqlite3.Connection) -> int:
            cursor = connection.execute("DELETE FROM push_configs WHERE task_id = ?", (task_id,))
            return cursor.rowcount

        return await self._call(f"delete push configs of task {task_id!r}", delete)

    async def for_dispatch(self, task_id: str, config_id: str) -> TaskPushNotificationConfig | None:
        """The whole config, token and credentials opened, for sending a notification; None
        when there is no such config. Raises `PushKeyError` when a secret does not open (the
        push key changed, or the row was altered). Never hand the result to a client."""
        row = await self._row(task_id, config_id)
        return None if row is None else self._config(row, open_secrets=True)

    async def close(self) -> None:
        """Close the connection; later calls raise `StoreError`. Safe to call twice."""
        await self._file.close()

    # --- sealing -----------------------------------------------------------------------------

    def _seal(
        self, config: TaskPushNotificationConfig, field: _SecretField, value: str
    ) -> bytes | None:
        if not value:
            return None
        nonce = secrets.token_bytes(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, value.encode(), _bound_to(config, field))
        return _SEAL_VERSION + nonce + sealed

    def _open(self, config: TaskPushNotificationConfig, field: _SecretField, value: object) -> str:
        if value is None:
            return ""
        where = f"push config {config.id!r} of task {config.task_id!r}"
        if not isinstance(value, bytes) or not value.startswith(_SEAL_VERSION):
            raise PushKeyError(f"{where}: the stored {field} is not a sealed value")
        nonce, sealed = value[1 : 1 + _NONCE_BYTES], value[1 + _NONCE_BYTES :]
        try:
            opened = self._aead.decrypt(nonce, sealed, _bound_to(config, field))
        except InvalidTag:
            raise PushKeyError(
                f"{where}: the stored {field} does not open with this push key "
                "(the key changed since it was stored, or the row was altered)"
            ) from None
        try:
            return opened.decode()
        except UnicodeDecodeError:
            raise PushKeyError(f"{where}: the stored {field} is not text") from None

    def _config(self, row: _Row, *, open_secrets: bool) -> TaskPushNotificationConfig:
        task_id, config_id, tenant, url, scheme, token, credentials = row
        config = TaskPushNotificationConfig(
            task_id=_text(task_id), id=_text(config_id), tenant=_text(tenant), url=_text(url)
        )
        if scheme is not None:
            config.authentication.CopyFrom(AuthenticationInfo(scheme=_text(scheme)))
        if open_secrets:
            config.token = self._open(config, "token", token)
            opened = self._open(config, "credentials", credentials)
            if opened:
                config.authentication.credentials = opened
        return config

    # --- the connection ----------------------------------------------------------------------

    def _check_room(self, connection: sqlite3.Connection, task_id: str, config_id: str) -> None:
        """Refuse a new config id on a task that has `max_per_task` configs already."""
        existing: _Row | None = connection.execute(
            "SELECT 1 FROM push_configs WHERE task_id = ? AND id = ?", (task_id, config_id)
        ).fetchone()
        if existing is not None:
            return
        count_row: _Row = connection.execute(
            "SELECT COUNT(*) FROM push_configs WHERE task_id = ?", (task_id,)
        ).fetchone()
        if isinstance(count_row[0], int) and count_row[0] >= self._max_per_task:
            raise PushConfigLimitError(
                f"task {task_id!r} has {count_row[0]} push configs, the most allowed "
                f"({self._max_per_task}); delete one or replace one by its id"
            )

    async def _row(self, task_id: str, config_id: str) -> _Row | None:
        def select(connection: sqlite3.Connection) -> _Row | None:
            row: _Row | None = connection.execute(
                f"SELECT {_COLUMNS} FROM push_configs WHERE task_id = ? AND id = ?",  # noqa: S608
                (task_id, config_id),
            ).fetchone()
            return row

        return await self._call(f"read push config {config_id!r} of task {task_id!r}", select)

    async def _call[T](self, action: str, work: Callable[[sqlite3.Connection], T]) -> T:
        return await self._file.call(action, work)


def _create_table(connection: sqlite3.Connection, path: Path) -> None:
    try:
        connection.execute(_SCHEMA)
    except sqlite3.Error as exc:
        raise StoreError(f"push config store {path}: cannot create its table: {exc}") from exc


def _check(config: TaskPushNotificationConfig) -> None:
    """Refuse what the store can tell is malformed; messages name fields, never values."""
    if not config.task_id:
        raise PushConfigError("a push config needs a task id")
    if not config.url:
        raise PushConfigError(f"push config {config.id!r} of task {config.task_id!r} has no url")
    fields = {
        "token": config.token,
        "authentication.scheme": config.authentication.scheme,
        "authentication.credentials": config.authentication.credentials,
    }
    for name, value in fields.items():
        if "\r" in value or "\n" in value:
            raise PushConfigError(
                f"push config {config.id!r} of task {config.task_id!r}: {name} contains a "
                "line break (CR or LF), which would break or inject HTTP headers"
            )


def _bound_to(config: TaskPushNotificationConfig, field: _SecretField) -> bytes:
    """The associated data of a sealed value: where it belongs, encoded unambiguously."""
    return json.dumps(["tiny-harness push config", config.task_id, config.id, field]).encode()


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise StoreError(f"push_configs holds {type(value).__name__} where text belongs")
    return value

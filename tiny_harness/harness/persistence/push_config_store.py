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

Where the configs live is a `PushConfigTable`'s business: in the SQLite file beside the
task store (`sqlite_push_configs`), or in the PostgreSQL database the task store uses
(`postgres_push_configs`), so every server of a deployment reads the configs any of them
took. Deleting a task's record does not delete its configs: call `delete_task`. Configs
sealed under another key (`TINY_HARNESS_PUSH_KEY` changed) stay listed but no longer open.
"""

from __future__ import annotations

import json
import secrets
import uuid
from abc import ABC, abstractmethod
from typing import Final, Literal

from a2a.types import AuthenticationInfo, TaskPushNotificationConfig
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from tiny_harness.errors import PushConfigError, PushConfigLimitError, PushKeyError, StoreError
from tiny_harness.harness.persistence.push_key import PUSH_KEY_BYTES

__all__ = ["PushConfigRow", "PushConfigStore", "PushConfigTable", "redacted", "room_for", "row_of"]

_NONCE_BYTES: Final[int] = 12
_SEAL_VERSION: Final[bytes] = b"\x01"
"""First byte of every sealed value: how it was sealed, should that ever change."""

type _SecretField = Literal["token", "credentials"]

type PushConfigRow = tuple[str, str, str, str, str | None, bytes | None, bytes | None]
"""task_id, id, tenant, url, scheme (None: no authentication at all), token, credentials
(sealed; None: the client gave none), as a `PushConfigTable` keeps them."""


def redacted(config: TaskPushNotificationConfig) -> TaskPushNotificationConfig:
    """A copy of `config` without its token and credentials; the scheme is kept."""
    view = TaskPushNotificationConfig()
    view.CopyFrom(config)
    view.token = ""
    if view.HasField("authentication"):
        view.authentication.credentials = ""
    return view


class PushConfigTable(ABC):
    """Where the configs are kept: rows of `PushConfigRow`, at most a cap per task."""

    @abstractmethod
    async def put(self, row: PushConfigRow, max_per_task: int) -> None:
        """Insert the row, or replace the task's row of the same id (keeping its place in
        the creation order). Raises `PushConfigLimitError` (see `room_for`) for a new id
        on a task with `max_per_task` rows already: the count and the write are one
        transaction, so two racing writes cannot both pass the cap."""

    @abstractmethod
    async def rows(self, task_id: str) -> list[PushConfigRow]:
        """The task's rows, oldest first."""

    @abstractmethod
    async def row(self, task_id: str, config_id: str) -> PushConfigRow | None:
        """The task's row `config_id`, or None."""

    @abstractmethod
    async def delete(self, task_id: str, config_id: str) -> bool:
        """Delete the task's row `config_id`; whether there was one."""

    @abstractmethod
    async def delete_task(self, task_id: str) -> int:
        """Delete every row of the task; how many there were."""

    @abstractmethod
    async def close(self) -> None:
        """Release what the table holds; later calls raise `StoreError`."""


PUSH_CONFIG_COLUMNS: Final = "task_id, id, tenant, url, scheme, token, credentials"
"""The columns of a `PushConfigRow`, in its order."""


def push_config_upsert(mark: str) -> str:
    """Insert a row or replace the task's row of the same id (keeping its place in the
    creation order); `mark` is the database's parameter placeholder (`?` or `%s`)."""
    marks = ", ".join([mark] * 7)
    return f"""
        INSERT INTO push_configs ({PUSH_CONFIG_COLUMNS}) VALUES ({marks})
        ON CONFLICT (task_id, id) DO UPDATE SET
            tenant = excluded.tenant,
            url = excluded.url,
            scheme = excluded.scheme,
            token = excluded.token,
            credentials = excluded.credentials
    """  # noqa: S608 - only the fixed columns and placeholders are put in


def room_for(task_id: str, *, replaces: bool, count: int, max_per_task: int) -> None:
    """Refuse (`PushConfigLimitError`) a new config id on a task that has `max_per_task`
    configs already; a config that `replaces` one of the same id always has room."""
    if not replaces and count >= max_per_task:
        raise PushConfigLimitError(
            f"task {task_id!r} has {count} push configs, the most allowed "
            f"({max_per_task}); delete one or replace one by its id"
        )


def row_of(row: tuple[object, ...]) -> PushConfigRow:
    """A row as the database gives it, checked column by column."""
    task_id, config_id, tenant, url, scheme, token, credentials = row
    return (
        _text(task_id),
        _text(config_id),
        _text(tenant),
        _text(url),
        None if scheme is None else _text(scheme),
        _sealed(token),
        _sealed(credentials),
    )


class PushConfigStore:
    """Push configs in `table`, secrets sealed with the 32-byte `key`; at most
    `max_per_task` configs per task."""

    def __init__(self, table: PushConfigTable, key: bytes, *, max_per_task: int = 10) -> None:
        if len(key) != PUSH_KEY_BYTES:
            raise ValueError(f"the push key must be {PUSH_KEY_BYTES} bytes, not {len(key)}")
        if max_per_task < 1:
            raise ValueError(f"max_per_task must be at least 1, not {max_per_task}")
        self._table = table
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
        row: PushConfigRow = (
            stored.task_id,
            stored.id,
            stored.tenant,
            stored.url,
            stored.authentication.scheme if has_auth else None,
            self._seal(stored, "token", stored.token),
            self._seal(stored, "credentials", stored.authentication.credentials),
        )
        await self._table.put(row, self._max_per_task)
        return redacted(stored)

    async def get(self, task_id: str, config_id: str) -> TaskPushNotificationConfig | None:
        """The redacted view of the task's config `config_id`, or None."""
        row = await self._table.row(task_id, config_id)
        return None if row is None else redacted(self._config(row, open_secrets=False))

    async def list(self, task_id: str) -> list[TaskPushNotificationConfig]:
        """The redacted views of the task's configs, oldest first."""
        rows = await self._table.rows(task_id)
        return [redacted(self._config(row, open_secrets=False)) for row in rows]

    async def delete(self, task_id: str, config_id: str) -> bool:
        """Delete the task's config `config_id`; whether there was one."""
        return await self._table.delete(task_id, config_id)

    async def delete_task(self, task_id: str) -> int:
        """Delete every config of the task; how many there were."""
        return await self._table.delete_task(task_id)

    async def for_dispatch(self, task_id: str, config_id: str) -> TaskPushNotificationConfig | None:
        """The whole config, token and credentials opened, for sending a notification; None
        when there is no such config. Raises `PushKeyError` when a secret does not open (the
        push key changed, or the row was altered). Never hand the result to a client."""
        row = await self._table.row(task_id, config_id)
        return None if row is None else self._config(row, open_secrets=True)

    async def close(self) -> None:
        """Close the table; later calls raise `StoreError`. Safe to call twice."""
        await self._table.close()

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

    def _config(self, row: PushConfigRow, *, open_secrets: bool) -> TaskPushNotificationConfig:
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


def _sealed(value: object) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, memoryview):
        return value.tobytes()
    raise StoreError(f"push_configs holds {type(value).__name__} where a sealed value belongs")

"""`SqliteFile`: one private SQLite file, used from the event loop without blocking it.

Every store here keeps its tables in a local SQLite file the same way: the file (and its
directory) created readable by its owner only, since records hold user content and sealed
secrets; WAL mode and a busy timeout, so another process may read it or briefly contend
for it; one connection, opened on first use and guarded by a lock; every call run on a
worker thread through `asyncio.to_thread`. A store gives its schema as a `prepare`
function, run once when the connection opens. Every failure is a `StoreError` naming the
store and what it was doing.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tiny_harness.errors import StoreError

BUSY_TIMEOUT_MS = 5_000
"""How long a statement waits for a lock held by another connection before it fails."""

type Prepare = Callable[[sqlite3.Connection, Path], None]
"""Creates or checks a store's tables on a fresh connection; raises `StoreError`."""


class SqliteFile:
    """The SQLite file at `path`, for the store `label` ("sqlite store", …) whose tables
    `prepare` creates."""

    def __init__(self, path: Path, *, label: str, prepare: Prepare) -> None:
        self.path = path
        self._label = label
        self._prepare = prepare
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._closed = False

    async def call[T](self, action: str, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on the connection on a worker thread; `action` names it in errors."""
        return await asyncio.to_thread(self._locked, action, work)

    async def close(self) -> None:
        """Close the connection; later calls raise `StoreError`. Safe to call twice."""
        await asyncio.to_thread(self._close)

    def _locked[T](self, action: str, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            connection = self._open()
            try:
                return work(connection)
            # OverflowError: an int parameter beyond SQLite's 64-bit INTEGER.
            except (sqlite3.Error, OverflowError) as exc:
                raise StoreError(f"{self._label} {self.path}: {action} failed: {exc}") from exc

    def _open(self) -> sqlite3.Connection:
        """The connection, opened on first use. Call with the lock held."""
        if self._closed:
            raise StoreError(f"{self._label} {self.path} is closed")
        if self._connection is not None:
            return self._connection
        connection = open_private_database(self.path)
        try:
            self._prepare(connection, self.path)
        except BaseException:
            connection.close()
            raise
        self._connection = connection
        return connection

    def _close(self) -> None:
        with self._lock:
            self._closed = True
            connection, self._connection = self._connection, None
            if connection is None:
                return
            try:
                connection.close()
            except sqlite3.Error as exc:
                raise StoreError(f"{self._label} {self.path}: close failed: {exc}") from exc


@contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, rolled back if anything in it fails."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def open_private_database(path: Path) -> sqlite3.Connection:
    """A connection to the SQLite file at `path`: the file (and its directory) created
    readable by its owner only, WAL mode, `BUSY_TIMEOUT_MS`, autocommit, usable from any
    thread (callers serialise use with a lock). Raises `StoreError`."""
    _create_private_file(path)
    try:
        connection = sqlite3.connect(
            path,
            timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
            autocommit=True,
        )
    except sqlite3.Error as exc:
        raise StoreError(f"sqlite store {path}: cannot open: {exc}") from exc
    try:
        _set_pragmas(connection, path)
    except BaseException:
        connection.close()
        raise
    return connection


def _create_private_file(path: Path) -> None:
    """Create the database file (and its directory) readable by its owner only."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.close(descriptor)
        # SQLite gives its -wal and -shm files the mode of the database file.
        os.chmod(path, 0o600)
    except OSError as exc:
        raise StoreError(f"sqlite store {path}: cannot create the database file: {exc}") from exc


def _set_pragmas(connection: sqlite3.Connection, path: Path) -> None:
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode_row: tuple[object, ...] = connection.execute("PRAGMA journal_mode = WAL").fetchone()
    except sqlite3.Error as exc:
        raise StoreError(f"sqlite store {path}: cannot prepare the database: {exc}") from exc
    if str(mode_row[0]).lower() != "wal":
        raise StoreError(
            f"sqlite store {path}: cannot switch to WAL journal mode (got {mode_row[0]!r})"
        )


def text_of(value: object, column: str) -> str:
    """A text column's value; `StoreError` for anything else."""
    if not isinstance(value, str):
        raise StoreError(f"column {column} holds {type(value).__name__}, expected text")
    return value


def integer_of(value: object, column: str) -> int:
    """An integer column's value; `StoreError` for anything else."""
    if not isinstance(value, int):
        raise StoreError(f"column {column} holds {type(value).__name__}, expected an integer")
    return value

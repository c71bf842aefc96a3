"""What an operator reads of the tasks at a shell: the `tiny-harness tasks` command.

    tasks list [--state S] [--context ID] [--limit N]   one line a task, newest change first
    tasks show ID                                        the task as GetTask returns it (JSON)

Both read the store the server writes (no Temporal, no server needed), through the same
`Store` contract the A2A handler reads, so what they print is what a client would get, for
every participant's tasks. The store must exist: a mistyped data directory is an error, not
a new empty store.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from a2a.helpers import get_message_text
from a2a.types import TaskState
from google.protobuf.json_format import MessageToJson

from tiny_harness.errors import ConfigError, StoreError, UnknownTaskError
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.store import Store, TaskQuery, TaskRecord

MAX_LISTED: Final = 1000
"""The most tasks `tasks list` prints at once (a page of the store is 100)."""

_STATE_PREFIX: Final = "TASK_STATE_"
_SAYS_CHARS: Final = 60


def parse_state(text: str) -> int:
    """A task state from its A2A name (`TASK_STATE_INPUT_REQUIRED`) or its short form
    (`input-required`); `ConfigError` listing the states otherwise."""
    name = text.strip().upper().replace("-", "_")
    if not name.startswith(_STATE_PREFIX):
        name = _STATE_PREFIX + name
    if name not in TaskState.DESCRIPTOR.values_by_name or name == "TASK_STATE_UNSPECIFIED":
        known = ", ".join(_short(state) for state in TaskState.values() if state)
        raise ConfigError(f"unknown task state {text!r}; one of: {known}", variable="--state")
    return TaskState.Value(name)


async def list_lines(
    path: Path, *, state: int | None = None, context_id: str | None = None, limit: int = 20
) -> list[str]:
    """The newest `limit` matching tasks, one line each, then how many matched in all."""
    if not 1 <= limit <= MAX_LISTED:
        raise ConfigError(f"--limit must be 1 to {MAX_LISTED}, got {limit}", variable="--limit")
    async with AsyncExitStack() as stack:
        store = _open(path, stack)
        records: list[TaskRecord] = []
        token: str | None = None
        total = 0
        while len(records) < limit:
            query = TaskQuery(
                state=state,
                context_id=context_id,
                page_size=min(100, limit - len(records)),
                page_token=token,
                history_length=0,
            )
            page = await store.list_tasks(query)
            records.extend(page.records)
            total, token = page.total_size, page.next_page_token
            if token is None:
                break
    lines = [task_line(record) for record in records]
    shown = f"{len(records)} of {total}" if total > len(records) else f"{total}"
    return [*lines, f"{shown} {'task' if total == 1 else 'tasks'}"]


async def show_json(path: Path, task_id: str) -> str:
    """The task with its whole history, as GetTask returns it; `UnknownTaskError` when the
    store holds no such task."""
    async with AsyncExitStack() as stack:
        store = _open(path, stack)
        record = await store.get_task(task_id)
    if record is None:
        raise UnknownTaskError(f"no task {task_id} in the store at {path}")
    return MessageToJson(record.task, indent=2)


def task_line(record: TaskRecord) -> str:
    """`id  state  last change  context  what its status says`, the text cut to a line."""
    task = record.task
    says = get_message_text(task.status.message).replace("\n", " ").strip()
    if len(says) > _SAYS_CHARS:
        says = says[: _SAYS_CHARS - 1] + "…"
    changed = _changed(record).strftime("%Y-%m-%d %H:%M:%S")
    return f"{task.id}  {_short(task.status.state):<14}  {changed}  {task.context_id}  {says}"


def _changed(record: TaskRecord) -> datetime:
    status = record.task.status
    if status.HasField("timestamp"):
        return status.timestamp.ToDatetime(UTC)
    return record.updated_at.astimezone(UTC)


def _short(state: int) -> str:
    return TaskState.Name(state).removeprefix(_STATE_PREFIX).lower().replace("_", "-")


def _open(path: Path, stack: AsyncExitStack) -> Store:
    if not path.is_file():
        raise StoreError(f"no store at {path} (give the server's --data-dir or --config)")
    store = SqliteStore(path)
    stack.push_async_callback(store.close)
    return store

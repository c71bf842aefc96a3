"""What an operator reads of the tasks at a shell: the `tiny-harness tasks` command.

    tasks list [--state S] [--context ID] [--limit N]   one line a task, newest change first
    tasks show ID                                        the task as GetTask returns it (JSON)
    tasks purge ID                                       the task gone now, not at retention

`list` and `show` read the store the server writes (no Temporal, no server needed), through
the same `Store` contract the A2A handler reads, so what they print is what a client would
get, for every participant's tasks. The store must exist: a mistyped data directory is an
error, not a new empty store.

`purge` is for a deletion request that cannot wait for retention. It ends the task's
workflows first (the task, its stand-ins `<id>.sub-N` and its couriers `<id>.push.<config>`,
found by their ids in Temporal's visibility) and deletes their executions, every run, from
Temporal, so nothing writes the task again and its history is gone too; then it deletes
what the store holds of it (`Store.purge_task`, which keeps the id so a write already on its
way brings nothing back) and its push configs. Temporal must be reachable (the embedded one
while `serve` runs): without it nothing is deleted. Participant tasks a task created are
tasks of their own, purged by their own ids.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from datetime import UTC, datetime
from typing import Final

from a2a.helpers import get_message_text
from a2a.types import TaskState
from google.protobuf.json_format import MessageToJson
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import DeleteWorkflowExecutionRequest
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from tiny_harness.config import Settings, TemporalConfig
from tiny_harness.errors import (
    ConfigError,
    TemporalUnavailableError,
    UnknownTaskError,
)
from tiny_harness.harness.persistence.push_key import resolve_push_key
from tiny_harness.harness.persistence.store import Purged, TaskQuery, TaskRecord
from tiny_harness.service import storage
from tiny_harness.service.durable.client.temporal import client_of

MAX_LISTED: Final = 1000
"""The most tasks `tasks list` prints at once (a page of the store is 100)."""

PURGE_REASON: Final = "purged by an operator (tiny-harness tasks purge)"

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
    settings: Settings, *, state: int | None = None, context_id: str | None = None, limit: int = 20
) -> list[str]:
    """The newest `limit` matching tasks, one line each, then how many matched in all."""
    if not 1 <= limit <= MAX_LISTED:
        raise ConfigError(f"--limit must be 1 to {MAX_LISTED}, got {limit}", variable="--limit")
    async with AsyncExitStack() as stack:
        store = storage.open_store(settings, stack, existing=True)
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


async def show_json(settings: Settings, task_id: str) -> str:
    """The task with its whole history, as GetTask returns it; `UnknownTaskError` when the
    store holds no such task."""
    async with AsyncExitStack() as stack:
        store = storage.open_store(settings, stack, existing=True)
        record = await store.get_task(task_id)
    if record is None:
        raise UnknownTaskError(f"no task {task_id} in the store ({storage.describe(settings)})")
    return MessageToJson(record.task, indent=2)


async def purge(settings: Settings, task_id: str) -> list[str]:
    """End and delete the task's workflows, then delete what the store holds of it; what
    was deleted, a line each. `UnknownTaskError` when neither knows the task."""
    if not task_id or any(c in task_id for c in "'\"\\"):
        raise UnknownTaskError(f"no task {task_id!r}")  # no id of ours holds a quote
    async with AsyncExitStack() as stack:
        store = storage.open_store(settings, stack, existing=True)
        client = await _temporal(settings.temporal)
        ended = await _end_workflows(client, task_id)
        purged = await store.purge_task(task_id)
        if purged is None and not ended:
            raise UnknownTaskError(f"no task {task_id} in the store ({storage.describe(settings)})")
        key = resolve_push_key(
            settings.push_key,
            data_dir=settings.data_dir,
            embedded=settings.temporal.address is None,
        )
        configs = storage.push_configs(settings, store, key, stack)
        dropped = await configs.delete_task(task_id)
    return [f"purged task {task_id}", *_ended_lines(ended), _store_line(purged, dropped)]


async def _end_workflows(client: Client, task_id: str) -> list[tuple[str, str, bool]]:
    """Every run of the task's workflows (id, run id, whether it was running), ended and
    deleted from Temporal; the task's own runs first, so it writes nothing more."""
    query = f"WorkflowId = '{task_id}' OR WorkflowId STARTS_WITH '{task_id}.'"
    runs = [
        (execution.id, execution.run_id, execution.status == WorkflowExecutionStatus.RUNNING)
        async for execution in client.list_workflows(query)
    ]
    # Visibility lags a start by a moment: the task's own newest run is asked for by id.
    newest = await _newest_run(client, task_id)
    if newest is not None and newest[1] not in {run_id for _, run_id, _ in runs}:
        runs.append(newest)
    runs.sort(key=lambda run: run[0] != task_id)
    for workflow_id, run_id, running in runs:
        if running:
            await client.get_workflow_handle(workflow_id, run_id=run_id).terminate(PURGE_REASON)
        execution = WorkflowExecution(workflow_id=workflow_id, run_id=run_id)
        request = DeleteWorkflowExecutionRequest(
            namespace=client.namespace, workflow_execution=execution
        )
        await client.workflow_service.delete_workflow_execution(request)
    return runs


async def _newest_run(client: Client, workflow_id: str) -> tuple[str, str, bool] | None:
    try:
        described = await client.get_workflow_handle(workflow_id).describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return None
        raise
    return workflow_id, described.run_id, described.status == WorkflowExecutionStatus.RUNNING


async def _temporal(config: TemporalConfig) -> Client:
    """A plain client of the configured Temporal (the embedded one's port without an
    address): ending and deleting workflows carries no payload."""
    address = config.address or f"127.0.0.1:{config.embedded_port}"
    try:
        return await client_of(config, address)
    except TemporalUnavailableError as error:
        raise TemporalUnavailableError(
            f"{error.message}; nothing was deleted: the task's workflows must end first "
            "(start the server, or set TINY_HARNESS_TEMPORAL__ADDRESS)"
        ) from error


def _ended_lines(runs: list[tuple[str, str, bool]]) -> list[str]:
    if not runs:
        return ["workflows: none in Temporal"]
    running = sorted({workflow_id for workflow_id, _, alive in runs if alive})
    ended = f"ended {', '.join(running)}" if running else "none was running"
    counted = f"{len(runs)} {'run' if len(runs) == 1 else 'runs'}"
    return [f"workflows: {counted} deleted from Temporal ({ended})"]


def _store_line(purged: Purged | None, configs: int) -> str:
    if purged is None:
        return f"store: the task was not stored; push configs: {configs}"
    records = ", ".join(f"{kind} {count}" for kind, count in sorted(purged.records.items()))
    return (
        f"store: {purged.events} events, {purged.messages} messages, {purged.items} "
        f"conversation items, records: {records or 'none'}, {purged.blobs} stored payloads; "
        f"push configs: {configs}"
    )


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

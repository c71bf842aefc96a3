"""`TaskGateway`: the one place the A2A server talks to Temporal about a task.

The server never runs loop code and keeps no task state of its own: every operation on a
task here is an update, signal or query on its workflow (workflow id = task id), or a read
of the store once the workflow has closed. What spans tasks goes to the store itself, which
the gateway hands out (`store`): a listing, the owner of a context, and the record of a
channel post kept before its task takes it. Temporal failures come back as the harness's own
errors (`UnknownTaskError`, `FinalTaskError`, `InvalidMessageError`), never as raw RPC
errors, so the A2A layer can map them to protocol errors in one place.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import timedelta

from a2a.types import Message
from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from tiny_harness.errors import (
    FinalTaskError,
    InvalidMessageError,
    UnknownTaskError,
    WatchUnavailableError,
)
from tiny_harness.harness.models.prices import ModelPrice
from tiny_harness.harness.persistence.store import Store, TaskRecord
from tiny_harness.harness.settings.retry import RetryPolicies
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.service.durable.payloads import (
    EventPage,
    InboxReceipt,
    LoggedEvent,
    TaskSnapshot,
    TaskStart,
)
from tiny_harness.service.durable.workflows.inbox import INVALID_ENVELOPE_ERROR
from tiny_harness.service.durable.workflows.task import (
    EMPTY_MESSAGE_ERROR,
    FINAL_TASK_ERROR,
    TaskWorkflow,
)
from tiny_harness.service.durable.workflows.task_log import PAGE_SIZE

logger = logging.getLogger(__name__)

QUERY_TIMEOUT = timedelta(seconds=10)


class TaskGateway:
    """Start, message, watch, read and cancel task workflows."""

    def __init__(
        self,
        client: Client,
        *,
        task_queue: str,
        store: Store,
        history_event_bound: int = 10_000,
        retries: RetryPolicies | None = None,
        max_model_calls: int = 100,
        max_task_tokens: int | None = None,
        prices: Mapping[str, ModelPrice] | None = None,
    ) -> None:
        self._client = client
        self._task_queue = task_queue
        self._store = store
        self._history_event_bound = history_event_bound
        self._retries = retries or RetryPolicies()
        self._max_model_calls = max_model_calls
        self._max_task_tokens = max_task_tokens
        self._prices = dict(prices or {})

    @property
    def store(self) -> Store:
        """The store: records of closed tasks, and what spans tasks (listings, contexts,
        channel posts), which the A2A handler reads and writes itself."""
        return self._store

    async def start(self, task_id: str, context_id: str, message: Message) -> InboxReceipt:
        """Start a new task's workflow with `message` in its inbox, in one call."""
        operation = WithStartWorkflowOperation(
            TaskWorkflow.run,
            TaskStart(
                task_id=task_id,
                context_id=context_id,
                history_event_bound=self._history_event_bound,
                retries=self._retries,
                max_model_calls=self._max_model_calls,
                max_task_tokens=self._max_task_tokens,
                prices=self._prices,
            ),
            id=task_id,
            task_queue=self._task_queue,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        )
        try:
            return await self._client.execute_update_with_start_workflow(
                TaskWorkflow.inbox, message, start_workflow_operation=operation
            )
        except WorkflowUpdateFailedError as error:
            raise _refusal(task_id, error) from error

    async def send(self, task_id: str, message: Message) -> InboxReceipt:
        """Deliver `message` to an existing task; never starts a workflow."""
        try:
            return await self._handle(task_id).execute_update(TaskWorkflow.inbox, message)
        except WorkflowUpdateFailedError as error:
            raise _refusal(task_id, error) from error
        except RPCError as error:
            if error.status != RPCStatusCode.NOT_FOUND:
                raise
            if await self._store.get_task(task_id) is not None or await self._closed(task_id):
                raise FinalTaskError(
                    f"task {task_id} is final and takes no more messages"
                ) from error
            raise UnknownTaskError(f"no task {task_id}") from error

    async def snapshot(self, task_id: str) -> TaskSnapshot | None:
        """The task as it stands, or None when no such task exists."""
        record = await self._store.get_task(task_id)
        if record is not None and record.task.status.state in FINAL:
            return TaskSnapshot(task=record.task, version=record.version)
        try:
            return await self._handle(task_id).query(TaskWorkflow.task, rpc_timeout=QUERY_TIMEOUT)
        except RPCError as error:
            if record is not None:
                logger.warning(
                    "task %s: query failed (%s); answering from the store", task_id, error
                )
                return TaskSnapshot(task=record.task, version=record.version)
            if error.status == RPCStatusCode.NOT_FOUND:
                return None
            raise

    async def watch(self, task_id: str, cursor: int) -> EventPage:
        """Wait for events past `cursor`; raises `WatchUnavailableError` when reading must do."""
        try:
            return await self._handle(task_id).execute_update(TaskWorkflow.watch, cursor)
        except WorkflowUpdateRPCTimeoutOrCancelledError as error:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise asyncio.CancelledError from error
            raise WatchUnavailableError("the watch timed out") from error
        except RPCError as error:
            if error.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.RESOURCE_EXHAUSTED):
                raise WatchUnavailableError(str(error)) from error
            raise

    async def read(self, task_id: str, cursor: int) -> EventPage:
        """Events past `cursor` without waiting: from the final record, else by query."""
        record = await self._store.get_task(task_id)
        if record is not None and record.events:
            return _page_of(record, cursor)
        return await self._handle(task_id).query(
            TaskWorkflow.events_since, cursor, rpc_timeout=QUERY_TIMEOUT
        )

    async def cancel(self, task_id: str, reason: str) -> None:
        """Ask the task to end CANCELED."""
        try:
            await self._handle(task_id).signal(TaskWorkflow.cancel, reason)
        except RPCError as error:
            if error.status != RPCStatusCode.NOT_FOUND:
                raise
            raise FinalTaskError(f"task {task_id} is already final") from error

    async def _closed(self, task_id: str) -> bool:
        try:
            await self._handle(task_id).describe()
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                return False
            raise
        return True

    def _handle(self, task_id: str) -> WorkflowHandle[TaskWorkflow, TaskSnapshot]:
        return self._client.get_workflow_handle_for(TaskWorkflow.run, task_id)


def _refusal(task_id: str, error: WorkflowUpdateFailedError) -> Exception:
    cause = error.cause
    if isinstance(cause, ApplicationError):
        if cause.type == FINAL_TASK_ERROR:
            return FinalTaskError(f"task {task_id} is final and takes no more messages")
        if cause.type in (EMPTY_MESSAGE_ERROR, INVALID_ENVELOPE_ERROR):
            return InvalidMessageError(cause.message)
    return error


def _page_of(record: TaskRecord, cursor: int) -> EventPage:
    start = max(cursor, 0)
    events = tuple(
        LoggedEvent(seq=seq, event=event)
        for seq, event in enumerate(record.events[start : start + PAGE_SIZE], start=start)
    )
    return EventPage(
        events=events,
        next_cursor=start + len(events),
        state=record.task.status.state,
        log_length=len(record.events),
        closing=True,
    )

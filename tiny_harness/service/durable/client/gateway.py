"""`TaskGateway`: the one way to a task's workflow, and to what the store holds of it.

The server never runs loop code and keeps no task state of its own. Writing to a task is an
update or a signal on its workflow (workflow id = task id): SendMessage (update-with-start
for a new task), CancelTask. Reading is the store's alone: the workflow writes its log
there as it grows, so GetTask, streams and subscriptions never ask the workflow and add
nothing to its history; `wait_for_log` wakes a reader when the log grows or when the
workflow ended outside its loop (`Endings` then stores the task's end). What spans tasks
is the store's too, which the gateway hands out (`store`): a listing, the owner of a
context, and the record of a channel post kept before its task takes it. Temporal failures
come back as the harness's own errors (`UnknownTaskError`, `FinalTaskError`,
`InvalidMessageError`), never as raw RPC errors, so the A2A layer maps them in one place.

A message is delivered whatever the workers are doing: while none takes it (all of them
restarting, say), Temporal's update call runs out of time with the message admitted but not
yet taken, and the gateway asks again under the same update id (one per delivery, not the
message's id: a sender who sends a message twice is told the second is a duplicate), so
Temporal joins the call to the one under way instead of delivering the message twice. It
asks for as long as the sender waits, logging each time it has to.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import timedelta

from a2a.types import Message, Task
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
    UnknownTaskError,
)
from tiny_harness.harness.models.prices import ModelPrice
from tiny_harness.harness.persistence.store import Store, TaskRecord
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.settings.retry import RetryPolicies
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.service.durable import search_attributes
from tiny_harness.service.durable.client.endings import Endings
from tiny_harness.service.durable.payloads import InboxReceipt, TaskSnapshot, TaskStart
from tiny_harness.service.durable.workflows.task import TaskWorkflow
from tiny_harness.service.o11y.agent_spans import current_trace
from tiny_harness.service.refusals import harness_error

logger = logging.getLogger(__name__)


ENDING_CHECK_SECONDS = 5.0
"""How long a reader waits on a quiet log before it looks whether the task's workflow ended
outside its loop."""


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
        show_call_details: bool = True,
        trace_url: str | None = None,
        prices: Mapping[str, ModelPrice] | None = None,
        redactor: Redactor | None = None,
        update_rpc_timeout: timedelta | None = None,
        searchable: bool = False,
    ) -> None:
        """`redactor` masks what the gateway stores itself (the end of a task whose workflow
        ended outside the loop); `update_rpc_timeout` bounds each try at delivering a
        message (None: the Temporal client's own deadline); `searchable`: the namespace has
        the tasks' search attributes, which new tasks then carry."""
        self._client = client
        self._endings = Endings(client, store, redactor)
        self._task_queue = task_queue
        self._store = store
        self._history_event_bound = history_event_bound
        self._retries = retries or RetryPolicies()
        self._max_model_calls = max_model_calls
        self._max_task_tokens = max_task_tokens
        self._show_call_details = show_call_details
        self._trace_url = trace_url
        self._prices = dict(prices or {})
        self._update_rpc_timeout = update_rpc_timeout
        self._searchable = searchable

    @property
    def store(self) -> Store:
        """The store: records of closed tasks, and what spans tasks (listings, contexts,
        channel posts), which the A2A handler reads and writes itself."""
        return self._store

    async def start(self, task_id: str, context_id: str, message: Message) -> InboxReceipt:
        """Start a new task's workflow with `message` in its inbox, in one call."""
        start = TaskStart(
            task_id=task_id,
            context_id=context_id,
            history_event_bound=self._history_event_bound,
            retries=self._retries,
            max_model_calls=self._max_model_calls,
            max_task_tokens=self._max_task_tokens,
            show_call_details=self._show_call_details,
            trace=current_trace(self._trace_url),
            prices=self._prices,
        )
        searchable = self._searchable
        attributes = (
            search_attributes.at_start(context_id, self._task_queue) if searchable else None
        )

        def deliver(update_id: str) -> Awaitable[InboxReceipt]:
            # An operation is used once: each try starts (or finds) the workflow anew.
            operation = WithStartWorkflowOperation(
                TaskWorkflow.run,
                start,
                id=task_id,
                task_queue=self._task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                search_attributes=attributes,
            )
            return self._client.execute_update_with_start_workflow(
                TaskWorkflow.inbox,
                message,
                start_workflow_operation=operation,
                id=update_id,
                rpc_timeout=self._update_rpc_timeout,
            )

        try:
            return await self._until_taken(task_id, message, deliver)
        except WorkflowUpdateFailedError as error:
            raise _refusal(task_id, error) from error

    async def send(self, task_id: str, message: Message) -> InboxReceipt:
        """Deliver `message` to an existing task; never starts a workflow."""

        def deliver(update_id: str) -> Awaitable[InboxReceipt]:
            return self._handle(task_id).execute_update(
                TaskWorkflow.inbox, message, id=update_id, rpc_timeout=self._update_rpc_timeout
            )

        try:
            return await self._until_taken(task_id, message, deliver)
        except WorkflowUpdateFailedError as error:
            raise _refusal(task_id, error) from error
        except RPCError as error:
            if error.status != RPCStatusCode.NOT_FOUND:
                raise
            record = await self._store.get_task(task_id)
            if record is not None and _holds(record.task, message.message_id):
                # A sender retrying a message the task took before it ended: the same
                # answer as while it ran, not a refusal of a message it has.
                return _taken_already(record)
            if record is not None or await self._closed(task_id):
                raise FinalTaskError(
                    f"task {task_id} is final and takes no more messages"
                ) from error
            raise UnknownTaskError(f"no task {task_id}") from error

    async def _until_taken(
        self,
        task_id: str,
        message: Message,
        deliver: Callable[[str], Awaitable[InboxReceipt]],
    ) -> InboxReceipt:
        """`deliver(update_id)` until the workflow answers: a call that ran out of time
        is made again under the same id, which Temporal joins to the one under way."""
        update_id = f"inbox:{message.message_id}:{uuid.uuid4()}"
        tries = 0
        while True:
            try:
                return await deliver(update_id)
            except WorkflowUpdateRPCTimeoutOrCancelledError as error:
                if isinstance(error.__cause__, asyncio.CancelledError):
                    raise error.__cause__ from None  # the sender went away: so do we
                tries += 1
                logger.warning(
                    "task %s: message %s is not taken yet (no worker answered in time, "
                    "try %d); asking again",
                    task_id,
                    message.message_id,
                    tries,
                )

    async def snapshot(
        self, task_id: str, *, history_length: int | None = None
    ) -> TaskSnapshot | None:
        """The task as the store holds it (its `history_length` newest messages; None: all),
        its end stored first if its workflow ended outside the loop; None when no such task
        exists."""
        record = await self._store.get_task(task_id, history_length=history_length)
        if record is None:
            return None
        if record.task.status.state not in FINAL and await self._endings.settle(task_id):
            record = await self._store.get_task(task_id, history_length=history_length)
            if record is None:
                return None
        return TaskSnapshot(task=record.task, version=record.version)

    async def current(
        self, records: Sequence[TaskRecord], *, history_length: int | None = None
    ) -> list[TaskRecord]:
        """`records` (a listing's page, read with `history_length`), each task whose
        workflow ended outside the loop read again with its end stored."""

        async def settled(record: TaskRecord) -> TaskRecord:
            if record.task.status.state in FINAL:
                return record
            if not await self._endings.settle(record.task_id):
                return record
            again = await self._store.get_task(record.task_id, history_length=history_length)
            return again or record

        return list(await asyncio.gather(*(settled(record) for record in records)))

    async def wait_for_log(self, task_id: str, beyond: int) -> None:
        """Return once the task's log holds more than `beyond` events (bound the wait with
        `asyncio.timeout`). While it is quiet, every `ENDING_CHECK_SECONDS` the task's
        workflow is looked at, and an end outside the loop is stored (which returns)."""
        while True:
            try:
                async with asyncio.timeout(ENDING_CHECK_SECONDS):
                    await self._store.wait_for_log(task_id, beyond)
                return
            except TimeoutError:
                if await self._endings.settle(task_id):
                    return

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


def _holds(task: Task, message_id: str) -> bool:
    return any(message.message_id == message_id for message in task.history)


def _taken_already(record: TaskRecord) -> InboxReceipt:
    task = Task()
    task.CopyFrom(record.task)
    del task.history[:]
    return InboxReceipt(task=task, cursor=record.version, duplicate=True)


def _refusal(task_id: str, error: WorkflowUpdateFailedError) -> Exception:
    cause = error.cause
    refused = harness_error(cause, task_id) if isinstance(cause, ApplicationError) else None
    return refused or error

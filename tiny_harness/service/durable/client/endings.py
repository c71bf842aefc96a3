"""`Endings`: a task whose workflow ended outside its loop, told as the task's end.

A workflow can close without the task recording its end: an operator terminates or resets
it, it times out, Temporal terminates it after a workflow task it cannot take (one over
4 MB, say). The store would then show the task WORKING or INPUT_REQUIRED for good. So the
server notices the close and records it as the task's end, the way the workflow would
have:

    closing event            the task's end (a status event at the end of its log)
    terminated               FAILED  "The task's workflow was terminated: <reason>"
    timed out                FAILED  "The task's workflow timed out"
    failed                   FAILED  "The task's workflow failed: <message>"
    cancelled (by Temporal)  CANCELED
    completed                nothing: the workflow wrote its end itself
    continued as new         nothing: the next run carries on

`settle` looks (one read of the workflow's closing event, no worker involved): GetTask and
ListTasks before they answer with a task that is not final, and a reader waiting on a log
each time it has been quiet for a while (`TaskGateway.wait_for_log`). `Store.end_task`
writes the end only where the log stands, so two servers that both notice it store it
once. The text is masked like everything stored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from a2a.types import TaskState
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHistoryEventFilterType,
)
from temporalio.service import RPCError, RPCStatusCode

from tiny_harness.harness.persistence.store import LogWrite, Store
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.service.durable.workflows import events

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ending:
    """How a workflow that closed outside the loop leaves its task."""

    state: TaskState
    text: str


def ending_of(event: HistoryEvent) -> Ending | None:
    """The task's end a workflow's closing event tells, or None when the workflow ended
    the task itself (completed) or carries on (continued as new)."""
    if event.HasField("workflow_execution_terminated_event_attributes"):
        reason = event.workflow_execution_terminated_event_attributes.reason
        told = f": {reason}" if reason else ""
        return Ending(TaskState.TASK_STATE_FAILED, f"The task's workflow was terminated{told}.")
    if event.HasField("workflow_execution_timed_out_event_attributes"):
        return Ending(TaskState.TASK_STATE_FAILED, "The task's workflow timed out.")
    if event.HasField("workflow_execution_failed_event_attributes"):
        failure = event.workflow_execution_failed_event_attributes.failure.message
        return Ending(TaskState.TASK_STATE_FAILED, f"The task's workflow failed: {failure}")
    if event.HasField("workflow_execution_canceled_event_attributes"):
        return Ending(TaskState.TASK_STATE_CANCELED, "The task's workflow was cancelled.")
    return None


class Endings:
    """Notices task workflows that closed without their task's end, and stores the end."""

    def __init__(self, client: Client, store: Store, redactor: Redactor | None = None) -> None:
        self._client = client
        self._store = store
        self._redactor = redactor or Redactor()

    async def settle(self, task_id: str) -> bool:
        """If the task's workflow has closed without the task's end, store the end; whether
        the store changed."""
        event = await self._closing_event(task_id)
        ending = None if event is None else ending_of(event)
        return ending is not None and await self._store_end(task_id, ending)

    async def _closing_event(self, task_id: str) -> HistoryEvent | None:
        """The closing event of the task's newest run, or None while it runs or when there
        is no such workflow. Described first: a history read filtered to the closing
        event waits for it while the workflow runs."""
        handle = self._client.get_workflow_handle(task_id)
        try:
            description = await handle.describe()
            if description.status in (None, WorkflowExecutionStatus.RUNNING):
                return None
            history = handle.fetch_history_events(
                event_filter_type=WorkflowHistoryEventFilterType.CLOSE_EVENT
            )
            async for event in history:
                return event
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                return None
            raise
        return None

    async def _store_end(self, task_id: str, ending: Ending) -> bool:
        record = await self._store.get_task(task_id, history_length=0)
        if record is None or record.task.status.state in FINAL:
            return False
        head = record.task
        now = datetime.now(UTC)
        message = events.agent_message(head, f"{task_id}:end", self._redactor.text(ending.text))
        event = events.status_event(head, ending.state, now, message)
        events.fold(head, event)
        write = LogWrite(
            task=head,
            first_seq=record.version,
            events=(event,),
            first_message=0,
            messages=(message,),
            updated_at=now,
        )
        stored = await self._store.end_task(write)
        if stored:
            logger.error("task %s: %s", task_id, ending.text)
        return stored

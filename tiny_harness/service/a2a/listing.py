"""`ListTasks`: pages of task records from the store, shaped as the A2A response."""

from __future__ import annotations

from datetime import UTC

from a2a.types import ListTasksRequest, ListTasksResponse
from a2a.utils.errors import InvalidParamsError
from a2a.utils.task import apply_history_length

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.store import Store, TaskQuery

DEFAULT_PAGE_SIZE = 50


async def list_tasks(store: Store, params: ListTasksRequest) -> ListTasksResponse:
    """One page of tasks matching `params`, newest status change first."""
    page_size = params.page_size if params.HasField("page_size") else DEFAULT_PAGE_SIZE
    query = TaskQuery(
        context_id=params.context_id or None,
        state=params.status or None,
        updated_after=(
            params.status_timestamp_after.ToDatetime(tzinfo=UTC)
            if params.HasField("status_timestamp_after")
            else None
        ),
        page_size=page_size,
        page_token=params.page_token or None,
    )
    try:
        page = await store.list_tasks(query)
    except StoreError as error:
        raise InvalidParamsError(message=error.message) from error
    response = ListTasksResponse(
        next_page_token=page.next_page_token or "",
        page_size=page_size,
        total_size=page.total_size,
    )
    for record in page.records:
        task = apply_history_length(record.task, params)
        if not params.include_artifacts:
            task.ClearField("artifacts")
        response.tasks.append(task)
    return response

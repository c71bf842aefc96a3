"""`ListTasks`: the A2A request checked, answered from the store, shaped as the response.

    ListTasksRequest --check--> TaskQuery --Store.list_tasks--> TaskPage --shape--> response
                                                 (each task whose workflow ended outside
                                                  its loop read with its end: `current`)

Every refusal is `InvalidParamsError`, raised before the store is read: a page size outside
1..100, a negative `historyLength`, a `status` that is no `TaskState`, a page token this
server did not issue for the same filters. `TASK_STATE_UNSPECIFIED` is the proto3 default of
`status`, so it means no state filter, as an absent one does.

Page tokens are opaque: the store's cursor, sealed with a digest of the cursor and of the
request's filters (`contextId`, `status`, `statusTimestampAfter`). A token that was altered
or cut short, or that comes from a listing with other filters, fails the digest and is
refused. The digest is not keyed, so it stays valid across restarts; it detects tampering,
not forgery, and a forged cursor can only start a walk elsewhere in the caller's own
results. Tasks are listed by their last status change, newest first (see `TaskQuery`).

This module decides nothing about who may see a task.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta
from typing import Final

from a2a.types import ListTasksRequest, ListTasksResponse, Task, TaskState
from a2a.utils.errors import InvalidParamsError
from a2a.utils.task import apply_history_length, validate_history_length, validate_page_size

from tiny_harness.harness.persistence.store import TaskQuery
from tiny_harness.service.durable.client.gateway import TaskGateway

DEFAULT_PAGE_SIZE: Final = 50
"""The page size when the request names none (A2A 1.0, `ListTasksRequest.page_size`)."""

_TOKEN_VERSION: Final = b"\x01"
_DIGEST_BYTES: Final = 16
_MAX_TOKEN_CHARS: Final = 2048
_DIGEST_DOMAIN: Final = b"tiny-harness ListTasks page token\x00"


async def list_tasks(
    gateway: TaskGateway, params: ListTasksRequest, *, participant: str
) -> ListTasksResponse:
    """One page of the tasks matching `params` that `participant` takes part in, newest
    status change first (a task whose workflow ended outside its loop shown with its end).

    Raises `InvalidParamsError` for a request it refuses (see the module docstring); a
    failing store raises its own error.
    """
    query, scope = _query(params)
    query = query.model_copy(update={"participant": participant})
    page = await gateway.store.list_tasks(query)
    records = await gateway.current(page.records, history_length=query.history_length)
    next_token = _seal(page.next_page_token, scope) if page.next_page_token else ""
    response = ListTasksResponse(
        next_page_token=next_token, page_size=query.page_size, total_size=page.total_size
    )
    response.tasks.extend(_shaped(record.task, params) for record in records)
    return response


def _query(params: ListTasksRequest) -> tuple[TaskQuery, bytes]:
    """The store query `params` asks for, and the scope its page tokens are sealed to."""
    validate_history_length(params)
    page_size = DEFAULT_PAGE_SIZE
    if params.HasField("page_size"):
        validate_page_size(params.page_size)
        page_size = params.page_size
    if params.status not in TaskState.values():
        raise InvalidParamsError(message=f"status {params.status} is not a task state")
    after = _status_after(params)
    scope = json.dumps(
        [params.context_id, int(params.status), after.isoformat() if after else None]
    ).encode()
    query = TaskQuery(
        context_id=params.context_id or None,
        state=int(params.status) or None,
        updated_after=after,
        page_size=page_size,
        page_token=_open(params.page_token, scope) if params.page_token else None,
        history_length=params.history_length if params.HasField("history_length") else None,
    )
    return query, scope


def _status_after(params: ListTasksRequest) -> datetime | None:
    """`statusTimestampAfter` as an instant, rounded up to the store's microseconds (so a
    task just before a sub-microsecond bound is not let in)."""
    if not params.HasField("status_timestamp_after"):
        return None
    bound = params.status_timestamp_after
    try:
        after = bound.ToDatetime(tzinfo=UTC)
        if bound.nanos % 1000:
            after += timedelta(microseconds=1)
    except (ValueError, OverflowError) as error:
        raise InvalidParamsError(message="statusTimestampAfter is out of range") from error
    return after


def _shaped(task: Task, params: ListTasksRequest) -> Task:
    """`task` as the listing shows it: artifacts only when asked for, history trimmed."""
    shown = Task()
    shown.CopyFrom(task)
    if not params.include_artifacts:
        shown.ClearField("artifacts")
    return apply_history_length(shown, params)


def _digest(cursor: bytes, scope: bytes) -> bytes:
    material = _DIGEST_DOMAIN + len(scope).to_bytes(4, "big") + scope + cursor
    return hashlib.sha256(material).digest()[:_DIGEST_BYTES]


def _seal(cursor: str, scope: bytes) -> str:
    """The page token carrying the store's `cursor` for a listing of `scope`."""
    raw = cursor.encode()
    sealed = _TOKEN_VERSION + _digest(raw, scope) + raw
    return base64.urlsafe_b64encode(sealed).decode("ascii").rstrip("=")


def _open(token: str, scope: bytes) -> str:
    """The store cursor inside `token`; `InvalidParamsError` unless this server issued it
    for a listing of `scope`."""
    refused = InvalidParamsError(
        message="invalid page token: not issued by this server for a listing with these filters"
    )
    if len(token) > _MAX_TOKEN_CHARS:
        raise refused
    try:
        padded = token + "=" * (-len(token) % 4)
        sealed = base64.b64decode(padded, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as error:
        raise refused from error
    head, digest, raw = sealed[:1], sealed[1 : 1 + _DIGEST_BYTES], sealed[1 + _DIGEST_BYTES :]
    if head != _TOKEN_VERSION or not raw or not hmac.compare_digest(digest, _digest(raw, scope)):
        raise refused
    try:
        return raw.decode()
    except UnicodeDecodeError as error:
        raise refused from error

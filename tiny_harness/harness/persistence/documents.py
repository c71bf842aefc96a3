"""How the stores write and read what their rows hold, whatever the database.

Every store keeps a task's events, messages and conversation items as JSON text, and its
records as their Pydantic JSON; this module turns them into text and back, naming what
is unreadable without quoting it (it is user content). It also holds what both SQL stores
share: the tables of the task-scoped record kinds, a task's listing time and the page
token of a listing.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Final

from a2a.types import Task
from google.protobuf import json_format
from google.protobuf.message import Message as ProtoMessage
from pydantic import BaseModel, TypeAdapter, ValidationError

from tiny_harness.errors import StoreError
from tiny_harness.harness.models.llm import InputItem
from tiny_harness.harness.persistence.records import Record, RecordKind
from tiny_harness.harness.persistence.store import TaskRecord

RECORD_TABLES: Final[dict[RecordKind, str]] = {
    RecordKind.PLAN: "plans",
    RecordKind.STATE: "state",
    RecordKind.INBOX_AUDIT: "inbox_audit",
    RecordKind.COMPACTION: "compactions",
    RecordKind.CHANNEL_MESSAGE: "channel_messages",
    RecordKind.TOOL_RESULT: "tool_results",
}
"""The table of each task-scoped kind; only these fixed names are ever put into SQL."""

OUTLIVE_THEIR_TASK: Final = frozenset({RecordKind.PLAN, RecordKind.STATE, RecordKind.TOOL_RESULT})
"""Kinds that are kept while their task is not final, however old they are."""

_ITEM: TypeAdapter[InputItem] = TypeAdapter(InputItem)
_RECORD: Final = TypeAdapter[Record](Record)


def record_table(kind: RecordKind) -> str:
    """The table holding `kind`; `StoreError` for the task kind, which has its own API."""
    table = RECORD_TABLES.get(kind)
    if table is None:
        raise StoreError(f"records of kind {kind!r} are not task-scoped records")
    return table


def proto_json(message: ProtoMessage) -> str:
    """An event or message as compact JSON text (A2A's camelCase field names)."""
    return json.dumps(
        json_format.MessageToDict(message, preserving_proto_field_name=False),
        separators=(",", ":"),
        ensure_ascii=False,
    )


def parse_proto[P: ProtoMessage](kind: type[P], document: str, task_id: str) -> P:
    """A stored event or message; `StoreError` naming the task, never the content."""
    try:
        return json_format.Parse(document, kind())
    except json_format.ParseError as exc:
        raise StoreError(f"a stored {kind.__name__} of task {task_id!r} is unreadable") from exc


def item_json(item: InputItem) -> str:
    """A conversation item as JSON text."""
    return _ITEM.dump_json(item).decode()


def parse_item(document: str, task_id: str) -> InputItem:
    """A stored conversation item; `StoreError` naming the task, never the content."""
    try:
        return _ITEM.validate_json(document)
    except ValidationError as exc:
        raise StoreError(f"a stored conversation item of task {task_id!r} is unreadable") from exc


def conversation_items(
    found: Mapping[int, str], picked: Sequence[int], start: int, end: int, task_id: str
) -> tuple[InputItem, ...]:
    """The items numbered `picked` (in that order), then `start` to `end` (not included),
    from the stored documents `found` by number; `StoreError` when one is missing."""
    numbers = [*picked, *range(start, end)]
    missing = [n for n in numbers if n not in found]
    if missing:
        raise StoreError(
            f"task {task_id!r}: conversation items are not all stored "
            f"({len(missing)} of {len(numbers)} missing, the first {missing[0]})"
        )
    return tuple(parse_item(found[n], task_id) for n in numbers)


def parse_task_record(document: str, task_id: str) -> TaskRecord:
    """A stored task row's record; `StoreError` naming the problem, never the content."""
    return validated(TaskRecord, document, task_id)


def parse_record(document: str, key: str) -> Record:
    """A stored task-scoped record; `StoreError` naming the problem, never the content."""
    try:
        return _RECORD.validate_json(document)
    except ValidationError as exc:
        raise StoreError(
            f"stored record {key!r} is unreadable: {exc.error_count()} validation error(s)"
        ) from exc


def validated[M: BaseModel](model: type[M], document: str, task_id: str) -> M:
    """`document` as a `model`; `StoreError` naming the problem, never the content."""
    unreadable = f"stored record of task {task_id!r} is unreadable"
    try:
        return model.model_validate_json(document)
    except ValidationError as exc:
        raise StoreError(f"{unreadable}: {exc.error_count()} validation error(s)") from exc
    except (json_format.Error, TypeError) as exc:
        # `ProtoJson` lets protobuf's ParseError, and its own TypeError, through unwrapped.
        raise StoreError(f"{unreadable}: {type(exc).__name__}") from exc


def without_history(task: Task) -> Task:
    """A copy of `task` without its history (a store keeps that message by message)."""
    head = Task()
    head.CopyFrom(task)
    del head.history[:]
    return head


def status_changed_at(task: Task, updated_at: datetime) -> datetime:
    """A task's listing time: its status timestamp, else `updated_at`."""
    if not task.status.HasField("timestamp"):
        return updated_at
    try:
        return task.status.timestamp.ToDatetime(tzinfo=UTC)
    except (ValueError, OverflowError) as exc:
        raise StoreError(f"the task's status timestamp is out of range: {exc}") from exc


def utc_text(moment: datetime, what: str) -> str:
    """`moment` as fixed-width ISO-8601 UTC text, whose text order is its time order."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise StoreError(f"{what} must be timezone-aware, got the naive {moment.isoformat()}")
    try:
        utc = moment.astimezone(UTC)
    except OverflowError as exc:
        raise StoreError(f"{what} {moment.isoformat()} is out of range in UTC") from exc
    return utc.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def encode_page_token(updated_at: str, task_id: str) -> str:
    """The token of the page after the task `task_id` listed at `updated_at` (`utc_text`)."""
    raw = json.dumps([updated_at, task_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_page_token(token: str) -> tuple[str, str]:
    """The `(updated_at, id)` a page token carries; `StoreError` if no store issued it."""
    malformed = StoreError(f"malformed page token {token[:64]!r}: not issued by this store")
    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4), altchars=b"-_", validate=True)
        value: object = json.loads(raw.decode("utf-8"))
    except (binascii.Error, UnicodeError, ValueError) as exc:
        raise malformed from exc
    if not (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], str)
    ):
        raise malformed
    updated_at, task_id = value[0], value[1]
    try:
        canonical = utc_text(datetime.fromisoformat(updated_at), "token")
    except (ValueError, StoreError) as exc:
        raise malformed from exc
    if canonical != updated_at:
        raise malformed
    return updated_at, task_id

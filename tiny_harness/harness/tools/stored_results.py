"""Tool results too long for the model: cut for its context, kept whole in the store.

    invoke_tool ─ result ─┬─ up to the limit: as it is
                          └─ longer: `cut` gives the model its beginning and a line saying
                             how much was left out and how to read on; the whole text is
                             kept as a `ToolResultRecord` (task id / call id)
    read_tool_result(call_id, offset, length) ─► a range of a stored result of this task

The limit is `ContextBudget.max_tool_result_chars`; one read returns at most that much,
its note included, so reading on never needs cutting again. A task reads only its own
stored results: the record's key starts with the task's id.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from pydantic import BaseModel, Field

from tiny_harness.errors import ToolArgumentError
from tiny_harness.harness.persistence.records import (
    RecordKind,
    ToolResultRecord,
    tool_result_key,
)
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.tools.definition import (
    Execution,
    Idempotency,
    ToolCall,
    ToolDefinition,
    ToolResult,
)
from tiny_harness.harness.tools.intrinsics import parse_arguments
from tiny_harness.harness.tools.tool import TaskTool, tool_ref

READ_TOOL_RESULT: Final = "read_tool_result"

NOTE_ROOM: Final = 200
"""Characters a read keeps free for its closing note, within the limit."""


def cut(result: ToolResult, limit: int) -> ToolResult | None:
    """`result` as the model is shown it when it is longer than `limit` characters: its
    beginning and a note on what was left out; None when it fits whole."""
    total = len(result.text)
    if total <= limit:
        return None
    shown = result.text[: limit - NOTE_ROOM]
    note = (
        f"\n[cut: {len(shown):,} of {total:,} characters shown, {total - len(shown):,} left "
        f"out. The whole result is stored: call {READ_TOOL_RESULT} with call_id "
        f"{result.call_id!r} and offset {len(shown)} to read on.]"
    )
    return result.model_copy(update={"text": shown + note})


class ReadToolResultArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `read_tool_result`."""

    call_id: str = Field(min_length=1, description="The call whose result was cut.")
    offset: int = Field(default=0, ge=0, description="The first character to read (from 0).")
    length: int | None = Field(
        default=None, ge=1, description="How many characters to read (at most the limit)."
    )


class ReadToolResultTool(TaskTool):
    """`read_tool_result`: a range of one of the task's stored tool results."""

    def __init__(self, store: Callable[[], Awaitable[Store]], limit: Callable[[], int]) -> None:
        """`store` gives the store the results are kept in; `limit` the longest text one
        read returns (the context's `max_tool_result_chars`)."""
        self.ref = tool_ref(READ_TOOL_RESULT)
        self.definition = ToolDefinition(
            name=READ_TOOL_RESULT,
            description="Read on in a tool result that was cut short for length: give the "
            "call id and the offset the cut result names.",
            input_schema=ReadToolResultArgs.model_json_schema(),
            idempotency=Idempotency.IDEMPOTENT,
            execution=Execution.INTRINSIC,
        )
        self._store = store
        self._limit = limit

    async def invoke_for(self, task_id: str, call: ToolCall) -> ToolResult:
        """The range asked for; `ToolArgumentError` for a call with no stored result in
        this task or an offset past its end."""
        args = parse_arguments(ReadToolResultArgs, call)
        store = await self._store()
        record = await store.record(RecordKind.TOOL_RESULT, tool_result_key(task_id, args.call_id))
        if not isinstance(record, ToolResultRecord):
            raise ToolArgumentError(f"{call.name}: no stored result of call {args.call_id!r}")
        total = len(record.text)
        if args.offset >= total:
            raise ToolArgumentError(
                f"{call.name}: offset {args.offset} is past the end ({total} characters)"
            )
        room = self._limit() - NOTE_ROOM
        end = min(args.offset + min(args.length or room, room), total)
        more = f"; call again with offset {end} to read on" if end < total else "; the end"
        note = f"\n[characters {args.offset:,}..{end:,} of {total:,}{more}.]"
        text = record.text[args.offset : end] + note
        return ToolResult(call_id=call.call_id, name=call.name, text=text)

"""A task's calls: each model and tool call it makes, as its readers see it on the stream.

The task workflow tells every call twice, each time as a status update in the task's
current state whose message holds one data part of media type `CALL_MEDIA_TYPE` (a
`CallEvent`): when the call starts, and when it ends (completed, failed, vetoed by a hook,
or not retried because a retry could repeat its side effect). Readers join the two by
`callId`. The messages stay in the task's history, so GetTask and a late subscriber see
every call a stream showed.

What a call shows is masked like everything the store keeps (the arguments and result
summary travel in the log, which is masked on its way in); a deployment may also show only
names and outcomes (`loop.show_call_details`). The JSON schema of `CallEvent` is part of
the task extension and is committed as docs/a2a/ext/call.schema.json. Pure data: no I/O.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Final

from a2a.helpers import new_data_part
from a2a.types import Message, Part
from pydantic import BaseModel, Field, JsonValue, StringConstraints

from tiny_harness.errors import TaskExtensionError
from tiny_harness.harness.models.llm import LLMResponse
from tiny_harness.harness.protocol.data_parts import typed_parts
from tiny_harness.harness.protocol.extension_json import EXTENSION_MODEL
from tiny_harness.harness.tasks.extension import TASK_EXTENSION_URI
from tiny_harness.harness.tools.definition import ToolCall

CALL_MEDIA_TYPE: Final = "application/vnd.tiny-harness.call+json"
SCHEMA_FILE: Final = "call.schema.json"
SUMMARY_CHARS: Final = 1_000
"""A result longer than this is shown cut, with its whole size (the model reads it all)."""

_Count = Annotated[int, Field(ge=0)]


class CallKind(StrEnum):
    """What was called."""

    MODEL = "model"
    TOOL = "tool"


class CallState(StrEnum):
    """Where a call is: under way, or how it ended."""

    STARTED = "started"
    COMPLETED = "completed"
    FAILED = "failed"
    VETOED = "vetoed"
    NOT_RETRIED = "not_retried"


class CallEvent(BaseModel):
    """One model or tool call of a task, as it starts or ends: a data part of media type
    application/vnd.tiny-harness.call+json in a status update's message."""

    model_config = EXTENSION_MODEL

    call_id: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    """The call's id within its task: the model's id for a tool call, "model-<n>" for
    the task's n-th model call. Its start and its end carry the same id."""
    kind: CallKind
    """Whether a model or a tool was called."""
    name: Annotated[str, StringConstraints(max_length=200)]
    """The tool's name, or the model's ("model" until a model call has answered)."""
    state: CallState
    """"started", or how the call ended."""
    started_at: datetime
    """When the call started (UTC, as the task's workflow saw it)."""
    duration_ms: _Count | None = None
    """How long the call took, in milliseconds; null while it runs."""
    arguments: dict[str, JsonValue] | None = None
    """A tool call's arguments, masked; null for a model call, or when the deployment
    shows only names and outcomes."""
    result: str | None = None
    """What the tool returned, masked, cut to its first 1,000 characters ending "…" when
    longer (for a failed, vetoed or not retried call: why); null while it runs, for a
    model call, or when only names are shown."""
    result_chars: _Count | None = None
    """The length in characters of the whole result as the tool returned it."""
    input_tokens: _Count | None = None
    """A model call's input tokens, cached ones included."""
    cached_tokens: _Count | None = None
    """A model call's input tokens read from the provider's cache."""
    output_tokens: _Count | None = None
    """A model call's output tokens."""
    cost_usd: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    """A model call's cost in US dollars; null when its model has no configured price."""


def summary(text: str) -> str:
    """The start of `text` a call event shows (`SUMMARY_CHARS` at most, cut with "…")."""
    if len(text) <= SUMMARY_CHARS:
        return text
    return text[: SUMMARY_CHARS - 1] + "…"


def call_part(event: CallEvent) -> Part:
    """`event` as a data part, without the fields it leaves null."""
    data = event.model_dump(mode="json", exclude_none=True)
    return new_data_part(data, media_type=CALL_MEDIA_TYPE)


def calls_in(message: Message) -> list[CallEvent]:
    """The call events `message` carries, in part order; raises `TaskExtensionError`
    naming the first part of the call media type that is not a valid `CallEvent`."""
    return typed_parts(
        message, CALL_MEDIA_TYPE, CallEvent, noun="a call event", refuse=TaskExtensionError
    )


def call_event_schema() -> dict[str, JsonValue]:
    """The JSON schema of `CallEvent`, as committed in docs/a2a/ext/."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{TASK_EXTENSION_URI}/{SCHEMA_FILE}",
        **CallEvent.model_json_schema(),
    }


def tool_started(call: ToolCall, at: datetime, *, detailed: bool) -> CallEvent:
    """The start of `call` at `at`; its arguments only when `detailed`."""
    arguments = dict(call.arguments) if detailed else None
    return CallEvent(
        call_id=call.call_id,
        kind=CallKind.TOOL,
        name=call.name,
        state=CallState.STARTED,
        started_at=at,
        arguments=arguments,
    )


def model_started(number: int, at: datetime) -> CallEvent:
    """The start, at `at`, of the task's `number`-th model call."""
    return CallEvent(
        call_id=f"model-{number}",
        kind=CallKind.MODEL,
        name="model",
        state=CallState.STARTED,
        started_at=at,
    )


def ended(
    started: CallEvent,
    state: CallState,
    at: datetime,
    result: str | None = None,
    *,
    detailed: bool,
) -> CallEvent:
    """`started` ended at `at` in `state`; what it returned (or why it did not) shown
    when `detailed`."""
    took = max(0, round((at - started.started_at).total_seconds() * 1000))
    event = started.model_copy(update={"state": state, "duration_ms": took})
    if result is None or not detailed:
        return event
    return event.model_copy(update={"result": summary(result), "result_chars": len(result)})


def model_answered(
    started: CallEvent, answer: LLMResponse, cost_usd: float | None, at: datetime
) -> CallEvent:
    """`started`, a model call, answered at `at` by `answer`, which cost `cost_usd`."""
    usage = answer.usage
    return ended(started, CallState.COMPLETED, at, detailed=False).model_copy(
        update={
            "name": answer.model,
            "input_tokens": usage.input_tokens,
            "cached_tokens": usage.cached_tokens,
            "output_tokens": usage.output_tokens,
            "cost_usd": cost_usd,
        }
    )

"""The task extension: what a task has beyond A2A's `Task`, and the event envelope.

A2A's `Task` is a protobuf message and cannot grow fields, so the harness keeps a task's
name, goal, acceptance criteria, participants, parent and sub-task references, plan and
lifecycle as `TaskExtensionData` in `Task.metadata[TASK_EXT_KEY]`. The same extension
defines `EventEnvelope`, the data part (media type `EVENT_MEDIA_TYPE`) in which a
SendMessage carries a task, status-update or artifact-update event instead of plain text.

Both models are the contract with other agents and renderers: their JSON schemas are
generated from them (`task_extension_schema`, `event_envelope_schema`) and committed under
docs/a2a/ext/ (see `task_ext_schemas`). This module is pure data and helpers: no I/O.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Final, Literal

from a2a.helpers import new_data_part
from a2a.types import Message, Part, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from google.protobuf.json_format import MessageToDict, ParseDict, ParseError
from google.protobuf.message import Message as ProtoMessage
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    RootModel,
    StringConstraints,
    field_validator,
)
from pydantic_core import ErrorDetails

from tiny_harness.errors import PlanError, TaskExtensionError
from tiny_harness.harness.protocol.data_parts import describe, typed_parts, typed_value
from tiny_harness.harness.protocol.extension_json import EXTENSION_MODEL
from tiny_harness.harness.tasks.plan import Plan
from tiny_harness.harness.tasks.usage import TaskUsage

TASK_EXTENSION_URI: Final = "https://madarauchiha-314.github.io/tiny-harness/a2a/ext/task/v1"
TASK_EXT_KEY: Final = "io.github.madarauchiha-314.tiny-harness/task"
TASK_MEDIA_TYPE: Final = "application/vnd.tiny-harness.task+json"
EVENT_MEDIA_TYPE: Final = "application/vnd.tiny-harness.event+json"
PARTICIPANT_METADATA_KEY: Final = "participantId"
"""Where a message carries its sender's participant id (`Message.metadata`)."""
_PARTICIPANT_KEYS: Final = (PARTICIPANT_METADATA_KEY, "participant_id")

# Bounds keep a hostile envelope or metadata entry small; real tasks stay far below them.
MAX_ITEMS: Final = 50
_Id = Annotated[str, StringConstraints(min_length=1, max_length=200)]
_Label = Annotated[str, StringConstraints(max_length=200)]
_Text = Annotated[str, StringConstraints(max_length=10_000)]


class ParticipantRole(StrEnum):
    """What a participant may do on a task."""

    ASSIGNEE = "assignee"
    REPORTER = "reporter"
    WATCHER = "watcher"
    ADMIN = "admin"


class Participant(BaseModel):
    """A person or agent taking part in a task."""

    model_config = EXTENSION_MODEL

    id: _Id
    """The participant's id, as asserted in `Message.metadata["participantId"]`."""
    kind: Literal["human", "agent"]
    """Whether the participant is a person or an agent."""
    role: ParticipantRole
    """What the participant may do on the task."""
    display_name: _Label
    """How renderers show the participant."""


class TaskRef(BaseModel):
    """A reference to a task, on this harness or on another agent."""

    model_config = EXTENSION_MODEL

    task_id: _Id
    """The task's id on the agent that runs it."""
    agent: _Id | None = None
    """The id of the agent that runs the task; null for this harness."""
    state: _Id | None = None
    """The task's state as last reported (an A2A TaskState name, such as
    "TASK_STATE_WORKING"); null until it is known."""


class TaskTrace(BaseModel):
    """The trace a task's work is recorded in, when the server traces."""

    model_config = EXTENSION_MODEL

    trace_id: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
    """The W3C trace id (32 lowercase hex digits) of the request that started the task."""
    url: Annotated[str, StringConstraints(max_length=2_000)] | None = None
    """Where a person opens the trace (the server's `o11y.trace_url` filled in); null when
    the server names no trace viewer."""


class AcceptanceCriterion(BaseModel):
    """One condition the task's result must meet."""

    model_config = EXTENSION_MODEL

    text: Annotated[str, StringConstraints(min_length=1, max_length=10_000)]
    """The condition, in words."""
    met: bool | None = None
    """Whether the result meets it; null while nobody has judged."""
    assignee: _Id | None = None
    """The participant whose work meets it; null: the agent's own."""


class TaskExtensionData(BaseModel):
    """What a task has beyond A2A's Task, kept in its metadata under the key
    "io.github.madarauchiha-314.tiny-harness/task"."""

    model_config = EXTENSION_MODEL

    name: _Label = ""
    """A short name for the task."""
    type: _Id | None = None
    """A free-form kind of task, for routing and renderers; null when untyped."""
    goal: _Text = ""
    """What the task is to achieve."""
    description: _Text = ""
    """Anything else the assignee should know."""
    acceptance_criteria: Annotated[
        tuple[AcceptanceCriterion, ...], Field(max_length=MAX_ITEMS)
    ] = ()
    """The conditions the result must meet."""
    participants: Annotated[tuple[Participant, ...], Field(max_length=MAX_ITEMS)] = ()
    """Who takes part in the task, and in which role."""
    parent_tasks: Annotated[tuple[TaskRef, ...], Field(max_length=MAX_ITEMS)] = ()
    """The tasks this task was delegated from."""
    sub_tasks: Annotated[tuple[TaskRef, ...], Field(max_length=MAX_ITEMS)] = ()
    """The tasks this task delegated."""
    plan: Plan | None = None
    """The task's plan; null until one is made."""
    lifecycle: Literal["direct", "delegated"] = "direct"
    """"direct" for a task a client started, "delegated" for one another task started."""
    model: _Id | None = None
    """The model the task runs on (a delegated task inherits its parent's); null: default."""
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    """How hard the model should think; null: the model's default."""
    usage: TaskUsage | None = None
    """What the task used so far (calls, tokens, cost); set by the server, null before its
    first call. A client's value is ignored."""
    trace: TaskTrace | None = None
    """The trace of the task's work; set by the server when it traces, null otherwise. A
    client's value is ignored."""


SERVER_OWNED: Final = frozenset({"usage", "trace"})
"""Extension fields only the server sets: `merge_ext` keeps them whatever an update says."""


class TaskEnvelope(BaseModel):
    """An envelope creating or updating a task's extension data."""

    model_config = EXTENSION_MODEL

    kind: Literal["task"]
    """The kind of event."""
    payload: TaskExtensionData
    """The task extension data."""


class StatusUpdateEnvelope(BaseModel):
    """An envelope carrying a remote task's status update."""

    model_config = EXTENSION_MODEL

    kind: Literal["status_update"]
    """The kind of event."""
    payload: dict[str, JsonValue]
    """The ProtoJSON object of an A2A `TaskStatusUpdateEvent`."""

    @field_validator("payload")
    @classmethod
    def _payload_is_the_event(cls, payload: dict[str, JsonValue]) -> dict[str, JsonValue]:
        _parse_proto(payload, TaskStatusUpdateEvent())
        return payload

    def event(self) -> TaskStatusUpdateEvent:
        """The payload as the SDK's protobuf message."""
        return _parse_proto(self.payload, TaskStatusUpdateEvent())


class ArtifactUpdateEnvelope(BaseModel):
    """An envelope carrying a remote task's artifact update."""

    model_config = EXTENSION_MODEL

    kind: Literal["artifact_update"]
    """The kind of event."""
    payload: dict[str, JsonValue]
    """The ProtoJSON object of an A2A `TaskArtifactUpdateEvent`."""

    @field_validator("payload")
    @classmethod
    def _payload_is_the_event(cls, payload: dict[str, JsonValue]) -> dict[str, JsonValue]:
        _parse_proto(payload, TaskArtifactUpdateEvent())
        return payload

    def event(self) -> TaskArtifactUpdateEvent:
        """The payload as the SDK's protobuf message."""
        return _parse_proto(self.payload, TaskArtifactUpdateEvent())


_OneEnvelope = Annotated[
    TaskEnvelope | StatusUpdateEnvelope | ArtifactUpdateEnvelope, Field(discriminator="kind")
]


class EventEnvelope(RootModel[_OneEnvelope]):
    """An event sent in a message as a data part of media type
    application/vnd.tiny-harness.event+json: `kind` says which event, `payload` is the task
    extension data ("task") or the ProtoJSON object of an A2A TaskStatusUpdateEvent
    ("status_update") or TaskArtifactUpdateEvent ("artifact_update")."""

    # The docstring is the schema's description. Match on `root` (one of the three
    # envelope classes) for a payload typed by its kind.
    model_config = ConfigDict(frozen=True)

    @property
    def kind(self) -> Literal["task", "status_update", "artifact_update"]:
        """The kind of event."""
        return self.root.kind

    @property
    def payload(self) -> TaskExtensionData | dict[str, JsonValue]:
        """The payload: extension data for "task", a ProtoJSON object otherwise."""
        return self.root.payload

    @classmethod
    def of_task(cls, ext: TaskExtensionData) -> EventEnvelope:
        """An envelope carrying task extension data."""
        return cls(TaskEnvelope(kind="task", payload=ext))

    @classmethod
    def of_status_update(cls, event: TaskStatusUpdateEvent) -> EventEnvelope:
        """An envelope carrying a status update."""
        return cls(StatusUpdateEnvelope(kind="status_update", payload=_proto_json(event)))

    @classmethod
    def of_artifact_update(cls, event: TaskArtifactUpdateEvent) -> EventEnvelope:
        """An envelope carrying an artifact update."""
        return cls(ArtifactUpdateEnvelope(kind="artifact_update", payload=_proto_json(event)))


def ext_of(task: Task) -> TaskExtensionData | None:
    """The task's extension data, or None when the task carries none.

    Raises `TaskExtensionError` when `Task.metadata[TASK_EXT_KEY]` is present but invalid.
    """
    if TASK_EXT_KEY not in task.metadata:
        return None
    where = f"task {task.id!r}: metadata {TASK_EXT_KEY!r}"
    value = task.metadata.fields[TASK_EXT_KEY]
    try:
        return typed_value(value, TaskExtensionData, where=where, refuse=TaskExtensionError)
    except PlanError as error:
        # Plan's own validator raises PlanError, which pydantic lets through unwrapped.
        raise TaskExtensionError(f"{where}: plan: malformed ({error.code})") from error


def with_ext(task: Task, ext: TaskExtensionData) -> None:
    """Write `ext` into `task.metadata[TASK_EXT_KEY]`, replacing what was there."""
    task.metadata[TASK_EXT_KEY] = ext.model_dump(mode="json")


def sender_of(message: Message) -> str:
    """The participant who sent `message` (its `participantId`, or the snake_case key
    clients wrote before the extensions' keys went camelCase; "" for anonymous)."""
    metadata = message.metadata
    # A protobuf Struct has no `get`.
    key = next((k for k in _PARTICIPANT_KEYS if k in metadata), None)
    value = metadata[key] if key is not None else ""
    return value if isinstance(value, str) else ""


def participant_ids(task: Task) -> frozenset[str]:
    """The ids of the task's participants (none: nobody claimed it)."""
    ext = ext_of(task)
    return frozenset() if ext is None else frozenset(p.id for p in ext.participants)


def claim(task: Task, message: Message) -> None:
    """Make the sender of `message` (its `participant_id`) an admin of `task`, first among
    its participants (kept as described if the task names it already, else a human); an
    anonymous sender claims nothing."""
    value = sender_of(message)
    if not value:
        return
    current = ext_of(task) or TaskExtensionData()
    named = [p for p in current.participants if p.id == value]
    sender = (
        named[0].model_copy(update={"role": ParticipantRole.ADMIN})
        if named
        else Participant(id=value, kind="human", role=ParticipantRole.ADMIN, display_name=value)
    )
    others = tuple(p for p in current.participants if p.id != value)
    with_ext(task, current.model_copy(update={"participants": (sender, *others)}))


def merge_ext(task: Task, update: TaskExtensionData) -> None:
    """Fold `update` into the task's extension data: each field `update` sets replaces the
    stored one, the rest are kept (the first update creates the data). The fields in
    `SERVER_OWNED` are never taken from `update`."""
    current = ext_of(task) or TaskExtensionData()
    fields = {n: getattr(update, n) for n in update.model_fields_set if n not in SERVER_OWNED}
    with_ext(task, current.model_copy(update=fields))


def link_sub_task(task: Task, ref: TaskRef) -> None:
    """Add `ref` to the task's sub-task references (past `MAX_ITEMS`, the extension's
    bound, the rest are not listed; the workflow still tracks them)."""
    current = ext_of(task) or TaskExtensionData()
    if len(current.sub_tasks) >= MAX_ITEMS:
        return
    with_ext(task, current.model_copy(update={"sub_tasks": (*current.sub_tasks, ref)}))


def note_sub_task_state(task: Task, task_id: str, state: str) -> TaskExtensionData | None:
    """Record the state of the sub-task `task_id` in the task's references; the extension
    data when that changed it, else None (no such sub-task listed, or the same state)."""
    current = ext_of(task)
    if current is None:
        return None
    refs = [r for r in current.sub_tasks if r.task_id == task_id and r.state != state]
    if not refs:
        return None
    updated = current.model_copy(
        update={
            "sub_tasks": tuple(
                r.model_copy(update={"state": state}) if r in refs else r for r in current.sub_tasks
            )
        }
    )
    with_ext(task, updated)
    return updated


def ext_part(ext: TaskExtensionData) -> Part:
    """The task extension data as a data part (media type `TASK_MEDIA_TYPE`), which a
    status update carries when the data changed, so renderers need no GetTask."""
    data = ext.model_dump(mode="json", exclude_defaults=True)
    return new_data_part(data, media_type=TASK_MEDIA_TYPE)


def envelope_part(envelope: EventEnvelope) -> Part:
    """The data part that carries `envelope` in a message: only the fields its sender set,
    so the receiver's `merge_ext` changes those and keeps the rest."""
    data = envelope.model_dump(mode="json", exclude_unset=True)
    return new_data_part(data, media_type=EVENT_MEDIA_TYPE)


def envelopes_in(message: Message) -> list[EventEnvelope]:
    """Every event envelope in the message, in part order; other parts are skipped.

    Raises `TaskExtensionError` naming the first part of the event media type that is not
    a data part holding a valid envelope, and its first problem (never the values).
    """
    try:
        return typed_parts(
            message,
            EVENT_MEDIA_TYPE,
            EventEnvelope,
            noun="an event envelope",
            refuse=TaskExtensionError,
            explain=_explain,
        )
    except PlanError as error:
        # Plan's own validator raises PlanError, which pydantic lets through unwrapped.
        raise TaskExtensionError(f"an event envelope's plan: malformed ({error.code})") from error


def task_extension_schema() -> dict[str, JsonValue]:
    """The JSON schema of `TaskExtensionData`, as committed in docs/a2a/ext/."""
    return _schema(TaskExtensionData.model_json_schema(), "task.schema.json")


def event_envelope_schema() -> dict[str, JsonValue]:
    """The JSON schema of `EventEnvelope`, as committed in docs/a2a/ext/."""
    return _schema(EventEnvelope.model_json_schema(), "event.schema.json")


def _schema(schema: dict[str, JsonValue], file_name: str) -> dict[str, JsonValue]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{TASK_EXTENSION_URI}/{file_name}",
        **schema,
    }


def _explain(detail: ErrorDetails) -> str:
    # A wrong union tag is the one message that quotes the input (the tag it got).
    if detail["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return "kind is missing or unknown; expected 'task', 'status_update' or 'artifact_update'"
    return describe(detail)


_UNKNOWN_FIELD: Final = re.compile(r'has no field named "([A-Za-z0-9_]{1,64})" at "([\w.]{1,200})"')


def _parse_proto[P: ProtoMessage](payload: dict[str, JsonValue], message: P) -> P:
    try:
        return ParseDict(payload, message, ignore_unknown_fields=False)
    except ParseError as error:
        # ParseError quotes offending values; only an unknown field's name is repeated.
        name = type(message).__name__
        unknown = _UNKNOWN_FIELD.search(str(error))
        if unknown:
            raise ValueError(f"{unknown[2]} has no field {unknown[1]!r}") from error
        raise ValueError(f"not a valid {name} ProtoJSON object") from error


def _proto_json(message: ProtoMessage) -> dict[str, JsonValue]:
    return MessageToDict(message, preserving_proto_field_name=False)

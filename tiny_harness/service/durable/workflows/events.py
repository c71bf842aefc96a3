"""Building a task's A2A events and folding them into its `Task` snapshot.

Pure functions: every id and timestamp comes in as an argument, so the workflow can call
them deterministically (with `workflow.uuid4()` and `workflow.now()`) and tests can call
them directly. The event log is a list of `StreamResponse`; the snapshot is the `Task`
those events describe.
"""

from __future__ import annotations

from datetime import datetime

from a2a.types import (
    Artifact,
    Message,
    Part,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from google.protobuf.struct_pb2 import Value
from google.protobuf.timestamp_pb2 import Timestamp
from pydantic import JsonValue

from tiny_harness.harness.tasks.extension import TaskExtensionData, TaskTrace, with_ext


def timestamp(at: datetime) -> Timestamp:
    """A protobuf timestamp for `at`."""
    stamp = Timestamp()
    stamp.FromDatetime(at)
    return stamp


def agent_message(
    task: Task,
    message_id: str,
    text: str,
    data: dict[str, JsonValue] | None = None,
    media_type: str = "application/json",
) -> Message:
    """An agent message on `task`: a text part, and a data part when `data` is given."""
    parts = [Part(text=text)]
    if data is not None:
        value = Value()
        value.struct_value.update(data)
        parts.append(Part(data=value, media_type=media_type))
    return agent_parts(task, message_id, parts)


def agent_parts(task: Task, message_id: str, parts: list[Part]) -> Message:
    """An agent message on `task` made of `parts`."""
    return Message(
        message_id=message_id,
        role=Role.ROLE_AGENT,
        task_id=task.id,
        context_id=task.context_id,
        parts=parts,
    )


def new_task(task_id: str, context_id: str, at: datetime, trace: TaskTrace | None = None) -> Task:
    """A SUBMITTED task with an empty history (and the trace of its work, when traced)."""
    task = Task(
        id=task_id,
        context_id=context_id,
        status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED, timestamp=timestamp(at)),
    )
    if trace is not None:
        with_ext(task, TaskExtensionData(trace=trace))
    return task


def bound_message(message: Message, task: Task) -> Message:
    """A copy of `message` carrying the task's id and context id."""
    bound = Message()
    bound.CopyFrom(message)
    bound.task_id = task.id
    bound.context_id = task.context_id
    return bound


def status_event(
    task: Task, state: TaskState, at: datetime, message: Message | None = None
) -> StreamResponse:
    """A status update moving `task` to `state`."""
    status = TaskStatus(state=state, timestamp=timestamp(at))
    if message is not None:
        status.message.CopyFrom(message)
    return StreamResponse(
        status_update=TaskStatusUpdateEvent(
            task_id=task.id, context_id=task.context_id, status=status
        )
    )


def artifact_event(task: Task, artifact_id: str, name: str, text: str) -> StreamResponse:
    """A whole text artifact, sent in one chunk."""
    artifact = Artifact(artifact_id=artifact_id, name=name, parts=[Part(text=text)])
    return StreamResponse(
        artifact_update=TaskArtifactUpdateEvent(
            task_id=task.id,
            context_id=task.context_id,
            artifact=artifact,
            append=False,
            last_chunk=True,
        )
    )


def task_event(task: Task) -> StreamResponse:
    """The task itself as an event: the first entry of every log."""
    snapshot = Task()
    snapshot.CopyFrom(task)
    return StreamResponse(task=snapshot)


def apply_event(task: Task, event: StreamResponse) -> None:
    """Fold `event` into `task` in place, as a client applying the stream would."""
    if event.WhichOneof("payload") == "task":
        task.CopyFrom(event.task)
        return
    message = fold(task, event)
    if message is not None:
        task.history.append(message)


def fold(task: Task, event: StreamResponse) -> Message | None:
    """Fold `event` into `task` in place but for its history: the message that joins the
    history, if the event brings one (the workflow keeps the history in the store, and
    takes the messages of a task event in apart)."""
    kind = event.WhichOneof("payload")
    if kind == "task":
        task.CopyFrom(event.task)
        del task.history[:]
    elif kind == "status_update":
        task.status.CopyFrom(event.status_update.status)
        if event.status_update.status.HasField("message"):
            joined = Message()
            joined.CopyFrom(event.status_update.status.message)
            return joined
    elif kind == "artifact_update":
        _apply_artifact(task, event.artifact_update)
    return None


def _apply_artifact(task: Task, update: TaskArtifactUpdateEvent) -> None:
    for existing in task.artifacts:
        if existing.artifact_id == update.artifact.artifact_id:
            if update.append:
                existing.parts.extend(update.artifact.parts)
            else:
                existing.CopyFrom(update.artifact)
            return
    task.artifacts.append(update.artifact)


def state_of(event: StreamResponse) -> TaskState | None:
    """The task state an event announces, if it announces one."""
    kind = event.WhichOneof("payload")
    if kind == "task":
        return event.task.status.state
    if kind == "status_update":
        return event.status_update.status.state
    return None

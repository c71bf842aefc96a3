"""A task's events folded into the `Task` snapshot a client applying the stream would build."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from a2a.types import (
    Artifact,
    Message,
    Part,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
)
from google.protobuf.json_format import MessageToDict
from pydantic import JsonValue

from tiny_harness.service.durable.workflows.events import (
    agent_message,
    apply_event,
    artifact_event,
    bound_message,
    new_task,
    state_of,
    status_event,
    task_event,
    timestamp,
)

START = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def at(seconds: int) -> datetime:
    return START + timedelta(seconds=seconds)


def append_chunk(task: Task, artifact_id: str, text: str) -> StreamResponse:
    return StreamResponse(
        artifact_update=TaskArtifactUpdateEvent(
            task_id=task.id,
            context_id=task.context_id,
            artifact=Artifact(artifact_id=artifact_id, parts=[Part(text=text)]),
            append=True,
            last_chunk=False,
        )
    )


def fold(events: list[StreamResponse]) -> Task:
    snapshot = Task()
    for event in events:
        apply_event(snapshot, event)
    return snapshot


def texts(message: Message) -> list[str]:
    return [part.text for part in message.parts if part.HasField("text")]


def test_folding_a_task_log_builds_the_client_snapshot() -> None:
    task = new_task("t1", "c1", at(0))
    planning = agent_message(task, "m1", "Planning.")
    finished = agent_message(task, "m2", "Done.")
    events = [
        task_event(task),
        status_event(task, TaskState.TASK_STATE_WORKING, at(1)),
        status_event(task, TaskState.TASK_STATE_WORKING, at(2), planning),
        artifact_event(task, "a1", "answer", "Hello, "),
        append_chunk(task, "a1", "world."),
        artifact_event(task, "a2", "notes", "draft"),
        artifact_event(task, "a2", "notes", "final notes"),
        status_event(task, TaskState.TASK_STATE_COMPLETED, at(3), finished),
    ]

    snapshot = fold(events)

    assert snapshot.id == "t1"
    assert snapshot.context_id == "c1"
    assert snapshot.status.state == TaskState.TASK_STATE_COMPLETED
    assert snapshot.status.timestamp == timestamp(at(3))
    assert snapshot.status.message == finished
    assert [m.message_id for m in snapshot.history] == ["m1", "m2"]
    assert [a.artifact_id for a in snapshot.artifacts] == ["a1", "a2"]
    assert [p.text for p in snapshot.artifacts[0].parts] == ["Hello, ", "world."]
    assert snapshot.artifacts[0].name == "answer"
    assert [p.text for p in snapshot.artifacts[1].parts] == ["final notes"]


def test_status_update_without_message_leaves_history_alone() -> None:
    task = new_task("t1", "c1", at(0))

    snapshot = fold([task_event(task), status_event(task, TaskState.TASK_STATE_WORKING, at(1))])

    assert snapshot.status.state == TaskState.TASK_STATE_WORKING
    assert snapshot.status.timestamp == timestamp(at(1))
    assert not snapshot.status.HasField("message")
    assert list(snapshot.history) == []


def test_task_event_replaces_the_whole_snapshot() -> None:
    task = new_task("t1", "c1", at(0))
    snapshot = fold(
        [
            task_event(task),
            status_event(task, TaskState.TASK_STATE_WORKING, at(1), agent_message(task, "m1", "x")),
            artifact_event(task, "a1", "answer", "text"),
        ]
    )

    apply_event(snapshot, task_event(task))

    assert snapshot == task


def test_task_event_is_a_copy_not_the_live_task() -> None:
    task = new_task("t1", "c1", at(0))
    event = task_event(task)

    task.status.state = TaskState.TASK_STATE_FAILED

    assert event.task.status.state == TaskState.TASK_STATE_SUBMITTED


def test_new_task_is_submitted_with_empty_history() -> None:
    task = new_task("t9", "c9", at(5))

    assert task.status.state == TaskState.TASK_STATE_SUBMITTED
    assert task.status.timestamp.ToDatetime(tzinfo=UTC) == at(5)
    assert list(task.history) == []
    assert list(task.artifacts) == []


def test_state_of_reads_task_and_status_events_only() -> None:
    task = new_task("t1", "c1", at(0))

    assert state_of(task_event(task)) == TaskState.TASK_STATE_SUBMITTED
    assert (
        state_of(status_event(task, TaskState.TASK_STATE_INPUT_REQUIRED, at(1)))
        == TaskState.TASK_STATE_INPUT_REQUIRED
    )
    assert state_of(artifact_event(task, "a1", "answer", "x")) is None
    assert state_of(StreamResponse()) is None


def test_agent_message_with_text_only_has_one_text_part() -> None:
    task = new_task("t1", "c1", at(0))

    message = agent_message(task, "m1", "hello")

    assert message.message_id == "m1"
    assert message.role == Role.ROLE_AGENT
    assert message.task_id == "t1"
    assert message.context_id == "c1"
    assert len(message.parts) == 1
    assert texts(message) == ["hello"]


def test_agent_message_with_data_adds_a_data_part_with_the_media_type() -> None:
    task = new_task("t1", "c1", at(0))
    data: dict[str, JsonValue] = {
        "steps": [{"id": "s1", "done": True}],
        "count": 2,
        "note": None,
    }

    message = agent_message(
        task, "m1", "Plan attached.", data=data, media_type="application/vnd.example+json"
    )

    assert len(message.parts) == 2
    assert texts(message) == ["Plan attached."]
    data_part = message.parts[1]
    assert data_part.HasField("data")
    assert data_part.media_type == "application/vnd.example+json"
    assert MessageToDict(data_part.data) == data


def test_agent_message_data_part_defaults_to_json_media_type() -> None:
    task = new_task("t1", "c1", at(0))

    message = agent_message(task, "m1", "x", data={"k": "v"})

    assert message.parts[1].media_type == "application/json"


def test_bound_message_sets_task_ids_on_a_copy() -> None:
    task = new_task("t1", "c1", at(0))
    incoming = Message(message_id="u1", role=Role.ROLE_USER, parts=[Part(text="hi")])
    incoming.metadata.update({"source": "test"})
    before = Message()
    before.CopyFrom(incoming)

    bound = bound_message(incoming, task)

    assert bound.task_id == "t1"
    assert bound.context_id == "c1"
    assert bound.message_id == "u1"
    assert bound.role == Role.ROLE_USER
    assert texts(bound) == ["hi"]
    assert bound.metadata == incoming.metadata
    assert incoming == before
    assert incoming.task_id == ""
    assert incoming.context_id == ""


def test_bound_message_overrides_ids_the_client_sent() -> None:
    task = new_task("t1", "c1", at(0))
    incoming = Message(message_id="u1", task_id="other", context_id="elsewhere")

    bound = bound_message(incoming, task)

    assert (bound.task_id, bound.context_id) == ("t1", "c1")
    assert (incoming.task_id, incoming.context_id) == ("other", "elsewhere")

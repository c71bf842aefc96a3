"""How a remote task's turn is read: state and the newest thing it said, from a snapshot or
a streamed event alike."""

from __future__ import annotations

from a2a.helpers import new_text_artifact, new_text_message
from a2a.types import (
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

from tiny_harness.harness.agents.turns import RemoteTurn, turn_of_event, turn_of_task

ASKED = RemoteTurn(
    remote_task_id="r1", state=TaskState.TASK_STATE_INPUT_REQUIRED, text="Which size?"
)


def status(state: TaskState, text: str = "") -> TaskStatus:
    if not text:
        return TaskStatus(state=state)
    return TaskStatus(state=state, message=new_text_message(text, role=Role.ROLE_AGENT))


def test_a_status_message_is_the_turns_text() -> None:
    task = Task(id="r1", status=status(TaskState.TASK_STATE_INPUT_REQUIRED, "Which size?"))

    assert turn_of_task(task) == ASKED


def test_a_finished_task_that_answers_in_an_artifact_says_the_artifacts_text() -> None:
    task = Task(
        id="r1",
        status=status(TaskState.TASK_STATE_COMPLETED),
        artifacts=[new_text_artifact("answer", "Ordered, size M.")],
    )

    assert turn_of_task(task, known_text="Which size?").text == "Ordered, size M."


def test_a_working_task_keeps_what_was_said_before() -> None:
    task = Task(
        id="r1",
        status=status(TaskState.TASK_STATE_WORKING),
        artifacts=[new_text_artifact("draft", "half done")],
    )

    assert turn_of_task(task, known_text="Which size?").text == "Which size?"


def test_a_streamed_artifact_becomes_the_text_and_the_completion_keeps_it() -> None:
    artifact = StreamResponse(
        artifact_update=TaskArtifactUpdateEvent(
            task_id="r1", artifact=new_text_artifact("answer", "Ordered, size M.")
        )
    )
    done = StreamResponse(
        status_update=TaskStatusUpdateEvent(
            task_id="r1", status=status(TaskState.TASK_STATE_COMPLETED)
        )
    )

    said = turn_of_event(artifact, ASKED)
    finished = turn_of_event(done, said)

    assert said == ASKED.model_copy(update={"text": "Ordered, size M."})
    assert finished is not None
    assert (finished.state, finished.text) == (TaskState.TASK_STATE_COMPLETED, "Ordered, size M.")


def test_an_artifact_before_any_state_says_nothing() -> None:
    artifact = StreamResponse(
        artifact_update=TaskArtifactUpdateEvent(
            task_id="r1", artifact=new_text_artifact("answer", "text")
        )
    )

    assert turn_of_event(artifact, None) is None

"""The terminal UI's reducer: what each A2A event becomes, and that a replay adds nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from a2a.helpers import new_data_part
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
from google.protobuf.json_format import ParseDict
from google.protobuf.struct_pb2 import Value

from tests.interaction.streams import CONVERSATIONS, load
from tiny_harness.harness.a2ui.messages import A2UI_MEDIA_TYPE
from tiny_harness.harness.tasks.extension import TaskExtensionData, TaskRef, TaskTrace, with_ext
from tiny_harness.harness.tasks.plan import Plan, Step, StepState
from tiny_harness.interaction.tui.timeline import PLAN_MEDIA_TYPE, Entry, Timeline
from tiny_harness.service.durable.workflows.events import (
    agent_message,
    apply_event,
    artifact_event,
    new_task,
    status_event,
)

AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
WORKING = TaskState.TASK_STATE_WORKING


def a_task() -> Task:
    task = new_task("t-1", "c-1", AT)
    task.history.append(
        Message(message_id="u-1", role=Role.ROLE_USER, parts=[Part(text="Paint the fence")])
    )
    return task


def say(task: Task, message_id: str, text: str, state: TaskState = WORKING) -> StreamResponse:
    return status_event(task, state, AT, agent_message(task, message_id, text))


def conversation(task: Task) -> list[StreamResponse]:
    """A whole task's stream: the task, progress, a question, the reply's effect, the end."""
    question = agent_message(task, "a-2", "Which colour?", {"options": ["red", "blue"]})
    return [
        StreamResponse(task=task),
        say(task, "a-1", "Planning."),
        status_event(task, TaskState.TASK_STATE_INPUT_REQUIRED, AT, question),
        status_event(task, WORKING, AT),
        artifact_event(task, "art-1", "answer", "Blue it is."),
        status_event(task, TaskState.TASK_STATE_COMPLETED, AT),
    ]


def test_each_event_kind_becomes_its_entry() -> None:
    timeline = Timeline()
    for event in conversation(a_task()):
        timeline.apply(event)
    kinds = [(e.kind, e.parts[0].text if e.parts else "") for e in timeline.entries]
    assert kinds == [
        ("user", "Paint the fence"),
        ("agent", "Planning."),
        ("question", "Which colour?"),
        ("artifact", "Blue it is."),
    ]
    question = timeline.entries[2]
    assert question.options == ("red", "blue")
    assert [p.kind for p in question.parts] == ["markdown"]  # the options are read, not shown
    assert timeline.state == TaskState.TASK_STATE_COMPLETED
    assert timeline.final
    assert (timeline.task_id, timeline.context_id) == ("t-1", "c-1")


def test_a_resubscribe_replays_the_task_and_adds_nothing_twice() -> None:
    task = a_task()
    events = conversation(task)
    timeline = Timeline()
    for event in events[:3]:  # the stream broke while the task waited
        timeline.apply(event)
    # The new subscription opens with the task as it stands: everything so far, folded.
    folded = Task()
    folded.CopyFrom(task)
    for event in events[1:5]:
        apply_event(folded, event)
    change = timeline.apply(StreamResponse(task=folded))
    assert [e.kind for e in change.added] == ["artifact"]  # only what the break missed
    change = timeline.apply(events[5])
    assert change.added == ()
    ids = [e.id for e in timeline.entries]
    assert len(ids) == len(set(ids)) == 4


def test_a_final_task_read_before_its_event_shows_its_last_word_as_final() -> None:
    task = a_task()
    timeline = Timeline()
    timeline.apply(StreamResponse(task=task))
    timeline.apply(say(task, "a-1", "Working on it."))
    # A cancel's answer (the task as it ended) can arrive before the stream's event: the
    # reason, which is in the task's history as well as its status, is still its last word.
    ended = Task()
    ended.CopyFrom(task)
    canceled = TaskState.TASK_STATE_CANCELED
    for event in (say(task, "a-1", "Working on it."), say(task, "a-2", "Canceled.", canceled)):
        apply_event(ended, event)
    timeline.apply(StreamResponse(task=ended))
    timeline.apply(say(task, "a-2", "Canceled.", canceled))  # the event, late: nothing new

    kinds = [(e.kind, e.parts[0].text) for e in timeline.entries]
    assert kinds == [
        ("user", "Paint the fence"),
        ("agent", "Working on it."),
        ("final", "Canceled."),
    ]


def test_a_message_this_client_sent_is_not_shown_again_when_echoed() -> None:
    timeline = Timeline()
    sent = Message(message_id="u-1", role=Role.ROLE_USER, parts=[Part(text="Paint the fence")])
    assert len(timeline.add_user(sent).added) == 1
    assert timeline.apply(StreamResponse(task=a_task())).added == ()


def test_artifact_chunks_append_and_a_whole_artifact_replaces() -> None:
    task = a_task()
    timeline = Timeline()
    timeline.apply(StreamResponse(task=task))

    def chunk(text: str, *, append: bool) -> StreamResponse:
        artifact = Artifact(artifact_id="art-1", name="answer", parts=[Part(text=text)])
        update = TaskArtifactUpdateEvent(
            task_id=task.id, context_id=task.context_id, artifact=artifact, append=append
        )
        return StreamResponse(artifact_update=update)

    timeline.apply(chunk("Blue ", append=False))
    change = timeline.apply(chunk("it is.", append=True))
    [answer] = change.updated
    assert [p.text for p in answer.parts] == ["Blue ", "it is."]
    change = timeline.apply(chunk("Red after all.", append=False))
    assert [p.text for p in change.updated[0].parts] == ["Red after all."]
    assert [e.kind for e in timeline.entries].count("artifact") == 1


@pytest.mark.parametrize(
    ("ending", "open_steps"),
    [(TaskState.TASK_STATE_FAILED, "failed"), (TaskState.TASK_STATE_COMPLETED, "skipped")],
)
def test_plan_parts_drive_the_checklist_shown_once_and_an_ended_task_marks_its_open_steps(
    ending: TaskState, open_steps: str
) -> None:
    task = a_task()
    plan = Plan(
        steps=(
            Step(id="a", name="look", state=StepState.DONE),
            Step(id="b", name="answer", depends_on=("a",)),
            Step(id="c", name="tidy", depends_on=("b",)),
        )
    )
    said = "Plan:\n" + plan.render()
    message = agent_message(task, "a-1", said, plan.model_dump(mode="json"), PLAN_MEDIA_TYPE)
    timeline = Timeline()
    change = timeline.apply(status_event(task, WORKING, AT, message))
    assert change.plan
    assert [(s.name, s.status) for s in timeline.steps()] == [
        ("look", "done"),
        ("answer", "in_progress"),
        ("tidy", "pending"),
    ]
    assert timeline.entries == []  # neither a JSON tree nor the plan again as text
    timeline.apply(status_event(task, ending, AT))
    assert [s.status for s in timeline.steps()] == ["done", open_steps, open_steps]


def test_sub_tasks_come_from_the_task_extension() -> None:
    task = a_task()
    with_ext(task, TaskExtensionData(sub_tasks=(TaskRef(task_id="remote-1", agent="shop"),)))
    timeline = Timeline()
    assert timeline.apply(StreamResponse(task=task)).plan
    assert [(r.task_id, r.agent) for r in timeline.sub_tasks] == [("remote-1", "shop")]


def test_a2ui_parts_make_one_surface_entry_and_update_its_model() -> None:
    task = a_task()
    create = {"version": "v0.9.1", "createSurface": {"surfaceId": "s", "catalogId": "basic"}}
    components = {
        "version": "v0.9.1",
        "updateComponents": {
            "surfaceId": "s",
            "components": [{"id": "root", "component": "Text", "text": "Hi"}],
        },
    }
    message = agent_message(task, "a-1", "Pick one")
    message.parts.append(new_data_part(create, media_type=A2UI_MEDIA_TYPE))
    message.parts.append(new_data_part(components, media_type=A2UI_MEDIA_TYPE))
    timeline = Timeline()
    change = timeline.apply(status_event(task, WORKING, AT, message))
    assert [e.kind for e in change.added] == ["agent", "surface"]
    assert change.surfaces == ("s",)
    assert timeline.surfaces["s"].root == {"id": "root", "component": "Text", "text": "Hi"}


def test_parts_it_cannot_draw_become_placeholders_naming_kind_and_media_type() -> None:
    task = a_task()
    data = Value()
    data.struct_value.update({"rows": 2})
    parts = [
        Part(text="<b>hi</b>", media_type="text/html"),
        Part(raw=b"12345", filename="r.pdf", media_type="application/pdf"),
        Part(url="https://files.example/p.png", filename="p.png", media_type="image/png"),
        Part(data=data, media_type="application/vnd.example+json"),
        Part(),
    ]
    artifact = Artifact(artifact_id="x", name="odd", parts=parts)
    update = TaskArtifactUpdateEvent(task_id=task.id, context_id=task.context_id, artifact=artifact)
    timeline = Timeline()
    [entry] = timeline.apply(StreamResponse(artifact_update=update)).added
    views = [(p.kind, p.text, p.media_type, p.name, p.size, p.url) for p in entry.parts]
    assert views == [
        ("placeholder", "text", "text/html", "", None, ""),
        ("file", "", "application/pdf", "r.pdf", 5, ""),
        ("file", "", "image/png", "p.png", None, "https://files.example/p.png"),
        ("json", "", "application/vnd.example+json", "", None, ""),
        ("placeholder", "empty", "", "", None, ""),
    ]
    assert entry.parts[3].data == {"rows": 2}


def seen_as(timeline: Timeline) -> dict[str, object]:
    """What the timeline shows, in the renderer-neutral form of tests/interaction/streams.py
    (the web's reducer test writes the same)."""

    def text(entry: Entry) -> str:
        return "".join(
            p.text if p.kind == "markdown" else f"[{p.kind} {p.media_type}]" for p in entry.parts
        )

    def line(entry: Entry) -> str:
        if entry.kind == "call" and entry.call is not None:
            call = entry.call
            return f"call {call.kind.value} {call.name}: {call.state.value}"
        if entry.kind == "artifact":
            return f"artifact {entry.name}: {text(entry)}"
        if entry.kind == "surface":
            return f"surface {entry.surface_id}"
        options = f" [{'|'.join(entry.options)}]" if entry.options else ""
        return f"{entry.kind}: {text(entry)}{options}"

    return {
        "state": timeline.state_name,
        "entries": [line(e) for e in timeline.entries],
        "plan": [f"{s.id}: {s.status}" for s in timeline.steps()],
    }


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_each_recorded_stream_folds_into_the_view_a_person_must_see(name: str) -> None:
    recorded = load(name)
    timeline = Timeline()
    events = recorded["events"]
    assert isinstance(events, list)
    for event in events:
        assert isinstance(event, dict)
        timeline.apply(ParseDict(event, StreamResponse()))
    assert seen_as(timeline) == recorded["view"]


def test_the_task_trace_is_read_from_its_extension() -> None:
    task = a_task()
    trace = TaskTrace(trace_id="4bf92f3577b34da6a3ce929d0e0e4736", url="https://jaeger.example/t")
    with_ext(task, TaskExtensionData(trace=trace))
    timeline = Timeline()
    timeline.apply(StreamResponse(task=task))
    assert timeline.trace == trace
    timeline.apply(say(task, "a-1", "Planning."))  # later events keep it
    assert timeline.trace == trace

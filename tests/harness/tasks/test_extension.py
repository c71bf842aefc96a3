"""The task extension: its data in Task.metadata, event envelopes, and the committed schemas."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from a2a.helpers import new_data_part, new_text_part
from a2a.types import (
    Artifact,
    Message,
    Part,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct
from pydantic import JsonValue, ValidationError

from tiny_harness.errors import TaskExtensionError
from tiny_harness.harness.tasks.extension import (
    EVENT_MEDIA_TYPE,
    TASK_EXT_KEY,
    TASK_EXTENSION_URI,
    AcceptanceCriterion,
    ArtifactUpdateEnvelope,
    EventEnvelope,
    Participant,
    ParticipantRole,
    StatusUpdateEnvelope,
    TaskEnvelope,
    TaskExtensionData,
    TaskRef,
    envelope_part,
    envelopes_in,
    event_envelope_schema,
    ext_of,
    merge_ext,
    task_extension_schema,
    with_ext,
)
from tiny_harness.harness.tasks.extension_schemas import SCHEMA_DIR, drift, main, rendered_schemas
from tiny_harness.harness.tasks.plan import Plan, Step
from tiny_harness.harness.tasks.usage import TaskUsage, UsageTotals


def full_ext() -> TaskExtensionData:
    return TaskExtensionData(
        name="Refund order 42",
        type="support",
        goal="Refund the customer",
        description="They were charged twice.",
        acceptance_criteria=(AcceptanceCriterion(text="Refund issued", met=None),),
        participants=(
            Participant(id="u1", kind="human", role=ParticipantRole.ADMIN, display_name="Ada"),
        ),
        parent_tasks=(TaskRef(task_id="p1"),),
        sub_tasks=(TaskRef(task_id="s1", agent="billing"),),
        plan=Plan(steps=(Step(id="a", name="look"), Step(id="b", name="act", depends_on=("a",)))),
        lifecycle="delegated",
        model="gpt-x",
        reasoning_effort="high",
    )


def status_event_json() -> dict[str, JsonValue]:
    return {
        "taskId": "remote-1",
        "contextId": "c1",
        "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-01-01T00:00:00Z"},
    }


def data_part(data: JsonValue) -> Part:
    return new_data_part(data, media_type=EVENT_MEDIA_TYPE)


def refusal(data: JsonValue) -> TaskExtensionError:
    with pytest.raises(TaskExtensionError) as caught:
        envelopes_in(Message(message_id="m", role=Role.ROLE_USER, parts=[data_part(data)]))
    return caught.value


def test_extension_data_round_trips_through_task_metadata() -> None:
    task = Task(id="t1", context_id="c1")
    task.metadata["other"] = "kept"

    with_ext(task, full_ext())
    restored = Task.FromString(task.SerializeToString())

    assert ext_of(restored) == full_ext()
    assert restored.metadata["other"] == "kept"


def test_with_ext_replaces_what_was_stored_and_writes_defaults_too() -> None:
    task = Task(id="t1")
    with_ext(task, full_ext())

    with_ext(task, TaskExtensionData(name="short"))

    assert ext_of(task) == TaskExtensionData(name="short")
    stored = task.metadata[TASK_EXT_KEY]
    assert isinstance(stored, Struct)
    assert stored["plan"] is None
    assert stored["lifecycle"] == "direct"


def test_task_without_extension_data_has_none() -> None:
    assert ext_of(Task(id="t1")) is None


@pytest.mark.parametrize(
    "stored",
    [{"name": "x", "surprise": 1}, {"name": "x" * 201}, {"lifecycle": "sideways"}, "a string"],
)
def test_invalid_stored_extension_data_raises_task_extension_error(stored: JsonValue) -> None:
    task = Task(id="t1")
    task.metadata.update({TASK_EXT_KEY: stored})

    with pytest.raises(TaskExtensionError, match="task 't1'") as caught:
        ext_of(task)

    assert caught.value.code == "task_extension.invalid"


def test_stored_plan_with_a_cycle_raises_task_extension_error() -> None:
    task = Task(id="t1")
    steps = [{"id": "a", "name": "a", "depends_on": ["a"]}]
    task.metadata.update({TASK_EXT_KEY: {"plan": {"steps": steps}}})

    with pytest.raises(TaskExtensionError, match="plan_cycle"):
        ext_of(task)


def test_task_envelope_carries_the_extension_data() -> None:
    envelope = EventEnvelope.model_validate(
        {"kind": "task", "payload": full_ext().model_dump(mode="json")}
    )

    assert envelope.kind == "task"
    assert isinstance(envelope.root, TaskEnvelope)
    assert envelope.payload == full_ext()


def test_status_update_envelope_validates_and_yields_the_proto_event() -> None:
    envelope = EventEnvelope.model_validate(
        {"kind": "status_update", "payload": status_event_json()}
    )

    assert isinstance(envelope.root, StatusUpdateEnvelope)
    event = envelope.root.event()
    assert event.task_id == "remote-1"
    assert event.status.state == TaskState.TASK_STATE_WORKING


def test_envelopes_built_from_proto_events_round_trip() -> None:
    status = TaskStatusUpdateEvent(
        task_id="r1", status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED)
    )
    artifact = TaskArtifactUpdateEvent(
        task_id="r1", artifact=Artifact(artifact_id="a1", parts=[Part(text="42")])
    )

    by_status = EventEnvelope.of_status_update(status)
    by_artifact = EventEnvelope.of_artifact_update(artifact)

    assert isinstance(by_status.root, StatusUpdateEnvelope)
    assert by_status.root.event() == status
    assert isinstance(by_artifact.root, ArtifactUpdateEnvelope)
    assert by_artifact.root.event() == artifact


def test_status_update_payload_with_an_unknown_field_is_refused() -> None:
    payload = {**status_event_json(), "bogus": True}

    with pytest.raises(ValidationError, match="no field 'bogus'"):
        EventEnvelope.model_validate({"kind": "status_update", "payload": payload})


def test_artifact_update_payload_with_a_bad_value_is_refused_without_echoing_it() -> None:
    payload: dict[str, JsonValue] = {"taskId": "r1", "append": "secret-looking-value"}

    error = refusal({"kind": "artifact_update", "payload": payload})

    assert "artifact_update.payload" in error.message
    assert "secret-looking-value" not in error.message


def test_unknown_kind_is_refused_without_echoing_it() -> None:
    error = refusal({"kind": "sneaky-kind", "payload": {}})

    assert "kind" in error.message
    assert "sneaky-kind" not in error.message


def test_envelope_with_an_extra_key_is_refused() -> None:
    error = refusal({"kind": "task", "payload": {}, "extra": 1})

    assert "task.extra" in error.message


def test_over_long_name_is_refused_without_echoing_it() -> None:
    error = refusal({"kind": "task", "payload": {"name": "n" * 201}})

    assert "task.payload.name" in error.message
    assert "nnnn" not in error.message


def test_envelopes_in_finds_only_parts_of_the_event_media_type() -> None:
    task_env = EventEnvelope.of_task(TaskExtensionData(name="one"))
    status_env = EventEnvelope.model_validate(
        {"kind": "status_update", "payload": status_event_json()}
    )
    message = Message(
        message_id="m",
        role=Role.ROLE_USER,
        parts=[
            new_text_part("hello"),
            new_data_part({"kind": "task", "payload": {}}, media_type="application/json"),
            envelope_part(task_env),
            new_data_part({"not": "an envelope"}),
            envelope_part(status_env),
        ],
    )

    assert envelopes_in(message) == [task_env, status_env]


def test_envelope_part_is_a_data_part_of_the_event_media_type() -> None:
    part = envelope_part(EventEnvelope.of_task(TaskExtensionData(name="one")))

    assert part.media_type == EVENT_MEDIA_TYPE
    assert part.WhichOneof("content") == "data"


def test_bad_envelope_is_named_by_its_part_index() -> None:
    message = Message(
        message_id="m",
        role=Role.ROLE_USER,
        parts=[new_text_part("hi"), data_part({"kind": "task", "payload": {"bad": 1}})],
    )

    with pytest.raises(TaskExtensionError, match=r"part 1 .*task\.payload\.bad"):
        envelopes_in(message)


def test_text_part_claiming_the_event_media_type_is_refused() -> None:
    part = Part(text="{}", media_type=EVENT_MEDIA_TYPE)

    with pytest.raises(TaskExtensionError, match="data part"):
        envelopes_in(Message(message_id="m", role=Role.ROLE_USER, parts=[part]))


def test_schemas_carry_their_ids_under_the_extension_uri() -> None:
    assert task_extension_schema()["$id"] == f"{TASK_EXTENSION_URI}/task.schema.json"
    assert event_envelope_schema()["$id"] == f"{TASK_EXTENSION_URI}/event.schema.json"
    assert task_extension_schema()["additionalProperties"] is False


def test_committed_schema_files_match_the_models() -> None:
    assert drift(SCHEMA_DIR) == [], "regenerate with task_ext_schemas --write"


def test_schema_check_fails_on_drift_and_passes_after_write(tmp_path: Path) -> None:
    assert main(["--check", "--dir", str(tmp_path)]) == 1

    assert main(["--write", "--dir", str(tmp_path)]) == 0
    assert main(["--check", "--dir", str(tmp_path)]) == 0

    (tmp_path / "task.schema.json").write_text("{}\n", encoding="utf-8")
    assert main(["--dir", str(tmp_path)]) == 1


def committed(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_committed_task_schema_accepts_good_data_and_refuses_an_extra_property() -> None:
    validator = committed("task.schema.json")
    good = full_ext().model_dump(mode="json")

    validator.validate(good)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({**good, "extra": 1})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"participants": [{"id": "u", "kind": "human", "role": "admin"}]})


def test_committed_event_schema_accepts_good_envelopes_and_refuses_an_extra_property() -> None:
    validator = committed("event.schema.json")
    task_env = EventEnvelope.of_task(full_ext()).model_dump(mode="json")
    status_env = {"kind": "status_update", "payload": status_event_json()}

    validator.validate(task_env)
    validator.validate(status_env)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({**status_env, "extra": 1})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"kind": "task", "payload": {"name": "x", "extra": 1}})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"kind": "other", "payload": {}})


def test_schema_files_are_what_the_writer_renders() -> None:
    assert set(rendered_schemas()) == {
        "task.schema.json",
        "event.schema.json",
        "channel.schema.json",
        "call.schema.json",
    }
    for name, text in rendered_schemas().items():
        assert text.endswith("}\n")
        assert json.loads(text)["$id"].endswith(name)


def test_a_later_envelope_changes_only_the_fields_its_sender_set() -> None:
    task = Task(id="t")
    merge_ext(task, TaskExtensionData(name="shirt", goal="order one"))
    sent = envelope_part(EventEnvelope.of_task(TaskExtensionData(description="size M")))
    message = Message(message_id="m", parts=[sent])

    (received,) = envelopes_in(message)
    assert isinstance(received.payload, TaskExtensionData)
    merge_ext(task, received.payload)

    assert ext_of(task) == TaskExtensionData(name="shirt", goal="order one", description="size M")


def test_a_client_cannot_set_or_clear_the_usage_the_server_counts() -> None:
    counted = TaskUsage(own=UsageTotals(model_calls=3, input_tokens=900, output_tokens=40))
    task = Task(id="t")
    with_ext(task, TaskExtensionData(name="shirt", usage=counted))

    merge_ext(task, TaskExtensionData(usage=TaskUsage(), description="size M"))
    merge_ext(task, TaskExtensionData(usage=None))

    assert ext_of(task) == TaskExtensionData(name="shirt", description="size M", usage=counted)


def _keys(schema: JsonValue) -> set[str]:
    """Every property name a JSON schema declares, however deep."""
    if isinstance(schema, list):
        return set().union(*(_keys(item) for item in schema))
    if not isinstance(schema, dict):
        return set()
    found: set[str] = set()
    for name, value in schema.items():
        if name == "properties" and isinstance(value, dict):
            found |= set(value)
        found |= _keys(value)
    return found


def test_every_key_of_our_extensions_is_camel_case() -> None:
    """A2A §5.5 (the TCK's DM-SERIAL-001): JSON field names are camelCase."""
    for name, text in rendered_schemas().items():
        keys = _keys(json.loads(text))
        assert keys, name
        assert not [key for key in keys if "_" in key or key[0].isupper()], name
    written = full_ext().model_dump(mode="json")
    assert {"acceptanceCriteria", "parentTasks", "subTasks"} <= set(written)
    assert "displayName" in written["participants"][0]


def test_a_task_stored_with_the_old_snake_case_keys_still_reads() -> None:
    task = Task(id="t-1", context_id="c-1")
    ext = full_ext()
    task.metadata[TASK_EXT_KEY] = ext.model_dump(mode="json", by_alias=False)
    assert "sub_tasks" in MessageToDict(task.metadata)[TASK_EXT_KEY]
    assert ext_of(task) == ext

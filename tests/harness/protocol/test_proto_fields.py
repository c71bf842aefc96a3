"""`ProtoJson[M]`: SDK protobufs as pydantic fields, kept as their ProtoJSON form."""

from __future__ import annotations

import json

import pytest
from a2a.types import (
    Artifact,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
)
from google.protobuf.json_format import ParseError
from google.protobuf.timestamp_pb2 import Timestamp
from pydantic import BaseModel, ValidationError

from tiny_harness.harness.protocol.proto_fields import ProtoJson, proto_to_dict


class Record(BaseModel):
    label: str
    task: ProtoJson[Task]


def sample_task() -> Task:
    message = Message(
        message_id="m1",
        role=Role.ROLE_USER,
        task_id="t1",
        context_id="c1",
        parts=[Part(text="hello")],
    )
    task = Task(
        id="t1",
        context_id="c1",
        status=TaskStatus(
            state=TaskState.TASK_STATE_WORKING, timestamp=Timestamp(seconds=1_700_000_000)
        ),
        history=[message],
        artifacts=[Artifact(artifact_id="a1", name="answer", parts=[Part(text="42")])],
    )
    task.metadata.update({"attempt": 2, "tags": ["x"]})
    return task


def test_model_round_trips_through_json() -> None:
    record = Record(label="one", task=sample_task())

    restored = Record.model_validate_json(record.model_dump_json())

    assert restored.label == "one"
    assert isinstance(restored.task, Task)
    assert restored.task == sample_task()


def test_field_serialises_to_camel_case_protojson() -> None:
    dumped = json.loads(Record(label="one", task=sample_task()).model_dump_json())

    assert dumped["task"]["contextId"] == "c1"
    assert dumped["task"]["status"]["state"] == "TASK_STATE_WORKING"
    assert dumped["task"]["history"][0]["messageId"] == "m1"
    assert dumped["task"]["artifacts"][0]["artifactId"] == "a1"
    assert dumped["task"] == proto_to_dict(sample_task())


def test_python_dump_is_the_protojson_dict_and_validates_back() -> None:
    dumped = Record(label="one", task=sample_task()).model_dump()

    assert dumped["task"] == proto_to_dict(sample_task())
    assert Record.model_validate(dumped).task == sample_task()


def test_field_accepts_a_message_instance_as_is() -> None:
    task = sample_task()

    assert Record(label="x", task=task).task is task


def test_invalid_enum_value_is_a_validation_error_not_a_parse_error() -> None:
    bad = {"label": "x", "task": {"id": "t1", "status": {"state": "NOT_A_STATE"}}}

    with pytest.raises(ValidationError) as caught:
        Record.model_validate(bad)

    assert not isinstance(caught.value, ParseError)
    (error,) = caught.value.errors()
    assert error["loc"] == ("task",)
    assert "NOT_A_STATE" in error["msg"]


def test_invalid_enum_value_in_json_is_a_validation_error() -> None:
    raw = json.dumps({"label": "x", "task": {"id": "t1", "status": {"state": "NOT_A_STATE"}}})

    with pytest.raises(ValidationError, match="NOT_A_STATE"):
        Record.model_validate_json(raw)


def test_unknown_field_is_refused() -> None:
    with pytest.raises(ValidationError, match="noSuchField"):
        Record.model_validate({"label": "x", "task": {"id": "t1", "noSuchField": 1}})


def test_wrong_type_inside_the_message_is_a_validation_error() -> None:
    with pytest.raises(ValidationError, match="id"):
        Record.model_validate({"label": "x", "task": {"id": 5}})


@pytest.mark.parametrize(
    "value",
    [5, "t1", None, ["t1"], Message(message_id="m1")],
    ids=["int", "str", "none", "list", "other-message-type"],
)
def test_value_that_is_neither_the_message_nor_a_dict_is_a_validation_error(
    value: object,
) -> None:
    with pytest.raises(ValidationError) as caught:
        Record.model_validate({"label": "x", "task": value})

    assert caught.value.errors()[0]["loc"] == ("task",)

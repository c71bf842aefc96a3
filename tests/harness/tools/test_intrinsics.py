"""Intrinsic tools: their definitions, the commands they produce, and how bad calls fail."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from tiny_harness.errors import ToolArgumentError, ToolNotFoundError
from tiny_harness.harness.tasks.plan import Plan, StepState
from tiny_harness.harness.tools.definition import Execution, ToolCall
from tiny_harness.harness.tools.intrinsics import intrinsic_definitions, invoke_intrinsic


def call(name: str, arguments: dict[str, JsonValue], call_id: str = "call-1") -> ToolCall:
    return ToolCall(call_id=call_id, name=name, arguments=arguments)


def test_definitions_are_the_loops_intrinsics_in_a_stable_order() -> None:
    names = [d.name for d in intrinsic_definitions()]

    assert names == [
        "create_plan",
        "complete_step",
        "ask_participant",
        "create_task_for_participant",
        "set_participant_role",
        "emit_ui",
    ]
    assert [d.name for d in intrinsic_definitions()] == names


def test_every_definition_is_intrinsic_with_a_description_and_object_schema() -> None:
    for definition in intrinsic_definitions():
        assert definition.execution is Execution.INTRINSIC
        assert definition.description
        assert definition.input_schema["type"] == "object"
        assert definition.input_schema["additionalProperties"] is False


def test_schemas_declare_the_required_arguments() -> None:
    schemas = {d.name: d.input_schema for d in intrinsic_definitions()}

    assert schemas["create_plan"]["required"] == ["steps"]
    assert schemas["complete_step"]["required"] == ["step_id"]
    assert schemas["ask_participant"]["required"] == ["question"]
    properties = schemas["ask_participant"]["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {"question", "options", "participant_id"}
    assert schemas["create_task_for_participant"]["required"] == ["participant_id", "name", "goal"]
    assert schemas["set_participant_role"]["required"] == ["participant_id", "role"]


def test_set_participant_role_takes_only_the_four_roles() -> None:
    with pytest.raises(ToolArgumentError, match="role: Input should be 'assignee'"):
        invoke_intrinsic(call("set_participant_role", {"participant_id": "bob", "role": "owner"}))

    command = invoke_intrinsic(
        call("set_participant_role", {"participant_id": "bob", "role": "watcher"})
    )
    assert command.kind == "set_participant_role"
    assert command.payload == {"participant_id": "bob", "role": "watcher"}


def test_create_task_for_participant_needs_a_goal() -> None:
    with pytest.raises(ToolArgumentError, match="goal: Field required"):
        invoke_intrinsic(
            call("create_task_for_participant", {"participant_id": "bob", "name": "x"})
        )


def test_create_plan_gives_an_attach_plan_command_with_a_valid_plan() -> None:
    command = invoke_intrinsic(
        call(
            "create_plan",
            {
                "steps": [
                    {"id": "read", "name": "Read", "description": "Read the request"},
                    {"id": "write", "name": "Write", "depends_on": ["read"]},
                ]
            },
            call_id="c7",
        )
    )

    assert command.kind == "attach_plan"
    assert command.call_id == "c7"
    plan = Plan.model_validate(command.payload["plan"])
    assert [s.id for s in plan.steps] == ["read", "write"]
    assert plan.step("read").description == "Read the request"
    assert plan.step("write").depends_on == ("read",)
    assert all(s.state is StepState.PENDING for s in plan.steps)
    assert command.result.call_id == "c7"
    assert command.result.name == "create_plan"
    assert not command.result.is_error
    assert plan.render() in command.result.text


def test_create_plan_numbers_steps_without_ids_s1_to_sn() -> None:
    command = invoke_intrinsic(
        call(
            "create_plan",
            {"steps": [{"name": "A"}, {"name": "B", "depends_on": ["s1"]}, {"name": "C"}]},
        )
    )

    plan = Plan.model_validate(command.payload["plan"])
    assert [s.id for s in plan.steps] == ["s1", "s2", "s3"]
    assert plan.step("s2").depends_on == ("s1",)


def test_create_plan_without_steps_argument_names_the_field() -> None:
    with pytest.raises(ToolArgumentError, match=r"create_plan: steps: Field required"):
        invoke_intrinsic(call("create_plan", {}))


def test_create_plan_with_empty_steps_names_the_field() -> None:
    with pytest.raises(ToolArgumentError, match=r"create_plan: steps:"):
        invoke_intrinsic(call("create_plan", {"steps": []}))


def test_create_plan_step_without_a_name_names_the_nested_field() -> None:
    with pytest.raises(ToolArgumentError, match=r"steps\.1\.name"):
        invoke_intrinsic(call("create_plan", {"steps": [{"name": "A"}, {"id": "x"}]}))


def test_create_plan_with_a_cycle_is_an_argument_error_naming_the_cycle() -> None:
    cyclic: dict[str, JsonValue] = {
        "steps": [{"name": "A", "depends_on": ["s2"]}, {"name": "B", "depends_on": ["s1"]}]
    }

    with pytest.raises(ToolArgumentError, match="cycle") as caught:
        invoke_intrinsic(call("create_plan", cyclic))

    assert "s1 -> s2 -> s1" in caught.value.message


def test_create_plan_with_unknown_dependency_is_an_argument_error() -> None:
    with pytest.raises(ToolArgumentError, match="ghost"):
        invoke_intrinsic(call("create_plan", {"steps": [{"name": "A", "depends_on": ["ghost"]}]}))


def test_complete_step_gives_a_complete_step_command() -> None:
    command = invoke_intrinsic(call("complete_step", {"step_id": "s1", "output": "did it"}))

    assert command.kind == "complete_step"
    assert command.payload == {"step_id": "s1", "output": "did it"}
    assert "s1" in command.result.text


def test_complete_step_with_wrong_type_names_the_field() -> None:
    with pytest.raises(ToolArgumentError, match="complete_step: step_id:"):
        invoke_intrinsic(call("complete_step", {"step_id": 5}))


def test_ask_participant_waits_for_a_reply_with_question_and_options() -> None:
    command = invoke_intrinsic(
        call(
            "ask_participant",
            {"question": "Short or long?", "options": ["short", "long"]},
            call_id="ask-1",
        )
    )

    assert command.kind == "wait_for_reply"
    assert command.call_id == "ask-1"
    assert command.payload["question"] == "Short or long?"
    assert command.payload["options"] == ["short", "long"]
    assert command.payload["participant_id"] is None
    assert command.result.call_id == "ask-1"


def test_ask_participant_without_question_names_the_field() -> None:
    with pytest.raises(ToolArgumentError, match=r"ask_participant: question: Field required"):
        invoke_intrinsic(call("ask_participant", {"options": ["a"]}))


def test_ask_participant_with_empty_question_names_the_field() -> None:
    with pytest.raises(ToolArgumentError, match=r"question:"):
        invoke_intrinsic(call("ask_participant", {"question": ""}))


def test_unknown_argument_is_refused_and_named() -> None:
    with pytest.raises(ToolArgumentError, match=r"colour: Extra inputs are not permitted"):
        invoke_intrinsic(call("ask_participant", {"question": "Why?", "colour": "red"}))


def test_unknown_tool_is_a_tool_not_found_error_naming_it() -> None:
    with pytest.raises(ToolNotFoundError, match="launch_rockets"):
        invoke_intrinsic(call("launch_rockets", {}))


def test_default_step_ids_skip_ids_the_model_chose() -> None:
    call = ToolCall(
        call_id="c-1",
        name="create_plan",
        arguments={"steps": [{"id": "s2", "name": "first"}, {"name": "second"}]},
    )
    plan = Plan.model_validate(invoke_intrinsic(call).payload["plan"])
    assert [step.id for step in plan.steps] == ["s2", "s1"]


def test_emit_ui_refuses_a_message_that_is_not_a2ui() -> None:
    with pytest.raises(ToolArgumentError, match=r"emit_ui: messages: .*exactly one of"):
        invoke_intrinsic(call("emit_ui", {"messages": [{"version": "v0.9.1"}]}))


def test_emit_ui_names_the_surfaces_it_shows() -> None:
    command = invoke_intrinsic(
        call("emit_ui", {"messages": [{"createSurface": {"surfaceId": "sizes"}}]})
    )

    assert command.kind == "emit_ui"
    assert command.result.text == "Shown on sizes."
    assert command.payload["messages"] == [
        {"version": "v0.9.1", "createSurface": {"surfaceId": "sizes"}}
    ]

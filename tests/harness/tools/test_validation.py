"""Arguments checked against a tool's input schema with jsonschema."""

from __future__ import annotations

import urllib.request

import pytest

from tiny_harness.errors import ToolArgumentError, ToolError, ToolSchemaError
from tiny_harness.harness.tools.definition import JsonObject, ToolCall, ToolDefinition
from tiny_harness.harness.tools.validation import (
    MAX_MESSAGE_CHARS,
    compiled_validator,
    validate_arguments,
)

ADD: JsonObject = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}

ORDER: JsonObject = {
    "type": "object",
    "properties": {
        "customer": {
            "type": "object",
            "properties": {
                "address": {
                    "type": "object",
                    "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                }
            },
        },
        "items": {"type": "array", "items": {"type": "integer"}},
    },
}


def tool(schema: JsonObject, name: str = "calc.add") -> ToolDefinition:
    return ToolDefinition(name=name, description="", input_schema=schema)


def call(arguments: JsonObject, name: str = "calc.add") -> ToolCall:
    return ToolCall(call_id="c-1", name=name, arguments=arguments)


def refusal(schema: JsonObject, arguments: JsonObject) -> str:
    with pytest.raises(ToolArgumentError) as caught:
        validate_arguments(tool(schema), call(arguments))
    return caught.value.message


def test_valid_arguments_pass() -> None:
    validate_arguments(tool(ADD), call({"a": 1, "b": 2}))


def test_a_missing_required_argument_is_named_at_the_top_level() -> None:
    assert refusal(ADD, {"a": 1}) == "calc.add: arguments: 'b' is a required property"


def test_a_wrong_type_names_the_argument() -> None:
    assert refusal(ADD, {"a": "one", "b": 2}) == "calc.add: a: 'one' is not of type 'integer'"


def test_a_nested_violation_names_its_dotted_path() -> None:
    arguments: JsonObject = {"customer": {"address": {"zip": "abc"}}, "items": [1, "two"]}
    assert refusal(ORDER, arguments) == (
        "calc.add: customer.address.zip: 'abc' does not match '^[0-9]{5}$'; "
        "items.1: 'two' is not of type 'integer'"
    )


def test_only_the_first_three_violations_are_named() -> None:
    schema: JsonObject = {
        "type": "object",
        "properties": {name: {"type": "integer"} for name in "abcde"},
    }
    message = refusal(schema, {name: "x" for name in "abcde"})
    assert message.count("is not of type") == 3
    assert message.startswith("calc.add: a: ")
    assert message.endswith(" (and 2 more)")


def test_a_long_offending_value_is_cut() -> None:
    message = refusal(ADD, {"a": "x" * 1000, "b": 2})
    assert len(message) < MAX_MESSAGE_CHARS + 20
    assert message.endswith("…")


def test_an_invalid_schema_is_a_schema_error_not_an_argument_error() -> None:
    broken: JsonObject = {"type": "object", "properties": {"a": {"type": "whole number"}}}
    with pytest.raises(ToolSchemaError) as caught:
        validate_arguments(tool(broken), call({"a": 1}))
    assert isinstance(caught.value, ToolError)
    assert caught.value.message.startswith("calc.add: the input schema is not valid JSON Schema")


def test_the_draft_follows_dollar_schema_and_defaults_to_2020_12() -> None:
    # An array of schemas under `items` is tuple validation in draft 7, but invalid in 2020-12.
    pair: JsonObject = {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}
    draft7: JsonObject = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"pair": pair},
    }
    validate_arguments(tool(draft7), call({"pair": [1, "one"]}))
    assert refusal(draft7, {"pair": [1, 2]}) == "calc.add: pair.1: 2 is not of type 'string'"
    with pytest.raises(ToolSchemaError):
        validate_arguments(tool({"type": "object", "properties": {"pair": pair}}), call({}))


def test_a_remote_ref_is_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        pytest.fail("the validator tried to fetch a remote $ref")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    schema: JsonObject = {
        "type": "object",
        "properties": {"a": {"$ref": "http://169.254.169.254/latest/meta-data"}},
    }
    with pytest.raises(ToolSchemaError, match="cannot be resolved"):
        validate_arguments(tool(schema), call({"a": 1}))


def test_a_local_ref_resolves() -> None:
    schema: JsonObject = {
        "type": "object",
        "$defs": {"count": {"type": "integer", "minimum": 0}},
        "properties": {"n": {"$ref": "#/$defs/count"}},
    }
    validate_arguments(tool(schema), call({"n": 3}))
    assert refusal(schema, {"n": -1}) == "calc.add: n: -1 is less than the minimum of 0"


def test_validators_are_cached_per_schema_content() -> None:
    same_in_another_order: JsonObject = {
        "additionalProperties": False,
        "required": ["a", "b"],
        "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}},
        "type": "object",
    }
    first = compiled_validator(tool(ADD))
    assert compiled_validator(tool(same_in_another_order, name="other.add")) is first
    assert compiled_validator(tool(ORDER)) is not first

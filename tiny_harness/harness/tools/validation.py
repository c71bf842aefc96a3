"""Checking a tool call's arguments against the tool's input schema (JSON Schema).

The validator class follows the schema's `$schema` (Draft 4 to 2020-12); a schema without
one, or with a URI jsonschema does not know, is read as Draft 2020-12. `format` is an
annotation, as the 2020-12 default says, not an assertion.

A `$ref` resolves only inside the schema itself or to the JSON Schema metaschemas: the
registry never retrieves anything. (jsonschema's default would fetch an `http(s)` `$ref`
with `urlopen`, so a server's schema could make the worker send requests.) A `$ref` that
does not resolve makes the schema invalid.

Compiled validators are cached by the sha256 of the schema's canonical JSON, so a schema
is checked against its metaschema once, not on every call.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import SchemaRegistry

from tiny_harness.errors import ToolArgumentError, ToolSchemaError
from tiny_harness.harness.tools.definition import JsonObject, ToolCall, ToolDefinition

MAX_REPORTED_ERRORS: Final = 3
"""How many schema violations an argument error names; the rest are counted."""

MAX_MESSAGE_CHARS: Final = 200
"""A violation's message is cut here (it quotes the offending value, which can be long)."""

CACHE_SIZE: Final = 512
"""Compiled validators kept, least recently used dropped first."""

_NO_RETRIEVAL: Final[SchemaRegistry] = Registry()
_validators: OrderedDict[str, Validator] = OrderedDict()


def schema_hash(schema: JsonObject) -> str:
    """sha256 (hex) of `schema` as canonical JSON: sorted keys, no insignificant spaces."""
    canonical = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def validate_arguments(definition: ToolDefinition, call: ToolCall) -> None:
    """Check `call.arguments` against `definition.input_schema`.

    Raises `ToolArgumentError` naming up to three violations as `path: message` (the path
    dotted, `arguments` for the top level), and `ToolSchemaError` when the schema itself is
    not valid, so no arguments could be checked against it.
    """
    validator = compiled_validator(definition)
    try:
        errors = sorted(validator.iter_errors(call.arguments), key=_order)
    except Unresolvable as error:
        raise ToolSchemaError(
            f"{definition.name}: the input schema has a $ref that cannot be resolved: {error}"
        ) from error
    if errors:
        raise ToolArgumentError(f"{call.name}: {_summary(errors)}")


def compiled_validator(definition: ToolDefinition) -> Validator:
    """The validator of `definition.input_schema`, compiled once per distinct schema.

    Raises `ToolSchemaError` when the schema fails its metaschema.
    """
    schema = definition.input_schema
    key = schema_hash(schema)
    validator = _validators.get(key)
    if validator is not None:
        _validators.move_to_end(key)
        return validator
    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as error:
        where = ".".join(str(p) for p in error.absolute_path) or "the schema"
        raise ToolSchemaError(
            f"{definition.name}: the input schema is not valid JSON Schema: "
            f"{where}: {_cut(error.message)}"
        ) from error
    validator = cls(schema, registry=_NO_RETRIEVAL)
    _validators[key] = validator
    if len(_validators) > CACHE_SIZE:
        _validators.popitem(last=False)
    return validator


def _order(error: ValidationError) -> tuple[tuple[str, ...], str]:
    """Top-level violations first, then by path, then by message: a stable report."""
    return tuple(str(p) for p in error.absolute_path), error.message


def _summary(errors: list[ValidationError]) -> str:
    shown = [
        f"{'.'.join(str(p) for p in e.absolute_path) or 'arguments'}: {_cut(e.message)}"
        for e in errors[:MAX_REPORTED_ERRORS]
    ]
    more = len(errors) - len(shown)
    return "; ".join(shown) + (f" (and {more} more)" if more else "")


def _cut(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE_CHARS else message[: MAX_MESSAGE_CHARS - 1] + "…"

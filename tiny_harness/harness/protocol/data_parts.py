"""`typed_parts`: the data parts of one media type in an A2A message, read as a model.

Both of the harness's A2A extensions travel this way (task envelopes, channel messages):
a data part whose media type names what it holds. Reading them is the same for both: find
the parts of that media type (parameters and case ignored), require a JSON object, validate
it as the model, and on failure name the part and its first problem, never the values sent.
"""

from __future__ import annotations

from collections.abc import Callable

from a2a.types import Message
from google.protobuf.json_format import MessageToJson
from google.protobuf.struct_pb2 import Value
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails


def media_essence(media_type: str) -> str:
    """The media type without parameters, lower case (`a/b; v=1` → `a/b`)."""
    return media_type.split(";", 1)[0].strip().lower()


def has_parts(message: Message, media_type: str) -> bool:
    """Whether any part of `message` is of `media_type` (valid or not)."""
    return any(media_essence(part.media_type) == media_type for part in message.parts)


def describe(detail: ErrorDetails) -> str:
    """A validation problem as `location: message`; pydantic's messages name the
    constraint, not the input."""
    location = ".".join(str(step) for step in detail["loc"]) or "(root)"
    return f"{location}: {detail['msg'].removeprefix('Value error, ')}"


def typed_parts[M: BaseModel](
    message: Message,
    media_type: str,
    model: type[M],
    *,
    noun: str,
    refuse: Callable[[str], Exception],
    explain: Callable[[ErrorDetails], str] = describe,
) -> list[M]:
    """Every part of `media_type` in `message`, in part order, validated as `model`.

    Raises `refuse(reason)` for the first such part that is not a data part holding a JSON
    object `model` accepts; `noun` names what the part should be ("a channel message"),
    `explain` words a validation problem (by default `describe`).
    """
    found: list[M] = []
    for index, part in enumerate(message.parts):
        if media_essence(part.media_type) != media_type:
            continue
        where = f"part {index} ({media_type})"
        if part.WhichOneof("content") != "data":
            raise refuse(f"{where}: {noun} must be a data part")
        found.append(typed_value(part.data, model, where=where, refuse=refuse, explain=explain))
    return found


def typed_value[M: BaseModel](
    value: Value,
    model: type[M],
    *,
    where: str,
    refuse: Callable[[str], Exception],
    explain: Callable[[ErrorDetails], str] = describe,
) -> M:
    """`value` (a JSON object in protobuf form) validated as `model`; `refuse(reason)`,
    the reason starting with `where`, when it is not an object or `model` rejects it."""
    if value.WhichOneof("kind") != "struct_value":
        raise refuse(f"{where}: expected a JSON object")
    try:
        return model.model_validate_json(MessageToJson(value.struct_value, indent=None))
    except ValidationError as error:
        detail = error.errors(include_url=False, include_input=False, include_context=True)
        raise refuse(f"{where}: {explain(detail[0])}") from error

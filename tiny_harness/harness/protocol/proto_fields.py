"""Protobuf messages of the A2A SDK as fields of our pydantic models.

The SDK's protobuf types (`Task`, `Message`, `StreamResponse`, …) are the harness's types;
nothing mirrors them. `ProtoJson[M]` lets a pydantic model hold one: it validates from an
instance of `M` or from its ProtoJSON dict, and serialises to the ProtoJSON dict, which is
what Temporal history and the store keep.
"""

from __future__ import annotations

from typing import Annotated

from google.protobuf.json_format import MessageToDict, ParseDict, ParseError
from google.protobuf.message import Message as ProtoMessage
from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema


class _ProtoJsonCodec:
    """Pydantic core schema for one protobuf message class."""

    def __get_pydantic_core_schema__(
        self, source: type[ProtoMessage], handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        message_class = source

        def validate(value: object) -> ProtoMessage:
            if isinstance(value, message_class):
                return value
            if isinstance(value, dict):
                try:
                    return ParseDict(value, message_class(), ignore_unknown_fields=False)
                except ParseError as error:
                    # A ValueError becomes a pydantic ValidationError, like any bad field.
                    raise ValueError(f"not a valid {message_class.__name__}: {error}") from error
            raise ValueError(f"expected {message_class.__name__} or its ProtoJSON object")

        def serialise(value: ProtoMessage) -> dict[str, object]:
            return MessageToDict(value, preserving_proto_field_name=False)

        return core_schema.no_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(serialise),
            json_schema_input_schema=core_schema.dict_schema(),
        )


type ProtoJson[M: ProtoMessage] = Annotated[M, _ProtoJsonCodec()]


def proto_to_dict(message: ProtoMessage) -> dict[str, object]:
    """The ProtoJSON (camelCase) form of a message, as the A2A wire carries it."""
    return MessageToDict(message, preserving_proto_field_name=False)

"""Redaction at the Temporal boundary: a payload codec that masks credentials on the way out.

Every payload this process sends to Temporal (a workflow's start argument, an update's
argument, an activity's arguments when the workflow schedules it and its result when the
worker reports it, a query's answer) passes the codec's `encode`, so a credential inside a
tool result, a model answer or a remote agent's message is masked before history records it.
The workflow then reads the masked value from history, on its first run as on a replay, so
masking cannot make it diverge. `decode` changes nothing: what history holds is already
plain JSON, readable by a client without this codec (the Temporal UI, `temporal workflow
show`).

Failures are encoded too (`encode_common_attributes`): an error's message and stack trace
travel as a payload through the codec, so a credential quoted in an exception is masked as
well; the Temporal UI then shows "Encoded failure" with the message in its payload.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Final

from pydantic import JsonValue
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import (
    DataConverter,
    DefaultFailureConverterWithEncodedAttributes,
    PayloadCodec,
)

from tiny_harness.harness.security import Redactor

_JSON: Final = b"json/plain"


class RedactingCodec(PayloadCodec):
    """Masks, in every JSON payload it encodes, what the `Redactor` finds."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._masked(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)

    def _masked(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != _JSON:
            return payload  # binary/null and protobuf payloads carry no text we write
        value: JsonValue = json.loads(payload.data)
        redacted = self._redactor.counted_json(value)
        if not redacted.masked:
            return payload  # the bytes as they were: nothing to mask, nothing re-encoded
        masked = Payload()
        masked.CopyFrom(payload)
        masked.data = json.dumps(redacted.value, separators=(",", ":")).encode("utf-8")
        return masked


def redacting_converter(redactor: Redactor) -> DataConverter:
    """The pydantic data converter with the redacting codec and encoded failures."""
    return dataclasses.replace(
        pydantic_data_converter,
        payload_codec=RedactingCodec(redactor),
        failure_converter_class=DefaultFailureConverterWithEncodedAttributes,
    )

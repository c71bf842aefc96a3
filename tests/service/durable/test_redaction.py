"""The redacting codec: what the harness sends to Temporal holds no credential, and what
holds none is sent byte for byte as the pydantic converter made it."""

from __future__ import annotations

from temporalio.api.failure.v1 import Failure
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError

from tiny_harness.harness.models.llm import LLMResponse, Usage
from tiny_harness.harness.security import Redactor
from tiny_harness.service.durable.redaction import redacting_converter

TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6" * 3
SECRET = "configured-secret-4711"
CONVERTER = redacting_converter(Redactor([SECRET]))


async def test_a_model_answer_with_a_credential_is_masked_before_it_is_sent() -> None:
    answer = LLMResponse(
        output_text=f"Your token is {TOKEN}; the password is {SECRET}.",
        usage=Usage(input_tokens=12, output_tokens=9),
        model="m",
    )
    (payload,) = await CONVERTER.encode([answer])
    assert TOKEN.encode() not in payload.data
    assert SECRET.encode() not in payload.data
    (decoded,) = await CONVERTER.decode([payload], [LLMResponse])
    assert decoded.output_text == (
        "Your token is [redacted:github-token]; the password is [redacted:secret]."
    )
    assert decoded.usage == answer.usage  # the rest of the answer is as it was


async def test_a_payload_with_nothing_to_mask_is_sent_as_the_pydantic_converter_made_it() -> None:
    answer = LLMResponse(output_text="Nothing secret here: 3.5 shirts.", model="m")
    (ours,) = await CONVERTER.encode([answer])
    (plain,) = await pydantic_data_converter.encode([answer])
    assert ours == plain


async def test_an_error_quoting_a_credential_is_recorded_masked() -> None:
    failure = Failure()
    error = ApplicationError(f"the tool said: {TOKEN}", type="ToolError")
    await CONVERTER.encode_failure(error, failure)
    assert TOKEN.encode() not in failure.SerializeToString()
    assert failure.message == "Encoded failure"  # the message travels in the codec's payload
    decoded = await CONVERTER.decode_failure(failure)
    assert isinstance(decoded, ApplicationError)
    assert decoded.message == "the tool said: [redacted:github-token]"

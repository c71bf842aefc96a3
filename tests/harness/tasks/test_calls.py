"""A call event: how a call's start and end are written and read back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from a2a.helpers import new_data_part
from a2a.types import Message, Part

from tiny_harness.errors import TaskExtensionError
from tiny_harness.harness.models.llm import LLMResponse, Usage
from tiny_harness.harness.tasks.calls import (
    CALL_MEDIA_TYPE,
    SUMMARY_CHARS,
    CallState,
    call_part,
    calls_in,
    ended,
    model_answered,
    model_started,
    tool_started,
)
from tiny_harness.harness.tools.definition import ToolCall

AT = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
CALL = ToolCall(call_id="c-1", name="lookup", arguments={"query": "blue shirts"})


def test_a_tool_call_round_trips_through_its_data_part_with_camel_case_keys() -> None:
    started = tool_started(CALL, AT, detailed=True)
    part = call_part(started)
    assert part.media_type == CALL_MEDIA_TYPE
    assert set(part.data.struct_value.fields) == {
        "callId",
        "kind",
        "name",
        "state",
        "startedAt",
        "arguments",
    }
    assert calls_in(Message(message_id="m", parts=[part])) == [started]


def test_an_end_says_how_long_the_call_took_and_cuts_a_long_result() -> None:
    started = tool_started(CALL, AT, detailed=True)
    text = "x" * (SUMMARY_CHARS + 500)
    done = ended(
        started, CallState.COMPLETED, AT + timedelta(milliseconds=1234), text, detailed=True
    )
    assert done.duration_ms == 1234
    assert done.result is not None
    assert len(done.result) == SUMMARY_CHARS
    assert done.result.endswith("…")
    assert done.result_chars == len(text)
    short = ended(started, CallState.FAILED, AT, "no such tool", detailed=True)
    assert (short.result, short.result_chars) == ("no such tool", 12)


def test_names_only_leaves_arguments_and_results_out() -> None:
    started = tool_started(CALL, AT, detailed=False)
    done = ended(started, CallState.VETOED, AT, "refused by hook", detailed=False)
    assert (started.arguments, done.arguments, done.result, done.result_chars) == (None,) * 4
    assert done.state is CallState.VETOED


def test_a_model_call_ends_named_after_the_model_that_answered_with_its_tokens() -> None:
    started = model_started(3, AT)
    assert (started.call_id, started.name) == ("model-3", "model")
    answer = LLMResponse(
        output_text="",
        model="gpt-x",
        usage=Usage(input_tokens=90, cached_tokens=10, output_tokens=7),
    )
    done = model_answered(started, answer, 0.002, AT + timedelta(seconds=2))
    assert (done.name, done.state, done.duration_ms) == ("gpt-x", CallState.COMPLETED, 2000)
    assert (done.input_tokens, done.cached_tokens, done.output_tokens) == (90, 10, 7)
    assert done.cost_usd == 0.002


def test_a_malformed_call_part_is_refused_naming_the_part_not_its_values() -> None:
    bad = new_data_part({"callId": "c", "kind": "robot"}, media_type=CALL_MEDIA_TYPE)
    with pytest.raises(TaskExtensionError) as refused:
        calls_in(Message(message_id="m", parts=[Part(text="hi"), bad]))
    assert str(refused.value).startswith(f"part 1 ({CALL_MEDIA_TYPE})")
    assert "robot" not in str(refused.value)

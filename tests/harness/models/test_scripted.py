"""The scripted model: deterministic replay, `when` guards, retry safety, script errors."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tiny_harness.errors import ScriptError
from tiny_harness.harness.context.compaction import apply_summary, summary_request
from tiny_harness.harness.models.llm import (
    AssistantItem,
    InputItem,
    LLMRequest,
    LLMResponse,
    OutputSchema,
    ToolResultItem,
    UserItem,
)
from tiny_harness.harness.models.scripted import (
    DEFAULT_FINAL,
    Script,
    ScriptedLLM,
    ScriptToolCall,
    ScriptTurn,
    builtin_demo_script,
    load_script,
    parse_script,
)


class Conversation:
    """Drives a model the way the loop does: call, record the answer and tool results."""

    def __init__(self, llm: ScriptedLLM, first_message: str) -> None:
        self.llm = llm
        self.items: list[InputItem] = [UserItem(message_id="m0", text=first_message)]

    def request(self) -> LLMRequest:
        return LLMRequest(instructions="You are a test agent.", input=tuple(self.items))

    async def step(self) -> LLMResponse:
        response = await self.llm.invoke(self.request())
        self.items.append(AssistantItem(text=response.output_text, tool_calls=response.tool_calls))
        self.items.extend(
            ToolResultItem(call_id=call.call_id, name=call.name, text="ok")
            for call in response.tool_calls
        )
        return response

    def say(self, text: str, *, reply_to: str | None = None) -> None:
        self.items.append(UserItem(message_id=f"m{len(self.items)}", text=text, reply_to=reply_to))


def turn(text: str = "", *tools: str, when: str | None = None) -> ScriptTurn:
    return ScriptTurn(
        text=text, tool_calls=tuple(ScriptToolCall(name=name) for name in tools), when=when
    )


async def test_turns_are_used_in_order_across_calls() -> None:
    script = Script(turns=(turn("one", "tool_a"), turn("two", "tool_b", "tool_c"), turn("three")))
    chat = Conversation(ScriptedLLM(script), "hi")

    first = await chat.step()
    second = await chat.step()
    third = await chat.step()

    assert first.output_text == "one"
    assert [call.name for call in first.tool_calls] == ["tool_a"]
    assert first.finish == "tool_calls"
    assert second.output_text == "two"
    assert [call.name for call in second.tool_calls] == ["tool_b", "tool_c"]
    assert third.output_text == "three"
    assert third.tool_calls == ()
    assert third.finish == "stop"


async def test_exhausted_script_answers_final_without_tool_calls() -> None:
    chat = Conversation(ScriptedLLM(Script(turns=(turn("only"),), final="All done.")), "hi")

    await chat.step()
    after = await chat.step()
    again = await chat.step()

    assert after.output_text == "All done."
    assert after.tool_calls == ()
    assert after.finish == "stop"
    assert again.output_text == "All done."


async def test_empty_script_answers_default_final() -> None:
    response = await Conversation(ScriptedLLM(Script()), "hi").step()

    assert response.output_text == DEFAULT_FINAL
    assert response.tool_calls == ()


async def test_unmatched_when_turn_is_skipped_and_never_used_later() -> None:
    script = Script(
        turns=(turn("refunded", when="(?i)refund"), turn("plain"), turn("last")),
        final="over",
    )
    chat = Conversation(ScriptedLLM(script), "hello")

    first = await chat.step()
    chat.say("now a refund please")
    second = await chat.step()
    third = await chat.step()

    assert first.output_text == "plain"
    assert second.output_text == "last"
    assert third.output_text == "over"


async def test_when_matches_newest_inbound_message_not_an_older_one() -> None:
    script = Script(turns=(turn("start"), turn("refunded", when="refund"), turn("after")))
    chat = Conversation(ScriptedLLM(script), "I want a refund")

    assert (await chat.step()).output_text == "start"
    chat.say("never mind")
    assert (await chat.step()).output_text == "after"


async def test_when_matches_a_newer_message_after_an_older_one_did_not() -> None:
    script = Script(turns=(turn("start"), turn("refunded", when="refund")), final="waiting")
    chat = Conversation(ScriptedLLM(script), "hello")

    assert (await chat.step()).output_text == "start"
    assert (await chat.step()).output_text == "waiting"
    chat.say("refund please")
    assert (await chat.step()).output_text == "refunded"


async def test_same_request_twice_gives_identical_response() -> None:
    script = Script(turns=(turn("one", "tool_a"), turn("two", "tool_b")))
    llm = ScriptedLLM(script)
    chat = Conversation(llm, "hi")
    await chat.step()

    request = chat.request()
    first = await llm.invoke(request)
    retried = await llm.invoke(request)
    fresh = await ScriptedLLM(script).invoke(request)

    assert first == retried == fresh
    assert first.output_text == "two"


async def test_call_ids_are_deterministic_per_call_and_position() -> None:
    script = Script(turns=(turn("", "a", "b"), turn("", "c")))
    chat = Conversation(ScriptedLLM(script), "hi")

    first = await chat.step()
    second = await chat.step()

    assert [call.call_id for call in first.tool_calls] == ["call-0-0", "call-0-1"]
    assert [call.call_id for call in second.tool_calls] == ["call-1-0"]


async def test_tool_call_arguments_are_passed_through() -> None:
    script = Script(
        turns=(ScriptTurn(tool_calls=(ScriptToolCall(name="t", arguments={"x": [1, "y"]}),)),)
    )

    response = await Conversation(ScriptedLLM(script), "hi").step()

    assert response.tool_calls[0].arguments == {"x": [1, "y"]}


async def test_response_reports_model_name_and_usage_estimate() -> None:
    llm = ScriptedLLM(Script(turns=(turn("x" * 40),)), name="tester")
    request = LLMRequest(instructions="i" * 20, input=(UserItem(message_id="m", text="u" * 20),))

    response = await llm.invoke(request)

    assert llm.info.provider == "scripted"
    assert llm.info.model == "tester"
    assert response.model == "tester"
    # What a provider counts: instructions, tools, and each item as rendered ("user: ...").
    assert response.usage.input_tokens == (20 + len("user: " + "u" * 20)) // 4
    assert response.usage.output_tokens == 10
    assert response.usage.cached_tokens == 0


async def test_usage_input_tokens_is_at_least_one() -> None:
    response = await ScriptedLLM(Script(turns=(turn("x"),))).invoke(
        LLMRequest(instructions="", input=())
    )

    assert response.usage.input_tokens == 1


async def test_delay_seconds_delays_the_answer() -> None:
    script = Script(turns=(ScriptTurn(text="slow", delay_seconds=0.02),))
    started = time.monotonic()

    response = await Conversation(ScriptedLLM(script), "hi").step()

    assert response.output_text == "slow"
    assert time.monotonic() - started >= 0.015


def test_parse_script_reads_yaml() -> None:
    script = parse_script(
        """
        final: bye
        turns:
          - text: hi
            tool_calls: [{name: t, arguments: {a: 1}}]
          - when: "(?i)x"
            text: later
            delay_seconds: 0.01
        """,
        source="inline",
    )

    assert script.final == "bye"
    assert script.turns[0].tool_calls[0].arguments == {"a": 1}
    assert script.turns[1].when == "(?i)x"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        pytest.param(
            "turns:\n  - text: a\n  - when: '('\n    text: b\n", "turns.1.when", id="bad-regex"
        ),
        pytest.param("turns:\n  - when: a\n", "turns.0", id="empty-turn"),
        pytest.param("turns:\n  - text: a\n    colour: red\n", "unknown key", id="unknown-key"),
        pytest.param("turns: [text: a\n", "invalid YAML", id="invalid-yaml"),
        pytest.param("- text: a\n", "mapping", id="not-a-mapping"),
        pytest.param("turns:\n  - text: a\n    delay_seconds: 61\n", "delay_seconds", id="delay"),
    ],
)
def test_malformed_script_raises_script_error_naming_path(
    tmp_path: Path, content: str, reason: str
) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(ScriptError) as caught:
        load_script(path)

    assert str(path) in caught.value.message
    assert reason in caught.value.message
    assert "\n" not in caught.value.message


def test_bad_regex_message_says_invalid_regex(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text("turns:\n  - when: '('\n    text: b\n", encoding="utf-8")

    with pytest.raises(ScriptError, match=r"turns\.0\.when: invalid regex"):
        load_script(path)


def test_missing_file_raises_script_error_naming_path(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"

    with pytest.raises(ScriptError) as caught:
        load_script(path)

    assert str(path) in caught.value.message
    assert "not found" in caught.value.message


def test_builtin_demo_script_loads() -> None:
    script = builtin_demo_script()

    assert len(script.turns) == 4
    assert script.turns[0].when is not None


async def test_builtin_demo_plans_completes_steps_then_answers() -> None:
    chat = Conversation(ScriptedLLM(builtin_demo_script()), "hello")

    plan = await chat.step()
    steps = await chat.step()
    answer = await chat.step()

    assert [call.name for call in plan.tool_calls] == ["create_plan"]
    plan_steps = plan.tool_calls[0].arguments["steps"]
    assert isinstance(plan_steps, list)
    assert [step["id"] for step in plan_steps if isinstance(step, dict)] == ["s1", "s2"]
    assert [call.name for call in steps.tool_calls] == ["complete_step", "complete_step"]
    assert [call.arguments["step_id"] for call in steps.tool_calls] == ["s1", "s2"]
    assert answer.tool_calls == ()
    assert answer.finish == "stop"
    assert "demo script" in answer.output_text
    assert "TINY_HARNESS_MODEL__PROVIDER" in answer.output_text


async def test_builtin_demo_asks_first_when_user_says_ask_me() -> None:
    chat = Conversation(ScriptedLLM(builtin_demo_script()), "please ask me something")

    ask = await chat.step()
    chat.say("short", reply_to=ask.tool_calls[0].call_id)
    plan = await chat.step()

    assert [call.name for call in ask.tool_calls] == ["ask_participant"]
    assert ask.tool_calls[0].arguments["options"] == ["short", "detailed"]
    assert [call.name for call in plan.tool_calls] == ["create_plan"]


async def test_builtin_demo_does_not_ask_for_unrelated_words() -> None:
    chat = Conversation(ScriptedLLM(builtin_demo_script()), "take a mask merely")

    first = await chat.step()

    assert [call.name for call in first.tool_calls] == ["create_plan"]


async def test_a_summary_request_gets_a_summary_marking_the_script_position() -> None:
    llm = ScriptedLLM(Script(turns=(turn("one"), turn("two"), turn("three"))))
    folded = (
        UserItem(message_id="m1", text="start"),
        AssistantItem(text="one"),
        UserItem(message_id="m2", text="more"),
        AssistantItem(text="two"),
    )

    response = await llm.invoke(summary_request(folded))

    assert response.tool_calls == ()
    assert "[scripted position 2, calls 2]" in response.output_text


async def test_a_conversation_opening_with_a_summary_resumes_the_script() -> None:
    llm = ScriptedLLM(Script(turns=(turn("one"), turn("two"), turn("three"))))
    folded = (
        UserItem(message_id="m1", text="start"),
        AssistantItem(text="one"),
        UserItem(message_id="m2", text="more"),
        AssistantItem(text="two"),
    )
    summary = (await llm.invoke(summary_request(folded))).output_text
    compacted = apply_summary((*folded, UserItem(message_id="m3", text="go on")), summary, folded)

    response = await llm.invoke(LLMRequest(instructions="i", input=compacted))

    assert response.output_text == "three"


STRUCTURED = """
turns:
  - text: "A turn of the loop."
answers:
  - schema_name: HelpDecision
    when: "(?i)rejected"
    output: {route: create_task, participant_id: bob, name: Count, goal: Count}
  - schema_name: HelpDecision
    output: {route: ask, participant_id: carol}
  - schema_name: Other
    output: {anything: true}
"""


async def test_a_structured_request_is_answered_from_the_first_matching_answer() -> None:
    llm = ScriptedLLM(parse_script(STRUCTURED, source="<test>"))
    schema = OutputSchema(name="HelpDecision", json_schema={"type": "object"})

    def asked(text: str) -> LLMRequest:
        return LLMRequest(
            instructions="Decide.",
            input=(UserItem(message_id="m", text=text),),
            output_schema=schema,
        )

    first = await llm.invoke(asked("Need: a count"))
    again = await llm.invoke(asked("Need: a count\nYour previous decision was rejected: no"))
    unknown = await llm.invoke(
        asked("x").model_copy(
            update={"output_schema": schema.model_copy(update={"name": "Nothing"})}
        )
    )

    assert json.loads(first.output_text) == {"route": "ask", "participant_id": "carol"}
    assert json.loads(again.output_text)["route"] == "create_task"
    assert unknown.output_text == "{}"
    assert first.tool_calls == ()

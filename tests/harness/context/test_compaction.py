"""Compaction: safe folds, the summary item that replaces them, the summariser's request."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tiny_harness.errors import CompactionError
from tiny_harness.harness.context.compaction import (
    SUMMARY_INSTRUCTIONS,
    CompactionRecord,
    apply_summary,
    item_ids,
    plan_compaction,
    split,
    summary_request,
)
from tiny_harness.harness.context.window import (
    SUMMARY_PREAMBLE,
    ContextWindowManager,
    leading_summary,
    summary_item,
)
from tiny_harness.harness.models.llm import (
    AssistantItem,
    InputItem,
    ToolResultItem,
    UserItem,
)
from tiny_harness.harness.tools.definition import ToolCall
from tiny_harness.harness.tools.render import UNTRUSTED_PREAMBLE


def user(message_id: str, reply_to: str | None = None) -> UserItem:
    return UserItem(message_id=message_id, text=f"message {message_id}", reply_to=reply_to)


def calls(*call_ids: str, name: str = "lookup") -> AssistantItem:
    return AssistantItem(
        text="",
        tool_calls=tuple(ToolCall(call_id=c, name=name, arguments={"q": c}) for c in call_ids),
    )


def result(call_id: str) -> ToolResultItem:
    return ToolResultItem(call_id=call_id, name="lookup", text=f"result of {call_id} " * 20)


def rich() -> tuple[InputItem, ...]:
    """Two requests, a question answered by a reply, and parallel calls throughout."""
    return (
        user("m1"),  # 0
        calls("c1", "c2"),  # 1
        result("c1"),  # 2
        result("c2"),  # 3
        calls("c3", "ask", name="ask_participant"),  # 4
        result("c3"),  # 5
        user("m2", reply_to="ask"),  # 6
        calls("c4"),  # 7
        result("c4"),  # 8
        user("m3"),  # 9
        calls("c5", "c6"),  # 10
        result("c5"),  # 11
        result("c6"),  # 12
        calls("c7"),  # 13
        result("c7"),  # 14
        AssistantItem(text="Here is the answer."),  # 15
    )


def assert_whole(kept: tuple[InputItem, ...], newest_user: InputItem) -> None:
    """Every call kept has all its answers kept, every answer kept has its call kept."""
    kept_calls = {c.call_id for i in kept if isinstance(i, AssistantItem) for c in i.tool_calls}
    answers = {i.call_id for i in kept if isinstance(i, ToolResultItem)}
    answers |= {i.reply_to for i in kept if isinstance(i, UserItem) and i.reply_to}
    all_answers = {i.call_id for i in rich() if isinstance(i, ToolResultItem)} | {"ask"}
    assert answers <= kept_calls
    assert kept_calls & all_answers <= answers
    assert newest_user in kept


def test_plan_keeps_the_newest_items_and_summarises_the_older_ones() -> None:
    items = (user("m1"), calls("c1"), result("c1"), user("m2"), calls("c2"), result("c2"))

    to_summarise, kept = plan_compaction(items, keep_recent=3)

    assert to_summarise == items[:3]
    assert kept == items[3:]


def test_plan_moves_the_cut_back_rather_than_part_a_call_from_its_results() -> None:
    items = rich()

    to_summarise, kept = plan_compaction(items, keep_recent=4)  # the cut would part c5 from c6

    assert to_summarise == items[:9]
    assert kept == items[9:]


def test_plan_keeps_the_newest_user_message_ahead_of_a_long_tool_loop() -> None:
    items = (user("m1"), *(x for c in ("c1", "c2", "c3", "c4") for x in (calls(c), result(c))))

    to_summarise, kept = plan_compaction(items, keep_recent=2)

    assert to_summarise == items[1:7]
    assert kept == (items[0], *items[7:])


def test_plan_keeps_a_reply_with_the_question_it_answers_and_that_call_s_results() -> None:
    items = rich()[:9]  # the newest user item is m2, the reply to "ask"

    to_summarise, kept = plan_compaction(items, keep_recent=2)

    assert kept == items[4:]
    assert to_summarise == items[:4]


@pytest.mark.parametrize("keep_recent", range(len(rich()) + 2))
def test_plan_never_orphans_a_result_or_a_reply_and_keeps_the_newest_user_item(
    keep_recent: int,
) -> None:
    to_summarise, kept = plan_compaction(rich(), keep_recent=keep_recent)

    assert_whole(kept, newest_user=rich()[9])
    assert sorted(to_summarise + kept, key=rich().index) == list(rich())


def test_plan_of_a_conversation_no_longer_than_keep_recent_summarises_nothing() -> None:
    items = rich()[:3]

    assert plan_compaction(items, keep_recent=6) == ((), items)


def test_plan_folds_a_previous_summary_into_the_next() -> None:
    items = (summary_item(1, "Earlier work."), *rich())

    to_summarise, _ = plan_compaction(items, keep_recent=4)

    assert to_summarise[0] == items[0]


def test_plan_does_not_summarise_a_previous_summary_alone() -> None:
    items = (summary_item(1, "Earlier work."), user("m1"), calls("c1"), result("c1"))

    assert plan_compaction(items, keep_recent=2) == ((), items)


def test_plan_refuses_a_negative_keep_recent() -> None:
    with pytest.raises(CompactionError, match="keep_recent"):
        plan_compaction(rich(), keep_recent=-1)


@pytest.mark.parametrize(
    ("fold", "complaint"),
    [
        ([0, 1, 2], "part item 3"),  # c2's result left behind
        ([0, 1, 2, 3, 4, 5], "part item 6"),  # the reply left behind
        (list(range(10)), "newest user message"),
        ([2, 1], "not in the conversation"),  # out of order
    ],
)
def test_split_refuses_an_unsafe_fold(fold: list[int], complaint: str) -> None:
    with pytest.raises(CompactionError, match=complaint):
        split(rich(), [rich()[i] for i in fold])


def test_split_refuses_items_that_are_not_in_the_conversation() -> None:
    with pytest.raises(CompactionError, match="not in the conversation"):
        split(rich(), (user("elsewhere"),))


def test_split_refuses_to_leave_an_earlier_summary_behind() -> None:
    items = (summary_item(1, "Earlier work."), *rich())

    with pytest.raises(CompactionError, match="earlier summary"):
        split(items, items[1:5])


def test_split_of_a_safe_fold_returns_it_and_the_rest_in_order() -> None:
    items = rich()

    assert split(items, items[:9]) == (items[:9], items[9:])


def test_apply_summary_opens_the_conversation_with_one_summary_item() -> None:
    items = rich()
    to_summarise, kept = plan_compaction(items, keep_recent=4)

    compacted = apply_summary(items, "  The user asked twice.  ", to_summarise)

    summary = leading_summary(compacted)
    assert summary is not None
    assert summary.message_id == "summary:1"
    assert summary.text == f"{SUMMARY_PREAMBLE}\n\nThe user asked twice."
    assert compacted[1:] == kept


def test_apply_summary_keeps_the_newest_user_message_right_after_the_summary() -> None:
    items = (user("m1"), *(x for c in ("c1", "c2", "c3") for x in (calls(c), result(c))))
    to_summarise, _ = plan_compaction(items, keep_recent=2)

    compacted = apply_summary(items, "Looked up c1 and c2.", to_summarise)

    assert compacted[1:] == (items[0], *items[5:])


def test_apply_summary_numbers_each_summary_one_past_the_one_it_folds_in() -> None:
    first = apply_summary(rich(), "First.", plan_compaction(rich(), keep_recent=4)[0])
    longer = (*first, user("m4"), calls("c8"), result("c8"))

    second = apply_summary(longer, "Second.", plan_compaction(longer, keep_recent=3)[0])

    summary = leading_summary(second)
    assert summary is not None
    assert summary.message_id == "summary:2"
    assert second[1:] == longer[-3:]


def test_apply_summary_refuses_items_that_are_not_in_the_conversation() -> None:
    with pytest.raises(CompactionError, match="not in the conversation"):
        apply_summary(rich(), "Summary.", (user("elsewhere"),))


def test_apply_summary_refuses_a_fold_that_orphans_a_result() -> None:
    with pytest.raises(CompactionError, match="part item"):
        apply_summary(rich(), "Summary.", rich()[:3])


@pytest.mark.parametrize("summary", ["", "   \n"])
def test_apply_summary_refuses_a_blank_summary(summary: str) -> None:
    with pytest.raises(CompactionError, match="blank"):
        apply_summary(rich(), summary, rich()[:4])


def test_apply_summary_refuses_an_empty_removal() -> None:
    with pytest.raises(CompactionError, match="nothing"):
        apply_summary(rich(), "Summary.", ())


def test_compacting_shrinks_the_estimate_and_fills_the_state_summary() -> None:
    manager = ContextWindowManager()
    items = rich()
    to_summarise, _ = plan_compaction(items, keep_recent=4)
    compacted = apply_summary(items, "The user asked about c1 to c4.", to_summarise)

    before = manager.assemble(system_prompt="p", conversation=items)
    after = manager.assemble(system_prompt="p", conversation=compacted)
    record = CompactionRecord(
        task_id="t",
        context_id="c",
        ordinal=1,
        recorded_at=datetime(2026, 1, 1, tzinfo=UTC),
        removed_ids=item_ids(to_summarise),
        summary="The user asked about c1 to c4.",
        tokens_before=before.estimated_tokens,
        tokens_after=after.estimated_tokens,
    )

    assert record.tokens_after < record.tokens_before
    assert after.section("state_summary") is not None
    assert before.section("state_summary") is None


def test_the_record_names_each_folded_item() -> None:
    folded = (summary_item(2, "Earlier."), *rich()[:4], AssistantItem(text="Thinking."))

    assert item_ids(folded) == (
        "summary:2",
        "m1",
        "assistant:c1",
        "tool_result:c1",
        "tool_result:c2",
        "assistant@5",
    )


def test_summary_request_is_the_fixed_instruction_and_one_transcript_without_tools() -> None:
    folded = rich()[:4]

    request = summary_request(folded, "You are helpful.", cache_key="task-1")

    assert request.instructions.startswith(SUMMARY_INSTRUCTIONS)
    assert UNTRUSTED_PREAMBLE in SUMMARY_INSTRUCTIONS
    assert request.instructions.endswith("You are helpful.")
    assert request.tools == ()
    assert request.cache_key == "task-1"
    assert len(request.input) == 1
    transcript = request.input[0]
    assert isinstance(transcript, UserItem)
    assert transcript.reply_to is None
    assert "message m1" in transcript.text
    assert "lookup" in transcript.text
    assert '<tool_result name="lookup" call_id="c2">' in transcript.text


def test_summary_request_without_agent_instructions_is_the_fixed_instruction_alone() -> None:
    request = summary_request(rich()[:1])

    assert request.instructions == SUMMARY_INSTRUCTIONS
    assert request.cache_key is None

"""Behaviour of the System One interface and of `FakeSystemOne`."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from pydantic import TypeAdapter, ValidationError

from tiny_harness.errors import SystemOneError, TinyHarnessError
from tiny_harness.harness.entities import EntityKind
from tiny_harness.harness.models.system_one import (
    Answer,
    ChoiceAnswer,
    ChoiceQuestion,
    FakeSystemOne,
    NoulAnswer,
    NoulQuestion,
    Question,
    ScoreAnswer,
    ScoreQuestion,
)

SECOND = timedelta(seconds=1)
STATES = tuple(f"state {n}: the user wrote {n} messages" for n in range(40))

IS_ANGRY = NoulQuestion(instructions="Is the user angry?")
NEXT_STEP = ChoiceQuestion(
    instructions="What should the agent do next?",
    options={"reply": "answer the user", "escalate": "hand over to a person", "wait": "do nothing"},
)
URGENCY = ScoreQuestion(instructions="How urgent is this?", levels=("low", "medium", "high", "now"))
QUESTIONS: dict[str, Question] = {"angry": IS_ANGRY, "next": NEXT_STEP, "urgency": URGENCY}

PINNED_NOUL = 0.8652979351591674
PINNED_CHOICE = ChoiceAnswer(
    choice="reply",
    confidence=675 / 1094,
    probabilities={"reply": 675 / 1094, "escalate": 391 / 1094, "wait": 28 / 1094},
)
PINNED_SCORE = ScoreAnswer(
    score=0,
    confidence=600 / 1551,
    probabilities={0: 600 / 1551, 1: 282 / 1551, 2: 211 / 1551, 3: 458 / 1551},
)
"""What the fake answers QUESTIONS about "the user is angry" (option and level weights
out of their total)."""

QUESTION = TypeAdapter[Question](Question)
ANSWER = TypeAdapter[Answer](Answer)


async def decide_one(state: str, question: Question) -> Answer:
    answers = await FakeSystemOne().decide(state, {"q": question}, timeout=SECOND)
    return answers["q"]


# --- the fake's answers ----------------------------------------------------------------


async def test_each_question_gets_an_answer_of_its_kind_under_its_id() -> None:
    answers = await FakeSystemOne().decide(STATES[0], QUESTIONS, timeout=SECOND)

    assert set(answers) == {"angry", "next", "urgency"}
    assert isinstance(answers["angry"], NoulAnswer)
    assert isinstance(answers["next"], ChoiceAnswer)
    assert isinstance(answers["urgency"], ScoreAnswer)


async def test_no_questions_get_no_answers() -> None:
    assert await FakeSystemOne().decide(STATES[0], {}, timeout=SECOND) == {}


async def test_same_state_and_questions_always_get_the_same_answers() -> None:
    first = await FakeSystemOne().decide(STATES[0], QUESTIONS, timeout=SECOND)
    again = await FakeSystemOne(name="another").decide(STATES[0], QUESTIONS, timeout=SECOND)

    assert first == again


async def test_answer_pins_the_derivation_across_processes() -> None:
    # Python's hash() of a str changes with every process; a SHA-256 does not. These values
    # were computed once: a change here means every recorded fake answer changes too.
    answers = await FakeSystemOne().decide("the user is angry", QUESTIONS, timeout=SECOND)

    assert answers["angry"] == NoulAnswer(probability=PINNED_NOUL)
    assert answers["next"] == PINNED_CHOICE
    assert answers["urgency"] == PINNED_SCORE


async def test_answer_depends_on_neither_the_question_id_nor_the_other_questions() -> None:
    alone = await decide_one(STATES[1], NEXT_STEP)
    among_others = await FakeSystemOne().decide(
        STATES[1], {"x": IS_ANGRY, "renamed": NEXT_STEP, "y": URGENCY}, timeout=SECOND
    )

    assert among_others["renamed"] == alone


async def test_choice_answer_does_not_depend_on_the_order_of_options() -> None:
    reordered = ChoiceQuestion(
        instructions=NEXT_STEP.instructions,
        options=dict(reversed(list(NEXT_STEP.options.items()))),
    )

    for state in STATES[:10]:
        assert await decide_one(state, reordered) == await decide_one(state, NEXT_STEP)


@pytest.mark.parametrize("question", QUESTIONS.values(), ids=QUESTIONS.keys())
async def test_answers_vary_with_the_state(question: Question) -> None:
    answers = [await decide_one(state, question) for state in STATES]

    assert len({answer.model_dump_json() for answer in answers}) > 1


async def test_answers_vary_with_the_question() -> None:
    probabilities = {
        (await decide_one(STATES[0], NoulQuestion(instructions=f"Is {n} > 3?"))).model_dump_json()
        for n in range(10)
    }

    assert len(probabilities) > 1


async def test_noul_probability_is_a_probability() -> None:
    for state in STATES:
        answer = await decide_one(state, IS_ANGRY)
        assert isinstance(answer, NoulAnswer)
        assert 0 <= answer.probability <= 1


async def test_choice_is_always_the_most_probable_option() -> None:
    for state in STATES:
        answer = await decide_one(state, NEXT_STEP)
        assert isinstance(answer, ChoiceAnswer)
        assert answer.choice in NEXT_STEP.options
        assert set(answer.probabilities) == set(NEXT_STEP.options)
        assert all(0 < p <= 1 for p in answer.probabilities.values())
        assert math.isclose(sum(answer.probabilities.values()), 1)
        assert answer.confidence == answer.probabilities[answer.choice]
        assert answer.confidence == max(answer.probabilities.values())


async def test_every_option_is_chosen_for_some_state() -> None:
    chosen = set()
    for state in STATES:
        answer = await decide_one(state, NEXT_STEP)
        assert isinstance(answer, ChoiceAnswer)
        chosen.add(answer.choice)

    assert chosen == set(NEXT_STEP.options)


async def test_score_is_always_the_index_of_the_most_probable_level() -> None:
    indexes = set(range(len(URGENCY.levels)))
    for state in STATES:
        answer = await decide_one(state, URGENCY)
        assert isinstance(answer, ScoreAnswer)
        assert answer.score in indexes
        assert set(answer.probabilities) == indexes
        assert all(0 < p <= 1 for p in answer.probabilities.values())
        assert math.isclose(sum(answer.probabilities.values()), 1)
        assert answer.confidence == answer.probabilities[int(answer.score)]
        assert answer.confidence == max(answer.probabilities.values())


async def test_a_single_option_or_level_is_certain() -> None:
    choice = await decide_one(STATES[0], ChoiceQuestion(instructions="?", options={"only": "it"}))
    score = await decide_one(STATES[0], ScoreQuestion(instructions="?", levels=("flat",)))

    assert choice == ChoiceAnswer(choice="only", confidence=1, probabilities={"only": 1})
    assert score == ScoreAnswer(score=0, confidence=1, probabilities={0: 1})


@pytest.mark.parametrize("budget", [timedelta(0), timedelta(seconds=-1)], ids=["zero", "negative"])
async def test_a_timeout_that_is_not_positive_is_refused(budget: timedelta) -> None:
    with pytest.raises(SystemOneError, match="timeout must be positive"):
        await FakeSystemOne().decide(STATES[0], QUESTIONS, timeout=budget)


def test_fake_is_a_system_one_entity() -> None:
    fake = FakeSystemOne(name="tests")

    assert fake.kind is EntityKind.SYSTEM_ONE
    assert fake.ref.kind is EntityKind.SYSTEM_ONE
    assert fake.ref.id == "tests"


# --- the question and answer shapes ----------------------------------------------------


def test_choice_question_without_options_is_refused() -> None:
    with pytest.raises(SystemOneError, match="at least one option"):
        ChoiceQuestion(instructions="Which?", options={})


def test_score_question_without_levels_is_refused() -> None:
    with pytest.raises(SystemOneError, match="at least one level"):
        ScoreQuestion(instructions="How much?", levels=())


@pytest.mark.parametrize(
    "document",
    [
        '{"kind": "choice", "instructions": "Which?", "options": {}}',
        '{"kind": "score", "instructions": "How much?", "levels": []}',
    ],
    ids=["choice", "score"],
)
def test_empty_question_read_from_json_is_refused(document: str) -> None:
    with pytest.raises(SystemOneError):
        QUESTION.validate_json(document)


def test_system_one_error_is_a_harness_error_with_a_code() -> None:
    assert issubclass(SystemOneError, TinyHarnessError)
    assert SystemOneError.code == "system_one_invalid"


@pytest.mark.parametrize("question", QUESTIONS.values(), ids=QUESTIONS.keys())
def test_questions_round_trip_through_json_by_kind(question: Question) -> None:
    assert QUESTION.validate_json(QUESTION.dump_json(question)) == question


async def test_answers_round_trip_through_json_by_kind() -> None:
    answers = await FakeSystemOne().decide(STATES[2], QUESTIONS, timeout=SECOND)

    for answer in answers.values():
        assert ANSWER.validate_json(ANSWER.dump_json(answer)) == answer


def test_unknown_question_kind_is_refused() -> None:
    with pytest.raises(ValidationError):
        QUESTION.validate_python({"kind": "essay", "instructions": "Discuss."})


@pytest.mark.parametrize(
    "document",
    [
        {"kind": "noul", "probability": 1.5},
        {"kind": "noul", "probability": -0.1},
        {"kind": "choice", "choice": "a", "confidence": 2, "probabilities": {"a": 1}},
        {"kind": "choice", "choice": "a", "confidence": 1, "probabilities": {"a": 1.1}},
        {"kind": "score", "score": 0, "confidence": 1, "probabilities": {0: -1}},
    ],
    ids=["noul-high", "noul-negative", "confidence", "choice-probability", "score-probability"],
)
def test_answer_with_a_probability_outside_0_to_1_is_refused(document: object) -> None:
    with pytest.raises(ValidationError):
        ANSWER.validate_python(document)

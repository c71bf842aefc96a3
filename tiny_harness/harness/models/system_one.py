"""System One: quick, calibrated judgements about a state, asked beside the LLM (R18).

A caller hands a `SystemOne` one state (plain text) and several questions under ids of its
choosing, and gets one answer per id, of the question's own kind:

    noul    instructions                 -> probability
    choice  instructions, options        -> choice (an option's name), confidence, probabilities
    score   instructions, levels         -> score (a level's index), confidence, probabilities

The shapes mirror typesafe-sdk's Noul, Choice and Score questions and answers field for
field, so an adapter to a real System One maps them without an interface change. This
module holds the interface and `FakeSystemOne` only; it does no I/O, and the loop does not
call it yet.
"""

from __future__ import annotations

import hashlib
import json
from abc import abstractmethod
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Annotated, Final, Literal, Self

from pydantic import BaseModel, Field, model_validator

from tiny_harness.errors import SystemOneError
from tiny_harness.harness.entities import Entity, EntityKind, EntityRef

type Probability = Annotated[float, Field(ge=0, le=1)]


class NoulQuestion(BaseModel, frozen=True):
    """A question answered with one probability: how likely what `instructions` asks
    about holds of the state."""

    kind: Literal["noul"] = "noul"
    instructions: str


class ChoiceQuestion(BaseModel, frozen=True):
    """A question answered by picking one of `options` (name -> what the option means)."""

    kind: Literal["choice"] = "choice"
    instructions: str
    options: Mapping[str, str]

    @model_validator(mode="after")
    def _has_options(self) -> Self:
        if not self.options:
            raise SystemOneError("a choice question needs at least one option")
        return self


class ScoreQuestion(BaseModel, frozen=True):
    """A question answered by placing the state on `levels`, lowest first."""

    kind: Literal["score"] = "score"
    instructions: str
    levels: tuple[str, ...]

    @model_validator(mode="after")
    def _has_levels(self) -> Self:
        if not self.levels:
            raise SystemOneError("a score question needs at least one level")
        return self


type Question = Annotated[
    NoulQuestion | ChoiceQuestion | ScoreQuestion, Field(discriminator="kind")
]


class NoulAnswer(BaseModel, frozen=True):
    """The answer to a `NoulQuestion`."""

    kind: Literal["noul"] = "noul"
    probability: Probability


class ChoiceAnswer(BaseModel, frozen=True):
    """The answer to a `ChoiceQuestion`: the option picked, how sure, and the probability
    of every option by name."""

    kind: Literal["choice"] = "choice"
    choice: str
    confidence: Probability
    probabilities: Mapping[str, Probability]


class ScoreAnswer(BaseModel, frozen=True):
    """The answer to a `ScoreQuestion`: the level picked (an index into `levels`), how
    sure, and the probability of every level by index."""

    kind: Literal["score"] = "score"
    score: float
    confidence: Probability
    probabilities: Mapping[int, Probability]


type Answer = Annotated[NoulAnswer | ChoiceAnswer | ScoreAnswer, Field(discriminator="kind")]


class SystemOne(Entity):
    """Answers questions about a state. Implementations must be safe to call again with
    the same arguments: an activity retry repeats the call."""

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.SYSTEM_ONE`."""
        return EntityKind.SYSTEM_ONE

    # `timeout` is the budget the System One answers within (typesafe-sdk's shape), which an
    # adapter passes on; it is not a local wait, so ASYNC109's `asyncio.timeout` does not fit.
    @abstractmethod
    async def decide(
        self,
        state: str,
        questions: Mapping[str, Question],
        *,
        timeout: timedelta,  # noqa: ASYNC109
    ) -> Mapping[str, Answer]:
        """Answer every question about `state` within `timeout`: one answer under each
        question's id, of the question's kind.

        Raises `SystemOneError` when `timeout` is not positive.
        """


_WEIGHTS: Final = 1000
"""The fake weighs each option or level 1 to this many, so none is ever impossible."""


class FakeSystemOne(SystemOne):
    """A deterministic System One for tests, and the only one shipped.

    Each answer is derived from a SHA-256 of the state and the question alone: the same
    pair always gets the same answer, whatever its id, the other questions of the call, the
    process or the order of a choice's options. A choice or score picks its most probable
    option or level (ties to the greatest name or index).
    """

    def __init__(self, *, name: str = "fake") -> None:
        self.ref = EntityRef(kind=EntityKind.SYSTEM_ONE, id=name)

    async def decide(
        self,
        state: str,
        questions: Mapping[str, Question],
        *,
        timeout: timedelta,  # noqa: ASYNC109 - the interface's budget, see SystemOne.decide
    ) -> Mapping[str, Answer]:
        """The derived answer to each question; never waits, so `timeout` always holds."""
        if timeout <= timedelta(0):
            raise SystemOneError(f"a System One timeout must be positive, got {timeout}")
        return {question_id: _answer(state, q) for question_id, q in questions.items()}


def _answer(state: str, question: Question) -> Answer:
    match question:
        case NoulQuestion():
            return NoulAnswer(probability=_unit(_digest(state, question)))
        case ChoiceQuestion(options=options):
            names = _spread(state, question, options)
            choice = max(names, key=lambda name: (names[name], name))
            return ChoiceAnswer(choice=choice, confidence=names[choice], probabilities=names)
        case ScoreQuestion(levels=levels):
            indexes = _spread(state, question, range(len(levels)))
            score = max(indexes, key=lambda index: (indexes[index], index))
            return ScoreAnswer(score=score, confidence=indexes[score], probabilities=indexes)


def _spread[K: (str, int)](state: str, question: Question, keys: Iterable[K]) -> dict[K, float]:
    """A probability for each key, from a weight of 1 to `_WEIGHTS` derived per key."""
    weights = {key: 1 + _integer(_digest(state, question, key)) % _WEIGHTS for key in keys}
    total = sum(weights.values())
    return {key: weight / total for key, weight in weights.items()}


def _digest(state: str, question: Question, *extra: str | int) -> bytes:
    # JSON with sorted keys, so a question's encoding does not depend on its options' order.
    document = json.dumps(
        [state, question.model_dump(mode="json"), *extra],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(document.encode()).digest()


def _integer(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big")


def _unit(digest: bytes) -> float:
    """A number in [0, 1) from the digest."""
    return _integer(digest) / 2**64

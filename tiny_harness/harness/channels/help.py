"""Getting help from a participant: what the model needs, and how the harness decides.

When the model asks for help without naming whom (`ask_participant` with no
`participant_id`), its `HelpNeed` goes to help.decided.in, whose body returns a
`HelpDecision`: ASK a participant the question, or CREATE_TASK, handing them the work as a
task of their own. The default body asks the task's model for the decision as structured
output (`decision_request`); an executor may decide instead. Whoever decided,
`check_decision` then holds the decision to the task's rules, and a refused decision is
asked for once more with the refusal in context.

Pure data and rules: no I/O.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tiny_harness.errors import HelpDecisionError
from tiny_harness.harness.models.llm import LLMRequest, OutputSchema, UserItem
from tiny_harness.harness.tasks.extension import TaskExtensionData
from tiny_harness.harness.tasks.participants import not_on_task

HELP_INSTRUCTIONS: Final = (
    "You decide how an agent gets help from the people on its task. Answer with one JSON "
    "object following the schema. Choose route 'ask' to put a question to one participant "
    "(the one who can answer it), or 'create_task' to hand a participant a piece of work "
    "as a task of their own (name, goal, acceptance criteria). Work an acceptance "
    "criterion assigns to a participant goes to that participant. Give your reason."
)


class HelpNeed(BaseModel, frozen=True):
    """What the model needs: a question, the answers it expects, and whether the need is
    a piece of work rather than information (None: it did not say)."""

    question: str = Field(min_length=1)
    options: tuple[str, ...] = ()
    blocking_work: bool | None = None


class HelpRoute(StrEnum):
    """How help is got."""

    ASK = "ask"
    CREATE_TASK = "create_task"


class HelpDecision(BaseModel):
    """How to get help: whom, and by a question or a task of their own."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    route: HelpRoute
    participant_id: str = Field(min_length=1, max_length=200)
    question: str | None = None
    options: tuple[str, ...] = ()
    name: str | None = None
    goal: str | None = None
    acceptance_criteria: tuple[str, ...] = ()
    reason: str = ""


DECISION_SCHEMA: Final = OutputSchema(
    name="HelpDecision", json_schema=HelpDecision.model_json_schema()
)


def parse_decision(text: str) -> HelpDecision:
    """The model's answer as a decision; `HelpDecisionError` naming the first problem."""
    try:
        return HelpDecision.model_validate_json(text)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "answer"
        raise HelpDecisionError(f"the decision is malformed: {where}: {first['msg']}") from None


def check_decision(decision: HelpDecision, need: HelpNeed, ext: TaskExtensionData) -> HelpDecision:
    """The decision, completed from the need (an ASK's question and options), if it keeps
    the task's rules; raises `HelpDecisionError` saying which it breaks: the participant must
    be on the task, a task needs a name and a goal, and a question may not ask someone for
    work an acceptance criterion assigns to another participant."""
    refusal = not_on_task(decision.participant_id, {p.id for p in ext.participants})
    if refusal is not None:
        raise HelpDecisionError(refusal)
    if decision.route is HelpRoute.CREATE_TASK:
        if not decision.name or not decision.goal:
            raise HelpDecisionError("a task for a participant needs a name and a goal")
        return decision
    for criterion in ext.acceptance_criteria:
        owner = criterion.assignee
        if owner is not None and owner != decision.participant_id and _names(need, criterion.text):
            raise HelpDecisionError(
                f"the need is work acceptance criterion {criterion.text!r} assigns to {owner}; "
                f"rejected asking {decision.participant_id}: create a task for {owner} instead"
            )
    return decision.model_copy(
        update={
            "question": decision.question or need.question,
            "options": decision.options or need.options,
        }
    )


def decision_request(
    task_id: str, need: HelpNeed, ext: TaskExtensionData, refused: str | None
) -> LLMRequest:
    """The structured-output request the default body sends: the need and the task, and
    why the previous decision was refused, if it was."""
    lines = [
        f"Task: {ext.name or task_id}",
        f"Goal: {ext.goal}" if ext.goal else "",
        "Participants:",
        *(f"- {p.id} ({p.role.value}, {p.kind})" for p in ext.participants),
        "Acceptance criteria:" if ext.acceptance_criteria else "",
        *(
            f"- {c.text}" + (f" (assigned to {c.assignee})" if c.assignee else "")
            for c in ext.acceptance_criteria
        ),
        f"Need: {need.question}",
        f"Options: {', '.join(need.options)}" if need.options else "",
        f"Blocking work: {need.blocking_work}" if need.blocking_work is not None else "",
        f"Your previous decision was rejected: {refused}" if refused else "",
    ]
    text = "\n".join(line for line in lines if line)
    return LLMRequest(
        instructions=HELP_INSTRUCTIONS,
        input=(UserItem(message_id=f"{task_id}:help", text=text),),
        output_schema=DECISION_SCHEMA,
    )


def _names(need: HelpNeed, work: str) -> bool:
    """Whether the need's question names the work (its words, in order, case and
    punctuation aside)."""
    return _words(work) in _words(need.question)


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.casefold())) + " "

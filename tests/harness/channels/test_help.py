"""The rules a help decision is held to, and the request the default body sends."""

from __future__ import annotations

import pytest

from tiny_harness.errors import HelpDecisionError
from tiny_harness.harness.channels.help import (
    DECISION_SCHEMA,
    HelpDecision,
    HelpNeed,
    HelpRoute,
    check_decision,
    decision_request,
    parse_decision,
)
from tiny_harness.harness.tasks.extension import (
    AcceptanceCriterion,
    Participant,
    ParticipantRole,
    TaskExtensionData,
)


def person(pid: str, role: ParticipantRole = ParticipantRole.WATCHER) -> Participant:
    return Participant(id=pid, kind="human", role=role, display_name=pid.title())


TASK = TaskExtensionData(
    name="Ship the order",
    goal="Ship order 42",
    participants=(person("alice", ParticipantRole.ADMIN), person("bob"), person("carol")),
    acceptance_criteria=(
        AcceptanceCriterion(text="Count the shirts in stock", assignee="bob"),
        AcceptanceCriterion(text="The parcel is labelled"),
    ),
)
COUNT = HelpNeed(question="Could you count the shirts in stock, please?")


def test_an_ask_takes_the_needs_question_and_options_when_it_gives_none() -> None:
    need = HelpNeed(question="Which carrier?", options=("DHL", "UPS"))
    decision = HelpDecision(route=HelpRoute.ASK, participant_id="carol")

    checked = check_decision(decision, need, TASK)

    assert (checked.question, checked.options) == ("Which carrier?", ("DHL", "UPS"))


def test_someone_not_on_the_task_is_refused() -> None:
    decision = HelpDecision(route=HelpRoute.ASK, participant_id="mallory")

    with pytest.raises(HelpDecisionError, match="mallory is not a participant of this task"):
        check_decision(decision, COUNT, TASK)


def test_asking_someone_for_work_a_criterion_assigns_to_another_is_refused() -> None:
    decision = HelpDecision(route=HelpRoute.ASK, participant_id="carol")

    with pytest.raises(HelpDecisionError, match="assigns to bob; rejected asking carol"):
        check_decision(decision, COUNT, TASK)


def test_asking_the_criterions_assignee_for_that_work_is_allowed() -> None:
    decision = HelpDecision(route=HelpRoute.ASK, participant_id="bob")

    assert check_decision(decision, COUNT, TASK).question == COUNT.question


def test_a_question_that_names_no_assigned_work_may_go_to_anyone() -> None:
    decision = HelpDecision(route=HelpRoute.ASK, participant_id="carol")
    need = HelpNeed(question="Is the parcel labelled?")

    assert check_decision(decision, need, TASK).participant_id == "carol"


def test_a_task_without_a_goal_is_refused() -> None:
    decision = HelpDecision(route=HelpRoute.CREATE_TASK, participant_id="bob", name="Count")

    with pytest.raises(HelpDecisionError, match="needs a name and a goal"):
        check_decision(decision, COUNT, TASK)


def test_a_malformed_answer_is_a_decision_error_naming_the_field() -> None:
    with pytest.raises(HelpDecisionError, match="route: Input should be 'ask' or 'create_task'"):
        parse_decision('{"route": "phone", "participant_id": "bob"}')
    with pytest.raises(HelpDecisionError, match="the decision is malformed"):
        parse_decision("not json")


def test_the_request_shows_the_task_the_need_and_why_the_last_try_was_refused() -> None:
    request = decision_request("t1", COUNT, TASK, "carol was wrong")

    assert request.output_schema == DECISION_SCHEMA
    assert request.tools == ()
    text = request.input[0].text
    assert "- Count the shirts in stock (assigned to bob)" in text
    assert "- bob (watcher, human)" in text
    assert f"Need: {COUNT.question}" in text
    assert text.endswith("Your previous decision was rejected: carol was wrong")

"""The one table of refusals: a workflow's error type becomes the harness's error, which
becomes the A2A error a client is answered with (the wire itself is checked in
`tests/service/a2a/test_error_table.py`)."""

from __future__ import annotations

import pytest
from a2a.utils.errors import InvalidParamsError, TaskNotFoundError, UnsupportedOperationError
from temporalio.exceptions import ApplicationError

from tiny_harness.errors import (
    FinalTaskError,
    InvalidMessageError,
    PushConfigLimitError,
    PushUrlRefusedError,
    RoleChangeError,
    TinyHarnessError,
    UnknownTaskError,
)
from tiny_harness.service.refusals import (
    EMPTY_MESSAGE,
    FINAL_TASK,
    INVALID_ENVELOPE,
    REFUSALS,
    a2a_error,
    harness_error,
)


def test_a_final_task_refused_in_the_workflow_is_unsupported_for_the_client() -> None:
    harness = harness_error(ApplicationError("task is final (COMPLETED)", type=FINAL_TASK), "t-1")

    assert isinstance(harness, FinalTaskError)
    assert harness.message == "task t-1 is final and takes no more messages"
    answer = a2a_error(harness)
    assert isinstance(answer, UnsupportedOperationError)
    assert answer.message == harness.message


@pytest.mark.parametrize("kind", [EMPTY_MESSAGE, INVALID_ENVELOPE])
def test_a_message_the_workflow_refuses_is_invalid_params_saying_why(kind: str) -> None:
    harness = harness_error(ApplicationError("the envelope is not a task", type=kind), "t-1")

    assert isinstance(harness, InvalidMessageError)
    answer = a2a_error(harness)
    assert isinstance(answer, InvalidParamsError)
    assert answer.message == "the envelope is not a task"


def test_a_failure_that_is_no_refusal_is_left_as_it_is() -> None:
    assert harness_error(ApplicationError("boom", type="SomethingElse"), "t-1") is None


@pytest.mark.parametrize(
    ("error", "answer"),
    [
        (UnknownTaskError("no task t-9"), TaskNotFoundError),
        (RoleChangeError("only an admin may change roles"), InvalidParamsError),
        (PushConfigLimitError("the task has 10 push configs already"), InvalidParamsError),
    ],
)
def test_each_harness_refusal_has_its_a2a_error(
    error: TinyHarnessError, answer: type[Exception]
) -> None:
    mapped = a2a_error(error)
    assert type(mapped) is answer
    assert mapped.message == error.message


def test_a_refused_push_url_says_its_reason_and_not_the_host() -> None:
    refused = PushUrlRefusedError("10.1.2.3 is a private address", reason="non-public address")

    answer = a2a_error(refused)

    assert isinstance(answer, InvalidParamsError)
    assert answer.message == "push URL refused: non-public address"


def test_the_most_specific_row_comes_first() -> None:
    for later, row in enumerate(REFUSALS):
        for earlier in REFUSALS[:later]:
            assert not issubclass(row.harness, earlier.harness), (
                f"{row.harness.__name__} is shadowed by {earlier.harness.__name__}"
            )

"""One table for every refusal: the workflow's error type, the harness's error, the A2A error.

    refused in the workflow         raised by the harness      answered to the client
    (ApplicationError.type)         (TinyHarnessError)         (a2a.utils.errors)
    FinalTask                   ─►  FinalTaskError         ─►  UnsupportedOperationError
    EmptyMessage                ─►  InvalidMessageError    ─►  InvalidParamsError
    InvalidEnvelope             ─►  InvalidMessageError    ─►  InvalidParamsError
                                    UnknownTaskError       ─►  TaskNotFoundError
                                    RoleChangeError        ─►  InvalidParamsError
                                    PushUrlRefusedError    ─►  InvalidParamsError (its reason)
                                    PushError              ─►  InvalidParamsError

The workflow refuses an update with an `ApplicationError` whose type is a name below (it
imports nothing else from here); the gateway turns it into the harness's error
(`harness_error`), and whatever answers a client turns a harness error into the A2A error
(`a2a_error`), the most specific row first. So a refusal is written once, the way the A2A
SDK keeps its one error mapping. Access denials are not here on purpose: a task the caller
may not see is answered as one that does not exist (`service/a2a/access.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from a2a.utils.errors import (
    A2AError,
    InvalidParamsError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from temporalio.exceptions import ApplicationError

from tiny_harness.errors import (
    FinalTaskError,
    InvalidMessageError,
    PushError,
    PushUrlRefusedError,
    RoleChangeError,
    TinyHarnessError,
    UnknownTaskError,
)

FINAL_TASK: Final = "FinalTask"
"""The workflow's refusal of a message to a task that is final (or cancelling, closing)."""
EMPTY_MESSAGE: Final = "EmptyMessage"
"""The workflow's refusal of a message without parts."""
INVALID_ENVELOPE: Final = "InvalidEnvelope"
"""The workflow's refusal of a message whose envelopes or A2UI parts are invalid."""


@dataclass(frozen=True)
class Refusal:
    """One row: a harness error, the workflow's type for it (if the workflow refuses it),
    and the A2A error it is answered with, saying `say(error)`."""

    harness: type[TinyHarnessError]
    a2a: type[A2AError]
    workflow: tuple[str, ...] = ()
    say: Callable[[TinyHarnessError], str] = lambda error: error.message


def _refused_url(error: TinyHarnessError) -> str:
    # The reason is a fixed phrase; the message may name the host, which stays here.
    reason = error.reason if isinstance(error, PushUrlRefusedError) else error.message
    return f"push URL refused: {reason}"


REFUSALS: Final[tuple[Refusal, ...]] = (
    Refusal(FinalTaskError, UnsupportedOperationError, (FINAL_TASK,)),
    Refusal(InvalidMessageError, InvalidParamsError, (EMPTY_MESSAGE, INVALID_ENVELOPE)),
    Refusal(UnknownTaskError, TaskNotFoundError),
    Refusal(RoleChangeError, InvalidParamsError),
    Refusal(PushUrlRefusedError, InvalidParamsError, say=_refused_url),
    Refusal(PushError, InvalidParamsError),
)
"""Most specific first: `a2a_error` takes the first row the error is an instance of."""


def harness_error(refused: ApplicationError, task_id: str) -> TinyHarnessError | None:
    """The harness's error for a workflow's refusal of an update on `task_id`, or None
    when the failure is no refusal of this table."""
    for row in REFUSALS:
        if refused.type in row.workflow:
            if row.harness is FinalTaskError:
                return FinalTaskError(f"task {task_id} is final and takes no more messages")
            return row.harness(refused.message)
    return None


def a2a_error(error: TinyHarnessError) -> A2AError:
    """The A2A error a client is answered with for `error`; InvalidParams for an error
    this table does not name (every refusal of a request's content is one)."""
    for row in REFUSALS:
        if isinstance(error, row.harness):
            return row.a2a(message=row.say(error))
    return InvalidParamsError(message=error.message)

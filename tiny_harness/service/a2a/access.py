"""`AccessPolicy`: who may see and act on a task, applied at every task-access boundary.

With `[auth] mode = "api_key"` the caller's key names the participant
(`authentication.py`), and what a call asserts is ignored. Otherwise the harness
authenticates nobody (decision-003): the perimeter in front of it does, and tells the
harness who is calling in `X-Participant-Id` (or the client asserts it itself in
`Message.metadata["participantId"]`; the header wins). A call with neither is the
anonymous participant. The rule:

    a task's participants are kept in its task extension data (the participant who
    started it is its admin); a task with none belongs to the anonymous participant
    GetTask, CancelTask, SubscribeToTask, push-config operations, a message to an
    existing task, ListTasks: the caller must be a participant of the task, else
    the answer is the task-not-found error a missing task gets, word for word
    changing the participants (a task envelope that sets them) takes an admin
    a context belongs to whoever started its first task; naming another's is refused

Every denial is logged at WARNING with the participant, the operation and the task.
"""

from __future__ import annotations

import logging
from typing import Final

from a2a.server.context import ServerCallContext
from a2a.types import Message, Task
from a2a.utils.errors import TaskNotFoundError

from tiny_harness.errors import InvalidMessageError
from tiny_harness.harness.tasks.extension import ParticipantRole, sender_of
from tiny_harness.harness.tasks.participants import ANONYMOUS, members_of, participants_of
from tiny_harness.service.admission import participant_id
from tiny_harness.service.refusals import a2a_error

logger = logging.getLogger(__name__)

PARTICIPANT_HEADER: Final = "x-participant-id"
"""The header the perimeter sets to the caller's id (lower case, as Starlette keeps it)."""


def not_found(task_id: str) -> TaskNotFoundError:
    """The one answer for a task that does not exist and for one the caller may not see."""
    return TaskNotFoundError(message=f"no task {task_id}")


def asserted_participant(context: ServerCallContext, message: Message | None = None) -> str:
    """Who the call comes from. An authenticated call: the participant its credential
    names, whatever it asserts (a different assertion is logged). Otherwise who it says it
    comes from: the header, else the message's metadata, else anonymous. Raises
    InvalidParams for an asserted id that is not one line of printable text."""
    headers = context.state.get("headers")
    asserted = headers.get(PARTICIPANT_HEADER, "") if isinstance(headers, dict) else ""
    if not asserted and message is not None:
        asserted = sender_of(message)
    if context.user.is_authenticated:
        authenticated = context.user.user_name
        if asserted and str(asserted).strip() != authenticated:
            logger.warning(
                "participant %r asserted %r: the credential decides, the assertion is ignored",
                authenticated,
                str(asserted)[:200],
            )
        return authenticated
    try:
        return participant_id(str(asserted))
    except InvalidMessageError as error:
        raise a2a_error(error) from error


def may_access(participant: str, task: Task) -> bool:
    """Whether `participant` takes part in `task`."""
    return participant in members_of(task)


def owner_of(task: Task) -> str:
    """The participant a task (and its context) belongs to: its first admin."""
    admins = [p.id for p in participants_of(task) if p.role == ParticipantRole.ADMIN]
    return admins[0] if admins else ANONYMOUS


def deny(operation: str, participant: str, task_id: str) -> TaskNotFoundError:
    """Record a denial, and the error to answer it with (the same as for a missing task)."""
    logger.warning(
        "access denied: participant %r may not %s task %s", participant, operation, task_id
    )
    return not_found(task_id)

"""Refusals about a task: unknown, final, an invalid message, extension data, channels, roles."""

from __future__ import annotations

from tiny_harness.errors.base import TinyHarnessError


class TaskRefusedError(TinyHarnessError):
    """Raised when a request about a task is refused; nothing about the task changes."""

    code = "task_refused"


class UnknownTaskError(TaskRefusedError):
    """Raised when a request names a task id that does not exist."""

    code = "task_not_found"


class FinalTaskError(TaskRefusedError):
    """Raised when a message is sent to a task that is already in a final state."""

    code = "task_final"


class InvalidMessageError(TaskRefusedError):
    """Raised when a message cannot be accepted as it is: no parts, or a context id that
    contradicts the task it names."""

    code = "message_invalid"


class TaskExtensionError(TinyHarnessError):
    """Raised when a task's extension data (`Task.metadata` under the task extension's key)
    or an event envelope in a message (a data part of the event media type) is present but
    invalid. The message names where (the task, or the part's index) and the first problem,
    never the values sent."""

    code = "task_extension.invalid"


class ChannelMessageError(TinyHarnessError):
    """Raised when a channel message in a message (a data part of the channel extension's
    media type) is not valid channel message data, or names a channel or sender the message
    may not. The message names the part's index and the first problem, never the values."""

    code = "channel.message_invalid"


class ChannelMembershipError(ChannelMessageError):
    """Raised when a participant posts to a channel it is not a member of; the A2A server
    answers it as it answers a task the caller may not see (as a missing one)."""

    code = "channel.not_a_member"


class IllegalTransitionError(TinyHarnessError):
    """Raised when code asks a task to change state in a way the A2A state machine forbids
    (out of a final state, REJECTED after the task started, a pause without working first):
    a bug in the harness or a plugin, never a client's doing, so it is loud, not silent."""

    code = "task.illegal_transition"


class RoleChangeError(TinyHarnessError):
    """Raised when a participant's role on a task is to change at the request of someone who
    is not an admin of the task, or when the change would leave the task with no admin."""

    code = "participants.role_change_refused"


class HelpDecisionError(TinyHarnessError):
    """Raised when the decision on how to get help (help.decided.in) is malformed, names
    someone who is not a participant, or asks a participant for work an acceptance
    criterion assigns to another."""

    code = "help.decision_invalid"


class A2uiMessageError(TinyHarnessError):
    """Raised when an A2UI part of a client's message is not a valid client message, or a
    message the model asks to show (emit_ui) is not a valid server message or names a
    surface the task has not created."""

    code = "a2ui.invalid"

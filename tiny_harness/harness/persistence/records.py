"""The store's record kinds besides the task itself: plans, state, inbox audit, compactions
and channel messages.

Each record belongs to one task and is written through the `persist` activity, so a
plugin's `persistence.write.in` executor sees (and may route) it; the one exception is a
channel message, which the A2A server records itself before the task is given the message
(so the record exists before any delivery). A record has a `key` the store keeps it under
and a `version`: of two writes with the same key, the store keeps the higher version, so a
late retry never puts an older plan back. Records are typed data about the task; none
holds a credential.

    kind             key                          written
    plan             task id                      when a plan is attached or a step changes
    state            task id                      at the end of every loop iteration
    inbox_audit      task id / message id         when a message is taken in (intake)
    compaction       task id / ordinal            per compaction (`CompactionRecord`)
    channel_message  task id / message id / n     before a channel message is delivered
    tool_result      task id / call id            when a tool result is cut for the model
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from tiny_harness.harness.channels.extension import ChannelMessageKind
from tiny_harness.harness.context.compaction import CompactionRecord
from tiny_harness.harness.models.llm import Usage
from tiny_harness.harness.tasks.plan import Plan


class RecordKind(StrEnum):
    """Every kind of record the store holds, `task` included (retention counts them all)."""

    TASK = "task"
    PLAN = "plan"
    STATE = "state"
    INBOX_AUDIT = "inbox_audit"
    COMPACTION = "compaction"
    CHANNEL_MESSAGE = "channel_message"
    TOOL_RESULT = "tool_result"


class PlanRecord(BaseModel, frozen=True):
    """A task's plan as of its `revision`-th change (attached = 1, each step done + 1)."""

    kind: Literal["plan"] = "plan"
    task_id: str
    context_id: str
    revision: int = Field(ge=1)
    recorded_at: datetime
    plan: Plan

    @property
    def key(self) -> str:
        """One plan per task: the newest revision."""
        return self.task_id

    @property
    def version(self) -> int:
        """The revision: a later change wins."""
        return self.revision


class StateRecord(BaseModel, frozen=True):
    """What the loop knows after its `iteration`-th model call, without the raw history
    (Temporal holds that): the skills loaded, the running summary and the last usage."""

    kind: Literal["state"] = "state"
    task_id: str
    context_id: str
    iteration: int = Field(ge=0)
    recorded_at: datetime
    loaded_skills: tuple[str, ...] = ()
    summary: str | None = None
    """The state summary of the newest compaction, if the task was ever compacted."""
    compactions: int = Field(default=0, ge=0)
    usage: Usage | None = None
    """What the provider counted for the newest model call."""
    pending_question: str | None = None

    @property
    def key(self) -> str:
        """One state per task: the newest iteration."""
        return self.task_id

    @property
    def version(self) -> int:
        """The iteration: a later one wins."""
        return self.iteration


class InboxAuditRecord(BaseModel, frozen=True):
    """That a message reached the task: who sent what shape, when. The content itself is
    in the task's history, not repeated here."""

    kind: Literal["inbox_audit"] = "inbox_audit"
    task_id: str
    context_id: str
    message_id: str
    role: str
    parts: int = Field(ge=0)
    text_chars: int = Field(ge=0)
    reply_to: str | None = None
    """The question (tool call id) the message answered, if it was a reply."""
    recorded_at: datetime

    @property
    def key(self) -> str:
        """One entry per message of the task."""
        return f"{self.task_id}/{self.message_id}"

    @property
    def version(self) -> int:
        """Never rewritten."""
        return 0


class ChannelMessageRecord(BaseModel, frozen=True):
    """That a channel message was posted, kept before it is delivered: which channel, who
    sent it, its kind, and the length and SHA-256 of its text. The text itself is in the
    task's history, not repeated here (as the inbox audit keeps no content)."""

    kind: Literal["channel_message"] = "channel_message"
    id: str = Field(min_length=1)
    """`<message id>/<n>`: the n-th channel message (from 0) of the A2A message."""
    task_id: str
    channel_id: str
    sender: str
    message_kind: ChannelMessageKind
    """The channel message's own kind (`kind` is the record's)."""
    text_chars: int = Field(ge=0)
    text_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """The hex SHA-256 of the text's UTF-8 bytes: that a later copy is the same text."""
    recorded_at: datetime

    @property
    def key(self) -> str:
        """One entry per channel part of a message of the task."""
        return f"{self.task_id}/{self.id}"

    @property
    def version(self) -> int:
        """Never rewritten (a retried message writes the same entry again)."""
        return 0


class ToolResultRecord(BaseModel, frozen=True):
    """A tool result too long for the model's context, whole: the model was shown its
    beginning and reads the rest by range (`read_tool_result`)."""

    kind: Literal["tool_result"] = "tool_result"
    task_id: str
    call_id: str
    name: str
    """The tool that answered."""
    text: str
    is_error: bool = False
    recorded_at: datetime

    @property
    def key(self) -> str:
        """One entry per tool call of the task."""
        return tool_result_key(self.task_id, self.call_id)

    @property
    def version(self) -> int:
        """Never rewritten (a retried call writes the same entry again)."""
        return 0


def tool_result_key(task_id: str, call_id: str) -> str:
    """The key a task's stored result of one tool call is kept under."""
    return f"{task_id}/{call_id}"


type Record = Annotated[
    PlanRecord
    | StateRecord
    | InboxAuditRecord
    | CompactionRecord
    | ChannelMessageRecord
    | ToolResultRecord,
    Field(discriminator="kind"),
]
"""A record of one of the task-scoped kinds (a `TaskRecord` is written by `put_task`)."""

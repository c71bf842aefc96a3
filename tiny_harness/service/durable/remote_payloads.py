"""The payloads of delegation: a stand-in's start, its activities' inputs, its reports.

A sub-task is delegated by the parent `TaskWorkflow` to a `RemoteTaskWorkflow` (the
stand-in), which drives one task on one agent and reports every change back to the parent
with a `subtask_changed` signal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from pydantic import BaseModel, Field, JsonValue

from tiny_harness.harness.agents.agent import Updates
from tiny_harness.harness.agents.turns import RemoteTurn
from tiny_harness.harness.tasks.extension import (
    AcceptanceCriterion,
    Participant,
    TaskExtensionData,
)


class SubtaskBrief(BaseModel, frozen=True):
    """What the agent is asked to do."""

    name: str = Field(min_length=1)
    goal: str = Field(min_length=1)
    description: str = ""
    acceptance_criteria: tuple[str, ...] = ()

    @classmethod
    def of(cls, payload: Mapping[str, JsonValue]) -> SubtaskBrief:
        """The brief in a delegation command's payload."""
        return cls.model_validate(
            {k: payload[k] for k in ("name", "goal", "description", "acceptance_criteria")}
        )

    def extension(self) -> TaskExtensionData:
        """The brief as task extension data (name, goal, description, criteria)."""
        return TaskExtensionData(
            name=self.name,
            goal=self.goal,
            description=self.description,
            acceptance_criteria=tuple(
                AcceptanceCriterion(text=c) for c in self.acceptance_criteria
            ),
        )

    def text(self) -> str:
        """The brief as the message text the agent reads."""
        lines = [f"Task: {self.name}", f"Goal: {self.goal}"]
        if self.description:
            lines.append(f"Description: {self.description}")
        if self.acceptance_criteria:
            lines.append("Acceptance criteria:")
            lines += [f"- {criterion}" for criterion in self.acceptance_criteria]
        return "\n".join(lines)


class Assignment(BaseModel, frozen=True):
    """How a task assigned to a participant (`create_task_for_participant`) is started:
    the participant does the work, and the parent is told when it ends."""

    parent_id: str
    assignee: str
    brief: SubtaskBrief
    participants: tuple[Participant, ...]
    """The assignee and whoever else takes part (the parent's admins)."""


class RemoteWatch(BaseModel, frozen=True):
    """How a parked remote task is watched, chosen once per remote task. For push, the
    SHA-256 digest of the token the agent was given (the token itself is never kept)."""

    mode: Literal["push", "follow", "off"]
    config_id: str = ""
    token_digest: str = ""


class RemoteStart(BaseModel, frozen=True):
    """The input of `RemoteTaskWorkflow.run` (its workflow id is the sub-task's local id)."""

    parent_id: str
    agent: str
    brief: SubtaskBrief
    participant: str
    """Who the harness delegates as: sent as X-Participant-Id on every call."""
    updates: Updates = "auto"
    """The agent's watch setting, copied at delegation so replays agree."""
    heartbeat_seconds: float = Field(default=30, gt=0)
    history_event_bound: int = Field(default=10_000, ge=50)
    """Past this many history events the stand-in continues as new."""
    last: RemoteTurn | None = None
    """Set when a stand-in continues as new: where the remote task stood."""
    watch: RemoteWatch | None = None
    """Set when a stand-in continues as new: the watch chosen for the remote task."""
    replies: tuple[str, ...] = ()
    """Set when a stand-in continues as new: replies not sent yet."""


class RemoteCall(BaseModel, frozen=True):
    """Input of an activity about one remote task."""

    local_id: str
    agent: str
    participant: str
    remote_task_id: str


class StartAgentTaskInput(BaseModel, frozen=True):
    """Input of `start_agent_task`: send the brief, read until the task is under way."""

    local_id: str
    parent_id: str = ""
    agent: str
    participant: str
    brief: SubtaskBrief


class ReplyInput(BaseModel, frozen=True):
    """Input of `send_remote_reply`: a reply to the parked remote task (same task id)."""

    call: RemoteCall
    text: str
    message_id: str
    known: RemoteTurn


class FollowInput(BaseModel, frozen=True):
    """Input of `follow_remote_task`: hold SubscribeToTask open until the task changes."""

    call: RemoteCall
    known: RemoteTurn


class FollowOutput(BaseModel, frozen=True):
    """A change the follow saw, or `changed=False` when its window ran out."""

    changed: bool
    turn: RemoteTurn | None = None


class SubtaskUpdate(BaseModel, frozen=True):
    """What a stand-in tells its parent: the sub-task's newest turn."""

    local_id: str
    turn: RemoteTurn


class PushDeleteInput(BaseModel, frozen=True):
    """Input of `delete_remote_push`."""

    call: RemoteCall
    config_id: str


REMOTE_PUSH_UPDATE: Final = "remote_push"
"""The update a stand-in workflow defines to take a push (its validator is the check)."""


class PushIn(BaseModel, frozen=True):
    """The `remote_push` update's argument: the token's digest, never the token."""

    token_digest: str
    remote_task_id: str
    """The task id the push body names (the remote agent's id for the task)."""
    claimed_state: int | None = None
    """The `TaskState` the body claims, if any: a hint to fetch again, never applied."""

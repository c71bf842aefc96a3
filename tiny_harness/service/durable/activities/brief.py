"""`brief_message`: the first message a delegated sub-task's agent receives.

Every agent gets the brief as text (name, goal, description, acceptance criteria), since
that is what any A2A agent reads. An agent whose card advertises the task extension also
gets it as a task envelope (docs/a2a/ext/), so it can keep the fields apart; the harness
itself (`self`) gets the full brief in it: that it was delegated, by which parent task (an
agent participant, the admin of the sub-task), and the parent's model, so the sub-task is
recognisably part of the same work.
"""

from __future__ import annotations

from a2a.helpers import new_text_message
from a2a.types import Message, Role

from tiny_harness.harness.agents.agent import SELF_AGENT_ID, Agent
from tiny_harness.harness.tasks.extension import (
    EventEnvelope,
    Participant,
    ParticipantRole,
    TaskExtensionData,
    TaskRef,
    envelope_part,
)
from tiny_harness.service.durable.remote_payloads import StartAgentTaskInput


def brief_message(data: StartAgentTaskInput, agent: Agent, *, model: str) -> Message:
    """The brief for `agent`; `model` is the delegating task's model (told to `self` only)."""
    message = new_text_message(data.brief.text(), role=Role.ROLE_USER)
    if agent.speaks_task_extension:
        message.parts.append(envelope_part(EventEnvelope.of_task(_extension(data, agent, model))))
    return message


def _extension(data: StartAgentTaskInput, agent: Agent, model: str) -> TaskExtensionData:
    fields = data.brief.extension()
    if agent.agent_id != SELF_AGENT_ID or not data.parent_id:
        return fields
    delegator = Participant(
        id=data.participant,
        kind="agent",
        role=ParticipantRole.ADMIN,
        display_name=f"task {data.parent_id}",
    )
    return fields.model_copy(
        update={
            "lifecycle": "delegated",
            "parent_tasks": (TaskRef(task_id=data.parent_id),),
            "participants": (delegator,),
            "model": model,
        }
    )

"""`Agent`: an A2A agent the harness can delegate a sub-task to.

The loop never talks to an agent directly: the stand-in workflow of a delegated task
(`RemoteTaskWorkflow`) does, through activities that look the agent up in the registry
(kind `agent`, id = the configured agent id). Every call that concerns a task carries the
participant the harness delegated as (`X-Participant-Id`), so a peer that scopes tasks by
participant answers it. `RemoteAgent` (remote.py) implements this over the a2a-sdk client.

Errors: a call that fails in transport or with an A2A error raises `AgentUnavailableError`
(naming the failure's type, never echoing a token).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncGenerator
from datetime import timedelta
from typing import Literal

from a2a.types import AgentCard, Message, StreamResponse, Task

from tiny_harness.harness.entities import Entity, EntityKind
from tiny_harness.harness.tasks.extension import TASK_EXTENSION_URI

type Updates = Literal["auto", "follow", "off"]
"""How a parked remote task's changes are heard: push when the card advertises it and the
server has a base URL (auto), SubscribeToTask (follow), or not at all (off)."""

SELF_AGENT_ID = "self"
"""The id the harness itself is registered under; no configured agent may use it."""


class Agent(Entity):
    """One A2A agent, by id, with the calls a stand-in makes on its tasks."""

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.AGENT`."""
        return EntityKind.AGENT

    @property
    def agent_id(self) -> str:
        """The id the agent is registered and delegated to under."""
        return self.ref.id

    @property
    @abstractmethod
    def card(self) -> AgentCard:
        """The agent's validated card."""

    @property
    @abstractmethod
    def updates(self) -> Updates:
        """How a parked task of this agent is watched."""

    @property
    @abstractmethod
    def follow_interval(self) -> timedelta:
        """The pause before re-subscribing when a follow stream ended unchanged."""

    @property
    def push_supported(self) -> bool:
        """Whether the card advertises push notifications."""
        return self.card.capabilities.push_notifications

    @property
    def speaks_task_extension(self) -> bool:
        """Whether the card advertises the task extension, so a brief may carry its envelope."""
        return any(e.uri == TASK_EXTENSION_URI for e in self.card.capabilities.extensions)

    @abstractmethod
    def send_message(self, message: Message, *, participant: str) -> AsyncGenerator[StreamResponse]:
        """Send `message` (a new task, or a reply when it names a task id) and stream what
        the agent answers; the caller may stop reading at any point (the stream is closed)."""

    @abstractmethod
    async def get_task(self, task_id: str, *, participant: str) -> Task:
        """The task as the agent has it now."""

    @abstractmethod
    def subscribe(self, task_id: str, *, participant: str) -> AsyncGenerator[StreamResponse]:
        """SubscribeToTask: the task's events from its current snapshot on."""

    @abstractmethod
    async def cancel_task(self, task_id: str, *, participant: str) -> Task:
        """CancelTask; the task as the agent answers."""

    @abstractmethod
    async def set_push_config(self, task_id: str, url: str, token: str, *, participant: str) -> str:
        """Register `url` with `token` for pushes about the task; the config id it assigned."""

    @abstractmethod
    async def delete_push_config(self, task_id: str, config_id: str, *, participant: str) -> None:
        """Delete a push config registered with `set_push_config`."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release the agent's connections; safe to call twice."""

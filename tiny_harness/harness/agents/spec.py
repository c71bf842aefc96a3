"""`RemoteAgentSpec`: one remote A2A agent the harness may delegate to (an ``[[agents]]``
table of the configuration).

It lives with the agents, below the configuration that reads it: `RemoteAgent.connect`
takes it, and `config.Settings` carries a list of them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Final

from packaging.version import InvalidVersion, Version
from pydantic import AnyHttpUrl, BaseModel, Field, ValidationInfo, field_validator

from tiny_harness.harness.agents.agent import SELF_AGENT_ID, Updates
from tiny_harness.harness.settings.duration import Duration

NonEmptyStr = Annotated[str, Field(min_length=1)]


MIN_FOLLOW_INTERVAL: Final[timedelta] = timedelta(seconds=1)
"""The shortest pause before re-subscribing to a remote task whose stream ended unchanged."""


class RemoteAgentSpec(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """One remote A2A agent the harness may delegate to (an ``[[agents]]`` table)."""

    id: NonEmptyStr
    """The id the model names the agent by; unique, and never ``self`` (the harness itself)."""
    url: AnyHttpUrl
    """The agent's base URL; its card is fetched from ``<url>/.well-known/agent-card.json``."""
    version: str | None = None
    """The version the agent is registered under (a PEP 440 version, e.g. ``1.2.0``)."""
    updates: Updates = "auto"
    """How a parked remote task's changes are heard: push when the card advertises it and
    ``server.base_url`` is set (auto), SubscribeToTask (follow), or not at all (off)."""
    follow_interval: Duration = timedelta(seconds=5)
    """The pause before re-subscribing when a follow stream ends unchanged (at least 1 s)."""

    @field_validator("id")
    @classmethod
    def _id_is_not_self(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("an agent id cannot be blank")
        if value == SELF_AGENT_ID:
            raise ValueError(
                f"the agent id {SELF_AGENT_ID!r} is reserved for the harness itself; "
                "give the agent another id"
            )
        return value

    @field_validator("version")
    @classmethod
    def _version_is_concrete(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            Version(value)
        except InvalidVersion:
            raise ValueError(
                f"an agent version must be a PEP 440 version such as 1.2.0, not {value!r}"
            ) from None
        return value

    @field_validator("follow_interval")
    @classmethod
    def _follow_interval_is_at_least_a_second(
        cls, value: timedelta, info: ValidationInfo
    ) -> timedelta:
        if value < MIN_FOLLOW_INTERVAL:
            agent = info.data.get("id", "?")
            raise ValueError(
                f"agent {agent!r}: follow_interval must be at least 1 second, "
                f"not {value.total_seconds():g} s"
            )
        return value

    @classmethod
    def for_self(cls, url: str) -> RemoteAgentSpec:
        """The spec of the harness itself (id ``self``) at its own public `url`.

        Built without validation, because configuration may never use the id ``self``:
        only the harness registers itself this way.
        """
        return cls.model_construct(id=SELF_AGENT_ID, url=AnyHttpUrl(url))

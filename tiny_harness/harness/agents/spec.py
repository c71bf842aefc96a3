"""`RemoteAgentSpec`: one remote A2A agent the harness may delegate to (an ``[[agents]]``
table of the configuration).

It lives with the agents, below the configuration that reads it: `RemoteAgent.connect`
takes it, and `config.Settings` carries a list of them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import timedelta
from typing import Annotated, Final, Literal, Self

from packaging.version import InvalidVersion, Version
from pydantic import (
    AnyHttpUrl,
    BaseModel,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from tiny_harness.harness.agents.agent import SELF_AGENT_ID, Updates
from tiny_harness.harness.settings.duration import Duration

NonEmptyStr = Annotated[str, Field(min_length=1)]


MIN_FOLLOW_INTERVAL: Final[timedelta] = timedelta(seconds=1)
"""The shortest pause before re-subscribing to a remote task whose stream ended unchanged."""


class AgentAuth(BaseModel, extra="forbid", frozen=True):
    """The credential the harness presents to an agent whose card requires one: a bearer
    token, or an API key in a header. Only the name of the environment variable holding the
    secret is configured; the secret is read from the environment when the agent is
    connected, and never written anywhere."""

    scheme: Literal["bearer", "api_key"]
    token_env: NonEmptyStr | None = None
    """`bearer`: the environment variable holding the token."""
    key_env: NonEmptyStr | None = None
    """`api_key`: the environment variable holding the key."""
    header: NonEmptyStr = "X-API-Key"
    """`api_key`: the header the card names for the key."""

    @model_validator(mode="after")
    def _names_its_variable(self) -> Self:
        if self.scheme == "bearer" and not self.token_env:
            raise ValueError('auth with scheme "bearer" needs token_env')
        if self.scheme == "api_key" and not self.key_env:
            raise ValueError('auth with scheme "api_key" needs key_env')
        return self

    @property
    def variable(self) -> str:
        """The environment variable holding the secret."""
        return (self.token_env if self.scheme == "bearer" else self.key_env) or ""

    def secret(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The secret from the environment (`os.environ` unless given), or None when its
        variable is unset or empty."""
        value = (os.environ if environ is None else environ).get(self.variable, "")
        return value or None


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
    auth: AgentAuth | None = None
    """The credential for an agent whose card requires one (None: it must require none)."""

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

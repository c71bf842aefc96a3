"""Errors of other agents: a remote agent we delegate to, and the calls a client surface makes."""

from __future__ import annotations

from tiny_harness.errors.base import TinyHarnessError


class AgentError(TinyHarnessError):
    """Raised when a remote agent cannot be used as asked; `agent` is its id."""

    code = "agent_error"

    def __init__(self, message: str, *, agent: str) -> None:
        super().__init__(message)
        self.agent = agent


class UnknownAgentError(AgentError):
    """Raised when a delegation names an agent id that is not registered (the empty id
    included); the message lists the valid ids."""

    code = "agent.unknown"


class UnsupportedExtensionError(AgentError):
    """Raised when an agent's card declares a security scheme or requires an A2A extension
    the harness does not implement; nothing is ever sent to such an agent."""

    code = "agent.unsupported_extension"


class AgentUnavailableError(AgentError):
    """Raised when an agent's card cannot be fetched or parsed, or a call to it fails in
    transport or with an A2A error; the message names the failure's type, never a token."""

    code = "agent.unavailable"


class AgentCallError(TinyHarnessError):
    """Raised by a client surface (the terminal UI) when a call to the agent it shows
    fails; the message is fit to show a person."""

    code = "client.call_failed"


class AgentUnreachableError(AgentCallError):
    """Raised when the agent gives no answer (connection refused or reset, a timeout, a
    broken stream): the surface says so and tries again later."""

    code = "client.unreachable"


class AgentRefusalError(AgentCallError):
    """Raised when the agent answers a call with an A2A error; `a2a_code` is its JSON-RPC
    error code (None when the SDK knows none for it) and `reason` the error's name."""

    code = "client.refused"

    def __init__(self, message: str, *, reason: str, a2a_code: int | None) -> None:
        super().__init__(message)
        self.reason = reason
        self.a2a_code = a2a_code

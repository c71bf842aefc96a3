"""Errors of the agent loop: tools, plans, the context window, model providers, System One."""

from __future__ import annotations

from tiny_harness.errors.base import TinyHarnessError


class ToolError(TinyHarnessError):
    """Raised when a tool call cannot be honoured; the loop turns it into an error result."""

    code = "tool_error"


class ToolNotFoundError(ToolError):
    """Raised when the model calls a tool that is not registered."""

    code = "tool_not_found"


class ToolArgumentError(ToolError):
    """Raised when a tool call's arguments fail the tool's input schema."""

    code = "tool_argument_invalid"


class PlanError(TinyHarnessError):
    """Raised when a plan is malformed: duplicate step ids or unknown dependencies."""

    code = "plan_invalid"


class PlanCycleError(PlanError):
    """Raised when a plan's step dependencies form a cycle."""

    code = "plan_cycle"


class ToolNotRetriedError(ToolError):
    """Raised (as the tool's result) when a tool that is not idempotent failed: running it
    again could repeat its side effect, so the workflow does not retry it."""

    code = "tool_not_retried"


class ToolSchemaError(ToolError):
    """Raised when a tool's input schema is not a valid JSON Schema (or names a `$ref` that
    cannot be resolved locally), so no call to the tool can be validated."""

    code = "tool_schema_invalid"


class ToolSchemaChangedError(ToolError):
    """Raised when an MCP server's definition of a tool no longer matches the one registered
    (and shown to the model), or the server no longer offers the tool. The call is refused
    until the tool is registered again."""

    code = "tool_schema_changed"


class McpUnavailableError(ToolError):
    """Raised when an MCP server cannot be started, reached, or answers out of protocol."""

    code = "mcp_unavailable"


class ContextError(TinyHarnessError):
    """Raised when a context window is malformed: two sections of one name, or sections out
    of stability order (static, then per-task, then per-turn), which would break the
    cacheable prefix."""

    code = "context_invalid"


class CompactionError(ContextError):
    """Raised when a compaction would break the conversation it shortens: a split that parts
    a tool call from its result (or a question from its reply) or folds away the newest user
    message, or a summary applied to items that are not the conversation's leading items."""

    code = "compaction_invalid"


class ProviderError(TinyHarnessError):
    """Raised when a call to a model provider fails. `provider` names the adapter (`openai`,
    `openai-chat`, `anthropic`); `status` is the HTTP status, or None when there was none.

    The message says what went wrong without the API key or the request's content: it may
    carry the provider's own explanation, scrubbed of anything that looks like a key.
    """

    code = "provider_error"

    def __init__(self, message: str, *, provider: str, status: int | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status


class RetryableProviderError(ProviderError):
    """Raised when a provider call may succeed if made again: HTTP 408, 409, 429 or 5xx, a
    timeout, or a connection that failed or was closed before the answer arrived."""

    code = "provider_retryable"


class ProviderRequestError(ProviderError):
    """Raised when a provider refuses the request itself (a 4xx other than 408, 409 and 429:
    a bad schema, an unknown model, a refused key). The same request would fail again."""

    code = "provider_request_refused"


class ProviderResponseError(ProviderError):
    """Raised when a provider's answer cannot be used as it is: a tool call whose arguments
    are not a JSON object, or no answer at all. A new attempt may get a usable answer."""

    code = "provider_response_invalid"


class SystemOneError(TinyHarnessError):
    """Raised when a System One question or call is malformed: a choice question with no
    options, a score question with no levels, or a `decide` call whose timeout is not
    positive. Nothing is asked; the same call would fail again."""

    code = "system_one_invalid"

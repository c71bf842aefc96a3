"""The one error tree of tiny-harness.

Every error the harness raises on purpose descends from `TinyHarnessError` and carries a
stable, machine-readable `code`. None of them ever carries a secret in its message.

    TinyHarnessError
    ├── ConfigError(variable)            configuration cannot be loaded or is invalid
    ├── RegistryError                    a registry lookup or change cannot be done
    │   ├── EntityNotFoundError          no entity answers to a reference
    │   ├── VersionNotFoundError         the entity exists, but no version matches
    │   └── RegistryConflictError        the entity is registered already (no override)
    ├── ScriptError                      a scripted-model script is malformed
    ├── ToolError                        a tool call cannot be honoured
    │   ├── ToolNotRetriedError          a non-idempotent tool failed; it is never run twice
    │   ├── ToolNotFoundError            the model named a tool nobody registered
    │   ├── ToolArgumentError            the arguments fail the tool's input schema
    │   ├── ToolSchemaError              a tool's input schema is itself not a valid schema
    │   ├── ToolSchemaChangedError       an MCP tool changed or vanished since registration
    │   └── McpUnavailableError          an MCP server cannot be started, reached or understood
    ├── PlanError                        a plan is malformed (duplicate ids, unknown deps)
    │   └── PlanCycleError               a plan's dependencies form a cycle
    ├── ContextError                     a context window has repeated or misordered sections
    │   └── CompactionError              a compaction would break the conversation it shortens
    ├── StoreError                       the store could not read or write a record
    ├── TemporalUnavailableError         the Temporal service cannot be reached or started
    ├── WatchUnavailableError            a task's workflow cannot take a watch now (read instead)
    ├── HttpBindError                    the HTTP server cannot listen on its address
    ├── HookError                        a hook point or hook executor cannot be used
    │   ├── UnknownHookPointError        a hook point names an unknown operation or phase
    │   ├── HookLoadError                a hook executor cannot be built from its definition
    │   ├── HookContractError            a context or an executor breaks the chain's contract
    │   └── HookTransportError(executor) a remote hook executor failed to answer (fail closed)
    ├── HookAbort(reason)                an executor cancelled the operation (in harness.hooks)
    ├── IllegalTransitionError           a task state change the A2A state machine forbids
    ├── TaskRefusedError                 a request about a task is refused (see subclasses)
    │   ├── UnknownTaskError             no task with that id exists
    │   ├── FinalTaskError               the task is in a final state and takes no more input
    │   └── InvalidMessageError          the message cannot be taken as it is (no parts, say)
    ├── SkillError(path, reason)         a skill folder cannot be loaded as a skill
    │   ├── SkillResourceError(resource) a skill resource read is refused (escape, size, …)
    │   └── UnknownSkillError(name)      no skill of that name is in the catalog
    ├── PluginError(manifest_path)       a plugin, or one of its components, cannot be read
    │   └── PluginPathError(path)        a plugin path is absolute, or resolves outside its root
    ├── PromptError(source, section)     a prompt cannot be parsed, or composed as asked
    ├── SystemOneError                   a System One question or call is malformed
    ├── AgentError(agent)                a remote agent cannot be used as asked
    │   ├── UnknownAgentError            no agent of that id is registered
    │   ├── UnsupportedExtensionError    its card needs what the harness does not implement
    │   └── AgentUnavailableError        its card or a call to it failed (transport, A2A error)
    ├── PushError                        a push-notification config or delivery cannot be done
    │   ├── PushConfigError              a push config is malformed (CR/LF in a credential, …)
    │   ├── PushConfigLimitError         the task has as many push configs as allowed
    │   ├── PushUrlRefusedError(reason)  a push URL fails the guard (scheme, address, form)
    │   └── PushKeyError                 a sealed push secret cannot be opened with this key
    ├── TaskExtensionError               task extension data or an event envelope is invalid
    ├── ChannelMessageError              a channel message part in a message is invalid
    │   └── ChannelMembershipError       a participant posts to a channel it is not a member of
    ├── RoleChangeError                  a participant's role change is not an admin's, or
    │                                    would leave the task with no admin
    ├── HelpDecisionError                a help decision is malformed or breaks the task's rules
    ├── A2uiMessageError                 an A2UI message in a part or an emit_ui call is invalid
    ├── AgentCallError                   a call a client surface (the TUI) makes fails
    │   ├── AgentUnreachableError        no answer: refused, reset, timed out (try again later)
    │   └── AgentRefusalError(a2a_code)  the agent answered with an A2A error
    └── ProviderError(provider, status)  a call to a model provider failed (see subclasses)
        ├── RetryableProviderError       rate limit, 5xx, timeout or lost connection: try again
        ├── ProviderRequestError         the provider refused the request (other 4xx): final
        └── ProviderResponseError        the provider answered something we cannot use
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal


class TinyHarnessError(Exception):
    """Root of every error raised on purpose by tiny-harness."""

    code: str = "tiny_harness_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigError(TinyHarnessError):
    """Raised at startup when configuration is missing, unknown or invalid.

    `variable` names the environment variable or TOML key at fault, so the operator can
    fix it without reading a traceback.
    """

    code = "config_error"

    def __init__(self, message: str, *, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable


class RegistryError(TinyHarnessError):
    """Raised when a registry lookup or change cannot be done."""

    code = "registry_error"


class EntityNotFoundError(RegistryError):
    """Raised when no registered entity answers to a reference (or not as the kind asked)."""

    code = "entity_not_found"


class VersionNotFoundError(RegistryError):
    """Raised when an entity is registered but none of its versions matches the reference."""

    code = "version_not_found"


class RegistryConflictError(RegistryError):
    """Raised when adding an entity that is registered already, without `override=True`."""

    code = "registry_conflict"


class ScriptError(TinyHarnessError):
    """Raised when a scripted-model script cannot be read or fails validation."""

    code = "script_error"


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


class StoreError(TinyHarnessError):
    """Raised when the store cannot read or write a record."""

    code = "store_error"


class TemporalUnavailableError(TinyHarnessError):
    """Raised when the Temporal service cannot be reached, or the embedded one will not start."""

    code = "temporal_unavailable"


class WatchUnavailableError(TinyHarnessError):
    """Raised by the gateway when a task's workflow cannot take a watch (it has closed, or
    it is at its limit of in-flight updates); the event bridge then reads the log instead."""

    code = "watch_unavailable"


class HttpBindError(TinyHarnessError):
    """Raised when the HTTP server cannot listen on its address (the port is taken, say)."""

    code = "http_bind_failed"


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


type SkillLoadReason = Literal[
    "not_a_directory",
    "missing_skill_md",
    "unreadable",
    "too_large",
    "escapes_root",
    "no_front_matter",
    "invalid_front_matter",
    "invalid_field",
    "name_mismatch",
]
"""Why a folder is not a loadable skill."""

type SkillResourceReason = Literal[
    "absolute_path",
    "parent_path",
    "not_a_resource",
    "escapes_root",
    "too_large",
    "not_utf8",
    "unreadable",
]
"""Why a skill resource read is refused."""

type SkillErrorReason = SkillLoadReason | SkillResourceReason | Literal["unknown_skill"]


class SkillError(TinyHarnessError):
    """Raised (or, by the skill loader, returned) when a folder cannot be loaded as a skill.

    `path` is the skill folder (None when no folder is known); `reason` says what is wrong
    in a word a caller can branch on, and the message says it for a person.
    """

    code = "skill_invalid"

    def __init__(self, message: str, *, path: Path | None, reason: SkillErrorReason) -> None:
        super().__init__(message)
        self.path = path
        self.reason: SkillErrorReason = reason


class SkillResourceError(SkillError):
    """Raised when reading a skill resource is refused: an absolute or `..` path, a file
    the skill does not list, a symlink out of the skill folder, too large, or not UTF-8."""

    code = "skill_resource_refused"

    def __init__(
        self, message: str, *, path: Path, resource: str, reason: SkillResourceReason
    ) -> None:
        super().__init__(message, path=path, reason=reason)
        self.resource = resource


class UnknownSkillError(SkillError):
    """Raised when a skill is asked for by a name the catalog does not hold."""

    code = "skill_not_found"

    def __init__(self, message: str, *, name: str) -> None:
        super().__init__(message, path=None, reason="unknown_skill")
        self.name = name


class HookError(TinyHarnessError):
    """Raised when a hook point or a hook executor cannot be used as asked."""

    code = "hook_error"


class UnknownHookPointError(HookError):
    """Raised when a hook point names an operation or phase that does not exist, or one that
    no context is defined for yet."""

    code = "hook_point_unknown"


class HookLoadError(HookError):
    """Raised when a hook executor cannot be built from its definition: an import path that
    does not import, or does not lead to an executor; a remote address that is not usable."""

    code = "hook_load_failed"


class HookContractError(HookError):
    """Raised when a hook chain's contract is broken: an executor returned a context of
    another type or for another task, a context does not match its point, or an `in` body
    produced no result."""

    code = "hook_contract_broken"


class HookTransportError(HookError):
    """Raised when a remote hook executor cannot be reached or answers out of protocol.

    Hooks fail closed: the operation fails (and may be retried), it never goes ahead as if
    the executor had passed. `executor` names the executor at fault.
    """

    code = "hook_transport_failed"

    def __init__(self, message: str, *, executor: str) -> None:
        super().__init__(message)
        self.executor = executor


class PluginError(TinyHarnessError):
    """Raised when a plugin, or one of its components, cannot be read as it is.

    Reading a plugin raises it only for the manifest, with `manifest_path` set: a missing
    or invalid `plugin.json` rejects the whole plugin before any component is touched. For
    a bad component (an invalid MCP entry, a `${` in a command, an unknown variable) the
    reader catches it and reports the component as skipped instead.
    """

    code = "plugin_invalid"

    def __init__(self, message: str, *, manifest_path: Path | None = None) -> None:
        super().__init__(message)
        self.manifest_path = manifest_path


class PluginPathError(PluginError):
    """Raised when a path a plugin names is absolute, escapes the plugin root with `..`, or
    passes through a symlink whose target resolves outside the root. `path` is the path as
    the plugin wrote it."""

    code = "plugin_path_refused"

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


class PromptError(TinyHarnessError):
    """Raised when a prompt cannot be parsed (two sections of one name, malformed front
    matter) or composed as asked (extending a section the system prompt does not have).

    `source` names the prompt text at fault (a file path, say) when one is known; `section`
    names the section at fault when there is one.
    """

    code = "prompt_invalid"

    def __init__(
        self, message: str, *, source: str | None = None, section: str | None = None
    ) -> None:
        super().__init__(message)
        self.source = source
        self.section = section


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


class PushError(TinyHarnessError):
    """Raised when a push-notification config cannot be stored or a push cannot be sent
    (see subclasses); the message never carries a token or a credential."""

    code = "push_error"


class PushConfigError(PushError):
    """Raised when a client's push config is malformed: a token, scheme or credential with
    a CR or LF (header injection), an empty URL, or a task id that does not match."""

    code = "push.config_invalid"


class PushConfigLimitError(PushError):
    """Raised when a task already has `push.max_configs_per_task` configs and a new one
    (not a replacement of an existing id) is added."""

    code = "push.config_limit"


class PushUrlRefusedError(PushError):
    """Raised when a push URL fails the guard, when the config is created and again before
    each delivery: not HTTPS, credentials in the URL, or a host resolving to a private,
    loopback, link-local or otherwise non-public address that is not allow-listed.
    `reason` is a short, fixed phrase safe to return to the client."""

    code = "push.url_refused"

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class PushKeyError(PushError):
    """Raised when a sealed push secret cannot be opened: the push key changed since it was
    sealed, or the sealed value was altered or moved to another config."""

    code = "push.key_mismatch"


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

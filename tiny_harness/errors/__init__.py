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
    │   └── MissingPayloadError          a payload Temporal refers to is not in the store
    ├── TemporalUnavailableError         the Temporal service cannot be reached or started
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

from tiny_harness.errors.agents import (
    AgentCallError,
    AgentError,
    AgentRefusalError,
    AgentUnavailableError,
    AgentUnreachableError,
    UnknownAgentError,
    UnsupportedExtensionError,
)
from tiny_harness.errors.base import (
    TinyHarnessError,
)
from tiny_harness.errors.extensions import (
    EntityNotFoundError,
    HookContractError,
    HookError,
    HookLoadError,
    HookTransportError,
    PluginError,
    PluginPathError,
    PromptError,
    RegistryConflictError,
    RegistryError,
    ScriptError,
    SkillError,
    SkillErrorReason,
    SkillLoadReason,
    SkillResourceError,
    SkillResourceReason,
    UnknownHookPointError,
    UnknownSkillError,
    VersionNotFoundError,
)
from tiny_harness.errors.loop import (
    CompactionError,
    ContextError,
    McpUnavailableError,
    PlanCycleError,
    PlanError,
    ProviderError,
    ProviderRequestError,
    ProviderResponseError,
    RetryableProviderError,
    SystemOneError,
    ToolArgumentError,
    ToolError,
    ToolNotFoundError,
    ToolNotRetriedError,
    ToolSchemaChangedError,
    ToolSchemaError,
)
from tiny_harness.errors.push import (
    PushConfigError,
    PushConfigLimitError,
    PushError,
    PushKeyError,
    PushUrlRefusedError,
)
from tiny_harness.errors.runtime import (
    ConfigError,
    HttpBindError,
    MissingPayloadError,
    StoreError,
    TemporalUnavailableError,
)
from tiny_harness.errors.tasks import (
    A2uiMessageError,
    ChannelMembershipError,
    ChannelMessageError,
    FinalTaskError,
    HelpDecisionError,
    IllegalTransitionError,
    InvalidMessageError,
    RoleChangeError,
    TaskExtensionError,
    TaskRefusedError,
    UnknownTaskError,
)

__all__ = [
    "A2uiMessageError",
    "AgentCallError",
    "AgentError",
    "AgentRefusalError",
    "AgentUnavailableError",
    "AgentUnreachableError",
    "ChannelMembershipError",
    "ChannelMessageError",
    "CompactionError",
    "ConfigError",
    "ContextError",
    "EntityNotFoundError",
    "FinalTaskError",
    "HelpDecisionError",
    "HookContractError",
    "HookError",
    "HookLoadError",
    "HookTransportError",
    "HttpBindError",
    "IllegalTransitionError",
    "InvalidMessageError",
    "McpUnavailableError",
    "MissingPayloadError",
    "PlanCycleError",
    "PlanError",
    "PluginError",
    "PluginPathError",
    "PromptError",
    "ProviderError",
    "ProviderRequestError",
    "ProviderResponseError",
    "PushConfigError",
    "PushConfigLimitError",
    "PushError",
    "PushKeyError",
    "PushUrlRefusedError",
    "RegistryConflictError",
    "RegistryError",
    "RetryableProviderError",
    "RoleChangeError",
    "ScriptError",
    "SkillError",
    "SkillErrorReason",
    "SkillLoadReason",
    "SkillResourceError",
    "SkillResourceReason",
    "StoreError",
    "SystemOneError",
    "TaskExtensionError",
    "TaskRefusedError",
    "TemporalUnavailableError",
    "TinyHarnessError",
    "ToolArgumentError",
    "ToolError",
    "ToolNotFoundError",
    "ToolNotRetriedError",
    "ToolSchemaChangedError",
    "ToolSchemaError",
    "UnknownAgentError",
    "UnknownHookPointError",
    "UnknownSkillError",
    "UnknownTaskError",
    "UnsupportedExtensionError",
    "VersionNotFoundError",
]

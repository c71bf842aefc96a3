"""Hooks: typed contexts passed through chains of executors at named points (R2).

Import from here; the modules behind it are `points` (what a point is), `contexts` (what
travels at each point), `executor` (what an executor is, `HookAbort`, loading local ones),
`manager` (the chain), `remote` (JSON-RPC and MCP executors) and `providers`.
"""

from tiny_harness.harness.hooks.contexts import (
    CONTEXTS,
    ActivityFailedPre,
    ActivityRetriedPre,
    BodyContext,
    HookContext,
    LLMInvokedPost,
    LLMInvokedPre,
    PersistenceWriteIn,
    PlanCreatedIn,
    RequestReceivedPre,
    ShutdownPre,
    SkillLoadedPre,
    SkillUnloadedPre,
    StepFinishedPre,
    StepStartedPre,
    TaskStateChangedPre,
    ToolCallsExtractedPre,
    ToolInvokedPost,
    ToolInvokedPre,
    context_type,
)
from tiny_harness.harness.hooks.executor import (
    DEFAULT_PRIORITY,
    AbortReason,
    HookAbort,
    HookExecutor,
    LocalHookExecutor,
    load_executor,
)
from tiny_harness.harness.hooks.manager import HookManager
from tiny_harness.harness.hooks.points import HookPoint, Operation, Phase
from tiny_harness.harness.hooks.providers import Providers, default_providers, utc_now
from tiny_harness.harness.hooks.remote import (
    ABORT_ERROR_CODE,
    HOOK_METHOD,
    HOOK_TOOL,
    JsonRpcHookExecutor,
    McpHookExecutor,
    McpHookServer,
)

__all__ = [
    "ABORT_ERROR_CODE",
    "CONTEXTS",
    "DEFAULT_PRIORITY",
    "HOOK_METHOD",
    "HOOK_TOOL",
    "AbortReason",
    "ActivityFailedPre",
    "ActivityRetriedPre",
    "BodyContext",
    "HookAbort",
    "HookContext",
    "HookExecutor",
    "HookManager",
    "HookPoint",
    "JsonRpcHookExecutor",
    "LLMInvokedPost",
    "LLMInvokedPre",
    "LocalHookExecutor",
    "McpHookExecutor",
    "McpHookServer",
    "Operation",
    "PersistenceWriteIn",
    "Phase",
    "PlanCreatedIn",
    "Providers",
    "RequestReceivedPre",
    "ShutdownPre",
    "SkillLoadedPre",
    "SkillUnloadedPre",
    "StepFinishedPre",
    "StepStartedPre",
    "TaskStateChangedPre",
    "ToolCallsExtractedPre",
    "ToolInvokedPost",
    "ToolInvokedPre",
    "context_type",
    "default_providers",
    "load_executor",
    "utc_now",
]

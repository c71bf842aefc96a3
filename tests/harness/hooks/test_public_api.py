"""The public names of `tiny_harness.harness.hooks`, pinned."""

from __future__ import annotations

import tiny_harness.harness.hooks as hooks


def test_public_names_are_pinned() -> None:
    assert sorted(hooks.__all__) == [
        "ABORT_ERROR_CODE",
        "AbortReason",
        "ActivityFailedPre",
        "ActivityRetriedPre",
        "BodyContext",
        "CONTEXTS",
        "CompactionKeepIn",
        "CompactionSummariseIn",
        "CompactionTriggerIn",
        "DEFAULT_PRIORITY",
        "HOOK_METHOD",
        "HOOK_TOOL",
        "HeartbeatTickPre",
        "HelpDecidedIn",
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
    assert all(hasattr(hooks, name) for name in hooks.__all__)

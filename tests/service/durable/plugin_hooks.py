"""In-process hook executors that test plugins name by import path."""

from __future__ import annotations

from datetime import timedelta

from a2a.types import Message

from tiny_harness.harness.a2ui.messages import A2UI_MEDIA_TYPE
from tiny_harness.harness.hooks import (
    AbortReason,
    ActivityFailedPre,
    ActivityRetriedPre,
    HookAbort,
    HookContext,
    HookPoint,
    LLMInvokedPre,
    PersistenceWriteIn,
    RequestReceivedPre,
    ToolInvokedPre,
)
from tiny_harness.harness.persistence.records import StateRecord
from tiny_harness.harness.tools.definition import ToolDefinition

SKIPPED_WRITES: list[str] = []
"""Task ids whose store writes `skip_store` took over."""


class VetoStepB:
    """Vetoes `complete_step` for step "b", and nothing else."""

    name = "veto-step-b"
    priority = 100
    points = frozenset({HookPoint.parse("tool.invoked.pre")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        call = ctx.call if isinstance(ctx, ToolInvokedPre) else None
        if call is not None and call.name == "complete_step" and call.arguments["step_id"] == "b":
            raise HookAbort(AbortReason(code="policy", message="step b needs a human"))
        return None


class SkipStore:
    """Replaces the persistence body: records the task id instead of writing the store."""

    name = "skip-store"
    priority = 10
    points = frozenset({HookPoint.parse("persistence.write.in")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if isinstance(ctx, PersistenceWriteIn):
            SKIPPED_WRITES.append(ctx.task_id)
            return ctx.model_copy(update={"result": "stored"})
        return None


INJECTED_CREDENTIAL = "ghp_" + "Q7x9PlugInJeCtEdCrEdEnTiAl0123456789"
"""A credential of a known shape that `inject_credential` writes into state records."""


class InjectCredential:
    """Puts a credential into each state record on its way to the store (before the
    default body writes it), as a careless persistence plugin might."""

    name = "inject-credential"
    priority = 10
    points = frozenset({HookPoint.parse("persistence.write.in")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if isinstance(ctx, PersistenceWriteIn) and isinstance(ctx.record, StateRecord):
            record = ctx.record.model_copy(update={"summary": f"deploy {INJECTED_CREDENTIAL}"})
            return ctx.model_copy(update={"record": record})
        return None


veto_step_b = VetoStepB()
skip_store = SkipStore()
inject_credential = InjectCredential()


class FlakyFirstAttempt:
    """Fails the first attempt of every tool call (as a broken hook server would), so the
    activity fails and the workflow's retry policy decides what happens next."""

    name = "flaky-first-attempt"
    priority = 100
    points = frozenset({HookPoint.parse("tool.invoked.pre")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if isinstance(ctx, ToolInvokedPre) and ctx.attempt == 1:
            raise RuntimeError(f"transient failure of {ctx.call.name}")
        return None


RETRIES_SEEN: list[tuple[str, str, int]] = []
"""(point, activity, attempt) of every activity.failed/retried context seen."""


class RetryObserver:
    """Records failed attempts and makes every retry wait 10 ms."""

    name = "retry-observer"
    priority = 100
    points = frozenset(
        {HookPoint.parse("activity.failed.pre"), HookPoint.parse("activity.retried.pre")}
    )

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if isinstance(ctx, ActivityFailedPre):
            RETRIES_SEEN.append((str(point), ctx.activity, ctx.attempt))
        if isinstance(ctx, ActivityRetriedPre):
            RETRIES_SEEN.append((str(point), ctx.activity, ctx.attempt))
            return ctx.model_copy(update={"next_delay": timedelta(milliseconds=10)})
        return None


flaky_first_attempt = FlakyFirstAttempt()
retry_observer = RetryObserver()


class RewriteActionContext:
    """Rewrites the context of every A2UI action in an inbound message to {"size": "L"},
    as a policy hook that normalises what users send would."""

    name = "rewrite-action-context"
    priority = 100
    points = frozenset({HookPoint.parse("request.received.pre")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if not isinstance(ctx, RequestReceivedPre):
            return None
        message = Message()
        message.CopyFrom(ctx.message)
        for part in message.parts:
            body = part.data.struct_value
            if part.media_type == A2UI_MEDIA_TYPE and "action" in body:
                body.fields["action"].struct_value["context"] = {"size": "L"}
        return ctx.model_copy(update={"message": message})


rewrite_action_context = RewriteActionContext()


OFFERED: dict[str, list[tuple[ToolDefinition, ...]]] = {}
"""The tools each task's model calls offered, as llm.invoked.pre saw them, by task id."""


class OfferedTools:
    """Notes the tools of every model call at llm.invoked.pre (where plugins see them)."""

    name = "offered-tools"
    priority = 100
    points = frozenset({HookPoint.parse("llm.invoked.pre")})

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        if isinstance(ctx, LLMInvokedPre):
            OFFERED.setdefault(ctx.task_id, []).append(ctx.request.tools)
        return None


offered_tools = OfferedTools()

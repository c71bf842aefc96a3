"""In-process hook executors that test plugins name by import path."""

from __future__ import annotations

from tiny_harness.harness.hooks import (
    AbortReason,
    HookAbort,
    HookContext,
    HookPoint,
    PersistenceWriteIn,
    ToolInvokedPre,
)

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


veto_step_b = VetoStepB()
skip_store = SkipStore()

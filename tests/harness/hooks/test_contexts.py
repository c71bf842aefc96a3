"""Hook contexts: one per point, serialisable, frozen, strict about their fields."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tiny_harness.errors import UnknownHookPointError
from tiny_harness.harness.hooks import (
    CONTEXTS,
    HookContext,
    HookPoint,
    PlanCreatedIn,
    TaskStateChangedPre,
    ToolInvokedPre,
    context_type,
)

from .samples import IDS, every_context, tool_pre


def test_every_point_has_a_sample_context() -> None:
    assert {type(ctx) for ctx in every_context()} == set(CONTEXTS.values())


@pytest.mark.parametrize("ctx", every_context(), ids=lambda ctx: type(ctx).__name__)
def test_context_survives_the_wire(ctx: HookContext) -> None:
    wire = ctx.model_dump(mode="json")

    assert type(ctx).model_validate(wire) == ctx
    assert type(ctx).model_validate_json(ctx.model_dump_json()) == ctx


def test_context_type_reads_the_table() -> None:
    assert context_type(HookPoint.parse("tool.invoked.pre")) is ToolInvokedPre
    assert context_type(HookPoint.parse("plan.created.in")) is PlanCreatedIn


def test_context_type_refuses_a_point_without_a_context() -> None:
    with pytest.raises(UnknownHookPointError, match=r"compaction\.keep\.pre"):
        context_type(HookPoint.parse("compaction.keep.pre"))


def test_contexts_are_frozen() -> None:
    ctx = tool_pre()

    with pytest.raises(ValidationError):
        ctx.task_id = "another"  # type: ignore[misc]


def test_contexts_refuse_unknown_fields() -> None:
    wire = tool_pre().model_dump(mode="json") | {"participants": ["alice"]}

    with pytest.raises(ValidationError, match="participants"):
        ToolInvokedPre.model_validate(wire)


def test_task_state_change_takes_only_a2a_states() -> None:
    with pytest.raises(ValidationError, match="TaskState"):
        TaskStateChangedPre(**IDS, before=1, after=99)


def test_attempt_starts_at_one() -> None:
    assert tool_pre().attempt == 1
    with pytest.raises(ValidationError):
        ToolInvokedPre.model_validate(tool_pre().model_dump() | {"attempt": 0})

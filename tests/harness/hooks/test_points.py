"""Hook points: the catalogue, and parsing and printing `operation.phase`."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from tiny_harness.errors import TinyHarnessError, UnknownHookPointError
from tiny_harness.harness.hooks import CONTEXTS, HookPoint, Operation, Phase


def test_operation_catalogue_is_the_designs() -> None:
    assert [op.value for op in Operation] == [
        "request.received",
        "task.created",
        "task.state_changed",
        "context.created",
        "llm.invoked",
        "tool_calls.extracted",
        "tool.invoked",
        "system_one.invoked",
        "plan.created",
        "step.started",
        "step.finished",
        "subtask.spawned",
        "help.requested",
        "help.decided",
        "channel.sent",
        "channel.received",
        "compaction.trigger",
        "compaction.keep",
        "compaction.summarise",
        "persistence.read",
        "persistence.write",
        "activity.failed",
        "activity.retried",
        "heartbeat.tick",
        "shutdown",
        "skill.loaded",
        "skill.unloaded",
        "agent.invoked",
    ]
    assert [phase.value for phase in Phase] == ["pre", "in", "post"]


def test_point_prints_as_operation_dot_phase() -> None:
    assert str(HookPoint(Operation.TOOL_INVOKED, Phase.PRE)) == "tool.invoked.pre"
    assert str(HookPoint(Operation.SHUTDOWN, Phase.PRE)) == "shutdown.pre"


@pytest.mark.parametrize("point", list(CONTEXTS), ids=str)
def test_parse_reads_back_what_print_writes(point: HookPoint) -> None:
    assert HookPoint.parse(str(point)) == point


def test_parse_splits_at_the_last_dot() -> None:
    point = HookPoint.parse("tool_calls.extracted.pre")

    assert point.operation is Operation.TOOL_CALLS_EXTRACTED
    assert point.phase is Phase.PRE


def test_points_are_hashable_values() -> None:
    assert {HookPoint.parse("llm.invoked.post"), HookPoint.parse("llm.invoked.post")} == {
        HookPoint(Operation.LLM_INVOKED, Phase.POST)
    }


@pytest.mark.parametrize(
    "text",
    ["tool.invoked.during", "tool.summoned.pre", "shutdown", "", ".pre", "tool.invoked."],
)
def test_parse_refuses_unknown_operation_or_phase(text: str) -> None:
    with pytest.raises(UnknownHookPointError) as raised:
        HookPoint.parse(text)

    assert isinstance(raised.value, TinyHarnessError)
    assert raised.value.code == "hook_point_unknown"


def test_configuration_may_name_points_as_text() -> None:
    class HookDef(BaseModel):
        points: tuple[HookPoint, ...]

    parsed = HookDef.model_validate({"points": ["tool.invoked.pre", "plan.created.in"]})

    assert parsed.points == (
        HookPoint.parse("tool.invoked.pre"),
        HookPoint.parse("plan.created.in"),
    )
    with pytest.raises(ValidationError, match="no known operation"):
        HookDef.model_validate({"points": ["tool.summoned.pre"]})

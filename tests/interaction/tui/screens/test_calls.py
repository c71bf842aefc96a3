"""The timeline's arithmetic: where each call sits on the axis, and what the calls add up to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tiny_harness.harness.tasks.calls import CallEvent, CallKind, CallState
from tiny_harness.interaction.tui.screens.calls import bars_of, totals_of

AT = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)


def call(name: str, kind: CallKind, offset_ms: int, duration_ms: int | None) -> CallEvent:
    return CallEvent(
        call_id=name,
        kind=kind,
        name=name,
        state=CallState.STARTED if duration_ms is None else CallState.COMPLETED,
        started_at=AT + timedelta(milliseconds=offset_ms),
        duration_ms=duration_ms,
        input_tokens=100 if kind is CallKind.MODEL else None,
        output_tokens=5 if kind is CallKind.MODEL else None,
    )


def test_each_call_sits_where_it_started_and_takes_its_share_of_the_axis() -> None:
    calls = [
        call("model-1", CallKind.MODEL, 0, 100),
        call("lookup", CallKind.TOOL, 100, 100),
        call("model-2", CallKind.MODEL, 200, 200),
    ]
    assert bars_of(calls, width=40) == [(0, 10), (10, 10), (20, 20)]
    totals = totals_of(calls)
    assert (totals.model_calls, totals.tool_calls) == (2, 1)
    assert (totals.input_tokens, totals.output_tokens, totals.span_ms) == (200, 10, 400)
    assert totals.cost_usd is None


def test_a_running_call_reaches_the_end_and_a_short_one_still_shows() -> None:
    calls = [call("model-1", CallKind.MODEL, 0, 1000), call("lookup", CallKind.TOOL, 999, None)]
    assert bars_of(calls, width=40) == [(0, 40), (39, 1)]
    assert bars_of([], width=40) == []

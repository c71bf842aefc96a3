"""`OpenCalls`: what the o11y hooks hold for each model or tool call, from pre to post.

`SpanHooks` holds a span and `MetricHooks` a start time for every call between its pre and
post points. A call is known by its operation, task id and correlation id (`call_key`).
A body that raises never reaches post, so at most `MAX_OPEN` calls are held: a call opened
again (the activity's retry) lets its earlier value go, and past the bound the oldest goes.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from tiny_harness.harness.hooks import HookContext, HookPoint, Operation, Phase

PRIORITY: Final = -1_000_000
"""Before every other executor at pre, so what the o11y hooks measure covers their work too."""
MAX_OPEN: Final = 1024
"""Calls held at once (between their pre and post points), at most."""
CALL_POINTS: Final = frozenset(
    HookPoint(operation, phase)
    for operation in (Operation.LLM_INVOKED, Operation.TOOL_INVOKED)
    for phase in (Phase.PRE, Phase.POST)
)
"""The points of the calls the o11y hooks observe: model and tool calls, pre and post."""

type CallKey = tuple[Operation, str, str]


def call_key(point: HookPoint, ctx: HookContext) -> CallKey:
    """The call `ctx` is part of, the same at its pre and its post point."""
    return (point.operation, ctx.task_id, ctx.correlation_id)


class OpenCalls[T]:
    """A value per open call, bounded by `MAX_OPEN`."""

    def __init__(self) -> None:
        self._held: OrderedDict[CallKey, T] = OrderedDict()

    def open(self, key: CallKey, value: T) -> list[T]:
        """Hold `value` for the call `key`; the values let go to make room (the call's own
        earlier value first, then the oldest)."""
        dropped: list[T] = []
        earlier = self._held.pop(key, None)
        if earlier is not None:
            dropped.append(earlier)
        while len(self._held) >= MAX_OPEN:
            dropped.append(self._held.popitem(last=False)[1])
        self._held[key] = value
        return dropped

    def close(self, key: CallKey) -> T | None:
        """The value held for the call `key`, no longer held; None if there is none."""
        return self._held.pop(key, None)

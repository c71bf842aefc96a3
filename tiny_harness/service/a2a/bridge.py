"""The event bridge: a task's log in the store, followed as an async stream of A2A events.

    store.read_log(cursor) ───► yield each ─► nothing new? ─► gateway.wait_for_log(cursor)
            ▲                                                  (a write through this store
            └──────────────────────────────────────────────────  wakes it at once; another
                                                                  process's, within a poll;
                                                                  a workflow that ended
                                                                  outside its loop, once its
                                                                  end is stored)

The workflow writes its log to the store as it grows, so reading adds nothing to its
history, however many readers there are or however long they wait. The cursor is the
event's sequence number, gap-free from 0 across continue-as-new runs: a reader that
reconnects, a server that restarted, or a run that rolled over all resume from the same
number.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Final

from a2a.types import StreamResponse

from tiny_harness.harness.tasks.states import FINAL, PAUSED
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.payloads import LoggedEvent
from tiny_harness.service.durable.workflows.events import state_of

WAIT_SECONDS: Final = 30.0
"""How long a reader waits for its log before it reads it again anyway."""


async def follow(gateway: TaskGateway, task_id: str, cursor: int) -> AsyncIterator[StreamResponse]:
    """Yield the task's events from `cursor` on until the stream ends: after a final event,
    or after an INPUT_REQUIRED/AUTH_REQUIRED event that is the newest in the log (a replay
    runs past earlier pauses to the newest state)."""
    async for logged in _logged(gateway, task_id, cursor, ends=_ends_stream):
        yield logged.event


async def logged_events(
    gateway: TaskGateway, task_id: str, cursor: int
) -> AsyncIterator[LoggedEvent]:
    """Yield the task's events from `cursor` on, with their sequence numbers, through every
    pause (INPUT_REQUIRED, AUTH_REQUIRED) until a final event or the end of a final log."""
    async for logged in _logged(gateway, task_id, cursor, ends=_is_final):
        yield logged


async def _logged(
    gateway: TaskGateway,
    task_id: str,
    cursor: int,
    *,
    ends: Callable[[LoggedEvent, int], bool],
) -> AsyncIterator[LoggedEvent]:
    """The log from `cursor` on, until `ends` (given each event and the log's length when
    it was read) says an event ends it, or a final task's log runs out."""
    store = gateway.store
    while True:
        page = await store.read_log(task_id, cursor)
        length = max(page.length, cursor + len(page.events))
        for event in page.events:
            logged = LoggedEvent(seq=cursor, event=event)
            yield logged
            cursor += 1
            if ends(logged, length):
                return
        if page.events:
            continue
        # A task the store has not seen yet is waited for like a quiet one: a push config
        # given with a task's first message has its courier reading before the task's first
        # step is written (and is deleted, ending the courier, if the task never starts).
        if page.final and page.length <= cursor:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(WAIT_SECONDS):
                await gateway.wait_for_log(task_id, cursor)


def _is_final(logged: LoggedEvent, length: int) -> bool:
    return state_of(logged.event) in FINAL


def _ends_stream(logged: LoggedEvent, length: int) -> bool:
    state = state_of(logged.event)
    if state in FINAL:
        return True
    return state in PAUSED and logged.seq >= length - 1

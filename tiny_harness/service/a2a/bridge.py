"""The event bridge: a task's durable event log, followed as an async stream of A2A events.

It watches the workflow (`TaskWorkflow.watch`, an update that returns as soon as the log
grows past the reader's cursor), so an event reaches the client as soon as the workflow
records it. The cursor is the event's sequence number, which is gap-free from 0 across
continue-as-new runs; so a reader that reconnects, a server that restarted, or a run that
rolled over all resume from the same number. When the workflow cannot take a watch (closed,
or at its limit of in-flight updates), the bridge reads the log by query or from the store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Final

from a2a.types import StreamResponse

from tiny_harness.errors import WatchUnavailableError
from tiny_harness.harness.tasks.states import FINAL, PAUSED
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.payloads import EventPage, LoggedEvent
from tiny_harness.service.durable.workflows.events import state_of

logger = logging.getLogger(__name__)

FALLBACK_POLL_SECONDS: Final = 0.2
"""How often the bridge reads when watching is not possible and nothing new was found."""

ROLLOVER_PAUSE_SECONDS: Final = 0.05
"""How long the bridge waits for a run that is rolling over to continue-as-new."""

READS_BEFORE_WATCHING_AGAIN: Final = 10
"""Reads (by query, no history cost) a reader makes after its watch was refused or released
to make room for others, before it tries to watch again."""


async def follow(
    gateway: TaskGateway, task_id: str, cursor: int, first: EventPage | None = None
) -> AsyncIterator[StreamResponse]:
    """Yield the task's events from `cursor` on until the stream ends.

    `first`, when given, is a page from `cursor` already in hand (an inbox receipt's). The
    stream ends after a final event, or after an INPUT_REQUIRED/AUTH_REQUIRED event that
    is the newest in the log: a replay runs past earlier pauses to the newest state.
    """
    async for logged in _logged(gateway, task_id, cursor, first, ends=_ends_stream):
        yield logged.event


async def logged_events(
    gateway: TaskGateway, task_id: str, cursor: int
) -> AsyncIterator[LoggedEvent]:
    """Yield the task's events from `cursor` on, with their sequence numbers, through every
    pause (INPUT_REQUIRED, AUTH_REQUIRED) until a final event or the end of a final log."""
    async for logged in _logged(gateway, task_id, cursor, None, ends=_is_final):
        yield logged


async def _logged(
    gateway: TaskGateway,
    task_id: str,
    cursor: int,
    first: EventPage | None,
    *,
    ends: Callable[[LoggedEvent, EventPage], bool],
) -> AsyncIterator[LoggedEvent]:
    """The log from `cursor` on, until `ends` says an event ends it or a final log runs out."""
    reader = _Reader(gateway, task_id)
    page = first
    while True:
        if page is None or not page.events:
            page = await reader.next_page(cursor)
        for logged in page.events:
            yield logged
            cursor = logged.seq + 1
            if ends(logged, page):
                return
        if not page.events and page.closing and page.state in FINAL:
            return
        page = None


def _is_final(logged: LoggedEvent, page: EventPage) -> bool:
    return state_of(logged.event) in FINAL


class _Reader:
    """Pages of one task's log: watched while the workflow takes watches, else read."""

    def __init__(self, gateway: TaskGateway, task_id: str) -> None:
        self._gateway = gateway
        self._task_id = task_id
        self._reads_left = 0

    async def next_page(self, cursor: int) -> EventPage:
        if self._reads_left == 0:
            try:
                page = await self._gateway.watch(self._task_id, cursor)
            except WatchUnavailableError as error:
                logger.debug("task %s: reading, not watching: %s", self._task_id, error.message)
                self._reads_left = READS_BEFORE_WATCHING_AGAIN
            else:
                if page.events or page.closing:
                    if page.closing and not page.events:
                        await asyncio.sleep(ROLLOVER_PAUSE_SECONDS)
                    return page
                # Released to make room for other readers: read for a while instead.
                self._reads_left = READS_BEFORE_WATCHING_AGAIN
        self._reads_left -= 1
        page = await self._gateway.read(self._task_id, cursor)
        if not page.events:
            await asyncio.sleep(FALLBACK_POLL_SECONDS)
        return page


def _ends_stream(logged: LoggedEvent, page: EventPage) -> bool:
    state = state_of(logged.event)
    if state in FINAL:
        return True
    return state in PAUSED and logged.seq == page.log_length - 1

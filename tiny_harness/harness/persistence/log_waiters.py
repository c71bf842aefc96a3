"""`LogWaiters`: the readers of one store process waiting for a task's log to grow.

A write through the store wakes them at once with the length it left (`wake`), so they
need no read; a write by another process is noticed by reading the length again, from
every `FIRST_POLL_SECONDS`, doubling while nothing changes, up to every
`LAST_POLL_SECONDS` (a store that hears other processes' writes, as Postgres does by
notification, wakes its waiters for those too, and the poll is only the safety net).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

FIRST_POLL_SECONDS = 0.05
LAST_POLL_SECONDS = 1.0


class LogWaiters:
    """Waiters by task id."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Future[int]]] = {}

    async def wait(self, task_id: str, beyond: int, length: Callable[[], Awaitable[int]]) -> None:
        """Return once the log holds more than `beyond` events: woken by `wake`, or by
        `length` (the stored length, read again while nothing wakes the waiter)."""
        loop = asyncio.get_running_loop()
        poll = FIRST_POLL_SECONDS
        while True:
            woken: asyncio.Future[int] = loop.create_future()
            self._waiters.setdefault(task_id, set()).add(woken)
            try:
                if await length() > beyond:
                    return
                with contextlib.suppress(TimeoutError):
                    if await asyncio.wait_for(woken, poll) > beyond:
                        return
                poll = min(poll * 2, LAST_POLL_SECONDS)
            finally:
                self._forget(task_id, woken)

    def wake(self, task_id: str, length: int) -> None:
        """Tell the task's waiters its log now holds `length` events."""
        for waiter in self._waiters.get(task_id, ()):
            if not waiter.done():
                waiter.set_result(length)

    def _forget(self, task_id: str, waiter: asyncio.Future[int]) -> None:
        waiters = self._waiters.get(task_id)
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del self._waiters[task_id]

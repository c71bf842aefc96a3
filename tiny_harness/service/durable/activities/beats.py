"""`heartbeating`: how a long activity tells Temporal its worker is still alive.

A model or tool call can take minutes; beating a few times per heartbeat timeout lets
Temporal notice a dead worker within that timeout and run the next attempt elsewhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from temporalio import activity

HEARTBEATS_PER_TIMEOUT = 3
"""A long call heartbeats this many times per heartbeat timeout (10 s for the default 30 s)."""


@asynccontextmanager
async def heartbeating(details: Callable[[], object] | None = None) -> AsyncIterator[None]:
    """Heartbeat while the body runs, so a dead worker is noticed within the heartbeat timeout.

    `details`, when given, is read at every beat and sent along: the progress the next
    attempt resumes from (`activity.info().heartbeat_details`) if this worker dies.
    """

    timeout = activity.info().heartbeat_timeout
    every = timeout.total_seconds() / HEARTBEATS_PER_TIMEOUT if timeout else 10.0

    async def beat() -> None:
        while True:
            if details is None:
                activity.heartbeat()
            else:
                activity.heartbeat(details())
            await asyncio.sleep(every)

    beater = asyncio.create_task(beat())
    try:
        yield
    finally:
        beater.cancel()

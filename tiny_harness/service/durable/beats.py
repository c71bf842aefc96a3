"""`heartbeating`: how a long activity tells Temporal its worker is still alive.

A model or tool call can take minutes; beating a few times per heartbeat timeout lets
Temporal notice a dead worker within that timeout and run the next attempt elsewhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio import activity

HEARTBEATS_PER_TIMEOUT = 3
"""A long call heartbeats this many times per heartbeat timeout (10 s for the default 30 s)."""


@asynccontextmanager
async def heartbeating() -> AsyncIterator[None]:
    """Heartbeat while the body runs, so a dead worker is noticed within the heartbeat timeout."""

    timeout = activity.info().heartbeat_timeout
    every = timeout.total_seconds() / HEARTBEATS_PER_TIMEOUT if timeout else 10.0

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(every)

    beater = asyncio.create_task(beat())
    try:
        yield
    finally:
        beater.cancel()

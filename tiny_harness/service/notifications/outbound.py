"""`open_outbound`: push to our clients, put together once for a server and its worker.

The handler gets `registrations` (the four push-config operations) and the worker gets
`activities` (delivery); both share the encrypted config store and the URL guard, and
delivery has its own HTTP/1.1 client that never follows redirects and ignores proxy
settings from the environment (through a proxy, the certificate would be checked against
the pinned address instead of the receiver's name; see url_guard.py).
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import timedelta

import httpx
from temporalio.client import Client

from tiny_harness.harness.persistence.push_config_store import PushConfigStore
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.notifications.registrations import PushRegistrations
from tiny_harness.service.notifications.sender import PushActivities
from tiny_harness.service.notifications.url_guard import UrlGuard
from tiny_harness.service.o11y.counters import Counters


@dataclass(frozen=True)
class Outbound:
    """Push to our clients: the operations for the handler, the activity for the worker."""

    registrations: PushRegistrations
    activities: PushActivities


async def open_outbound(
    client: Client,
    gateway: TaskGateway,
    configs: PushConfigStore,
    stack: AsyncExitStack,
    *,
    task_queue: str,
    allow: tuple[str, ...],
    window: timedelta,
    counters: Counters | None = None,
) -> Outbound:
    """Push for the tasks of `task_queue`; the HTTP client closes with `stack`. Delivery
    attempts are counted on `counters`."""
    guard = UrlGuard(allow)
    http = await stack.enter_async_context(
        httpx.AsyncClient(follow_redirects=False, trust_env=False)
    )
    return Outbound(
        registrations=PushRegistrations(
            client, task_queue=task_queue, configs=configs, guard=guard, window=window
        ),
        activities=PushActivities(gateway, configs, guard, http, counters),
    )

"""`Providers`: the infrastructure an executor or activity may use (HTTP, clock, randomness).

These are not hooks: they are given to the harness at construction and reach activities
through the worker. Workflow code must never use them; it has `workflow.now()` and
`workflow.random()`. Replace them in tests to make time and randomness deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx


@dataclass(frozen=True, kw_only=True)
class Providers:
    """The harness's infrastructure.

    `http_client_factory` returns a new client each call; whoever calls it closes the
    client. `clock` returns an aware datetime in UTC.
    """

    http_client_factory: Callable[[], httpx.AsyncClient]
    clock: Callable[[], datetime]
    random: random.Random


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


def default_providers() -> Providers:
    """Real infrastructure: plain httpx clients, the system clock, an unseeded generator."""
    return Providers(
        http_client_factory=httpx.AsyncClient,
        clock=utc_now,
        random=random.Random(),  # noqa: S311 - jitter and sampling, never secrets
    )

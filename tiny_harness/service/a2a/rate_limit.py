"""A per-peer request rate limit, enforced before any route runs: a flood from one address
is refused with 429 and never reaches a handler, Temporal or the store.

    request ──> RateLimitMiddleware ──(a token for the peer)──> body limits ──> routes
                      │ (none left)
                      └──> 429 + Retry-After, nothing read, nothing started

Each peer address (the ASGI `client` host, as the socket saw it) has a token bucket: up to
`burst` requests at once, refilled at `per_second`. A bucket that has refilled completely is
the same as no bucket, so it is dropped; the map holds only peers seen within the last
`burst / per_second` seconds, and never more than `max_peers`. Forwarded-for headers are not
read: behind a reverse proxy the proxy is one peer.

This module must not read a request body or call anything behind the app: refusing has to
stay cheaper than serving.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from tiny_harness.errors import ConfigError

logger = logging.getLogger(__name__)

Clock = Callable[[], float]
"""Seconds from an arbitrary origin that never goes backwards (`time.monotonic`)."""

MAX_PEERS: Final = 10_000
"""How many peers' buckets are kept at most; past it, the least recently seen is dropped."""

UNKNOWN_PEER: Final = ""
"""The key of requests whose ASGI scope has no client address (a Unix socket, say): the
server cannot tell such peers apart, so they share one bucket."""


@dataclass(frozen=True, slots=True)
class RateLimit:
    """`burst` requests at once per peer, refilled at `per_second` requests a second."""

    per_second: float
    burst: int

    def __post_init__(self) -> None:
        if not (self.per_second > 0 and math.isfinite(self.per_second)):
            raise ConfigError(
                f"the rate limit must be a positive number of requests per second, "
                f"not {self.per_second}",
                variable="server.rate_limit_per_second",
            )
        if self.burst < 1:
            raise ConfigError(
                f"the rate limit burst must be at least 1, not {self.burst}",
                variable="server.rate_limit_burst",
            )

    @classmethod
    def of(cls, per_second: float, burst: int) -> RateLimit | None:
        """The limit the two settings describe; None when `per_second` is 0 (no limit)."""
        return None if per_second == 0 else cls(per_second, burst)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float
    refused: bool = False
    """Whether the peer's last request was refused: the first refusal of a run is logged."""


class RateLimiter:
    """Token buckets keyed by peer address. Not thread-safe: one event loop uses it."""

    def __init__(
        self, limit: RateLimit, *, clock: Clock = time.monotonic, max_peers: int = MAX_PEERS
    ) -> None:
        self.limit = limit
        self._clock = clock
        self._max_peers = max_peers
        self._refill_seconds = limit.burst / limit.per_second
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        """Least recently seen first, so idle peers are found at the front."""

    def __len__(self) -> int:
        """How many peers have a bucket now."""
        return len(self._buckets)

    def take(self, peer: str) -> float | None:
        """Take one token from `peer`'s bucket: None when there was one (admit the request),
        else the seconds until there will be (refuse it; nothing is taken)."""
        now = self._clock()
        self._evict_idle(now)
        bucket = self._buckets.get(peer)
        if bucket is None:
            if len(self._buckets) >= self._max_peers:
                # A flood of distinct addresses: forget the stalest peer. It starts afresh
                # with a full bucket, which is lenient to it, but memory stays bounded.
                self._buckets.popitem(last=False)
            bucket = _Bucket(tokens=self.limit.burst, updated=now)
            self._buckets[peer] = bucket
        else:
            self._buckets.move_to_end(peer)
            elapsed = max(0.0, now - bucket.updated)
            bucket.tokens = min(self.limit.burst, bucket.tokens + elapsed * self.limit.per_second)
            bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            bucket.refused = False
            return None
        if not bucket.refused:
            bucket.refused = True
            logger.warning("rate limit: refusing requests from %s", peer or "an unknown peer")
        return (1 - bucket.tokens) / self.limit.per_second

    def _evict_idle(self, now: float) -> None:
        # A bucket untouched for `burst / per_second` seconds is full again: dropping it
        # changes nothing for its peer.
        while self._buckets:
            bucket = next(iter(self._buckets.values()))
            if now - bucket.updated < self._refill_seconds:
                return
            self._buckets.popitem(last=False)


def peer_of(scope: Scope) -> str:
    """The bucket of a request by its peer address."""
    client = scope.get("client")
    return str(client[0]) if client else UNKNOWN_PEER


def caller_of(scope: Scope) -> str | None:
    """The bucket of an authenticated request by its participant (None: not authenticated,
    so no bucket). Read after authentication has put the user in the scope."""
    user = scope.get("user")
    if user is None or not user.is_authenticated:
        return None
    return f"participant:{user.display_name}"


class RateLimitMiddleware:
    """Refuse an HTTP request with 429 and `Retry-After` when its bucket (`key`: its peer
    address, or its authenticated caller) has no token left; pass everything else (lifespan
    included, and a request `key` gives no bucket) through unchanged."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        limiter: RateLimiter,
        key: Callable[[Scope], str | None] = peer_of,
        source: str = "this address",
    ) -> None:
        self.app = app
        self.limiter = limiter
        self._key = key
        self._source = source

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        bucket = self._key(scope) if scope["type"] == "http" else None
        wait = None if bucket is None else self.limiter.take(bucket)
        if wait is None:
            await self.app(scope, receive, send)
            return
        await too_many_requests(wait, self._source)(scope, receive, send)


def too_many_requests(wait: float, source: str = "this address") -> JSONResponse:
    """The refusal: an A2A error body (as the body limit's), and whole seconds to wait."""
    seconds = max(1, math.ceil(wait))
    text = f"Too many requests from {source}: try again in {seconds} s"
    body = {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": text}}
    return JSONResponse(body, status_code=429, headers={"Retry-After": str(seconds)})

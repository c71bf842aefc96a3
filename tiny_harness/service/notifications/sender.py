"""`PushActivities.deliver_pushes`: post a task's events to one client's push receiver.

One call is a slice of at most `SLICE_SECONDS`: it follows the task's log from a cursor
(through every pause, until the final event) and posts each event as the A2A
`StreamResponse` JSON, in order, each only after the one before it was answered. Per event:

    config read from the encrypted store   (gone: delivery ends; token opened only here)
    URL guard, resolved now                (refused: this event is dropped, logged)
    POST to the checked address            2xx delivered · 408/425/429/5xx/transport: retry
                                           other 3xx/4xx: the receiver refused it, dropped

A receiver that keeps failing is retried with backoff (1 s doubling to 60 s) until it has
been failing for the delivery window; then the event and every event already in the log
behind it are dropped (logged), and delivery goes on with the next new event under a fresh
window. So a receiver that comes back within the window gets every event in order, and a
dead one never holds more than the window.

Heartbeats carry the slice's progress, so when a worker dies the next attempt resumes from
the last event handled, not from the slice's start.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Final

import httpx
from a2a.types import StreamResponse, TaskPushNotificationConfig
from google.protobuf import json_format
from temporalio import activity

from tiny_harness.errors import PushKeyError, PushUrlRefusedError
from tiny_harness.harness.persistence.push_config_store import PushConfigStore
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.service.a2a.bridge import logged_events
from tiny_harness.service.a2a.doorbell import PUSH_TOKEN_HEADER
from tiny_harness.service.durable.activities.beats import heartbeating
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.workflows.events import state_of
from tiny_harness.service.notifications.payloads import DeliveryInput, DeliveryProgress
from tiny_harness.service.notifications.url_guard import UrlGuard, post_pinned
from tiny_harness.service.o11y.counters import Counters

logger = logging.getLogger(__name__)

SLICE_SECONDS: Final = 600.0
"""How long one delivery activity runs before it returns its progress (and another starts)."""

FIRST_BACKOFF_SECONDS: Final = 1.0
MAX_BACKOFF_SECONDS: Final = 60.0
POST_TIMEOUT_SECONDS: Final = 10.0
"""How long one POST may take, connect to last byte."""

_RETRY_STATUSES: Final = frozenset({408, 425, 429})


class Verdict(StrEnum):
    """What became of one attempt to post one event."""

    DELIVERED = "delivered"
    REFUSED = "refused"
    """Dropped without retry: the guard refused the URL, or the receiver refused the event."""
    FAILED = "failed"
    """Try again: the receiver is down, overloaded or slow."""


class _ConfigGoneError(Exception):
    """The config was deleted (or cannot be opened): delivery ends."""


class PushActivities:
    """The delivery activity, with what it needs: the task log, the configs, the guard."""

    def __init__(
        self,
        gateway: TaskGateway,
        configs: PushConfigStore,
        guard: UrlGuard,
        http: httpx.AsyncClient,
        counters: Counters | None = None,
    ) -> None:
        self._gateway = gateway
        self._configs = configs
        self._guard = guard
        self._http = http
        self._counters = counters or Counters()

    def all(self) -> list[Callable[[DeliveryInput], Awaitable[DeliveryProgress]]]:
        """Every activity body, for the worker."""
        return [self.deliver_pushes]

    @activity.defn(name="deliver_pushes")
    async def deliver_pushes(self, given: DeliveryInput) -> DeliveryProgress:
        """Deliver events from `given.cursor` on for up to `SLICE_SECONDS`."""
        run = _Slice(self, given, _resumed(given))
        async with heartbeating(details=run.progress):
            try:
                async with asyncio.timeout(SLICE_SECONDS):
                    await run.deliver_all()
            except TimeoutError:
                pass  # the slice is over; the courier starts the next one from here
        return run.progress()

    async def post(self, config: TaskPushNotificationConfig, event: StreamResponse) -> Verdict:
        """One attempt to post `event` to `config`'s receiver (counted by its verdict)."""
        verdict = await self._attempt(config, event)
        self._counters.push_sent(verdict.value)
        return verdict

    async def _attempt(self, config: TaskPushNotificationConfig, event: StreamResponse) -> Verdict:
        try:
            async with asyncio.timeout(POST_TIMEOUT_SECONDS):
                target = await self._guard.check(config.url)
        except TimeoutError:
            logger.info("push to task %s config %s: resolving timed out", config.task_id, config.id)
            return Verdict.FAILED
        except PushUrlRefusedError as error:
            logger.warning(
                "push to task %s config %s refused: %s", config.task_id, config.id, error.reason
            )
            return Verdict.REFUSED
        try:
            status = await post_pinned(
                self._http,
                target,
                json_body=json_format.MessageToDict(event),
                headers=_headers(config),
                timeout=POST_TIMEOUT_SECONDS,
            )
        except httpx.HTTPError as error:
            logger.info(
                "push to task %s config %s failed: %s",
                config.task_id,
                config.id,
                type(error).__name__,
            )
            return Verdict.FAILED
        if 200 <= status < 300:
            return Verdict.DELIVERED
        if status in _RETRY_STATUSES or status >= 500:
            return Verdict.FAILED
        logger.warning(
            "push to task %s config %s refused by the receiver: HTTP %d",
            config.task_id,
            config.id,
            status,
        )
        return Verdict.REFUSED

    async def config(self, task_id: str, config_id: str) -> TaskPushNotificationConfig:
        """The config with its secrets opened; `_ConfigGoneError` when it was deleted or its
        secrets cannot be opened any more (the key changed)."""
        try:
            config = await self._configs.for_dispatch(task_id, config_id)
        except PushKeyError:
            logger.exception("push config %s of task %s cannot be opened", config_id, task_id)
            raise _ConfigGoneError from None
        if config is None:
            raise _ConfigGoneError
        return config

    async def log_length(self, task_id: str) -> int:
        """How many events the task's log holds now."""
        snap = await self._gateway.snapshot(task_id, history_length=0)
        return 0 if snap is None else snap.version

    @property
    def gateway(self) -> TaskGateway:
        """Where the task's log is read."""
        return self._gateway


class _Slice:
    """One delivery slice's position and counts; the heartbeat reads `progress`."""

    def __init__(self, deps: PushActivities, given: DeliveryInput, start: DeliveryProgress) -> None:
        self._deps = deps
        self._given = given
        self._cursor = start.cursor
        self._failing_since = start.failing_since
        self._delivered = start.delivered
        self._dropped = start.dropped
        self._finished = False
        self._drop_before = 0

    def progress(self) -> DeliveryProgress:
        return DeliveryProgress(
            cursor=self._cursor,
            failing_since=self._failing_since,
            finished=self._finished,
            delivered=self._delivered,
            dropped=self._dropped,
        )

    async def deliver_all(self) -> None:
        task_id = self._given.task_id
        try:
            async for logged in logged_events(self._deps.gateway, task_id, self._cursor):
                if logged.seq < self._drop_before:
                    self._dropped += 1
                else:
                    await self._deliver(logged.event)
                self._cursor = logged.seq + 1
        except _ConfigGoneError:
            # Also how a courier ends whose task never started: the SendMessage that
            # registered it was refused, and its config deleted (its courier cancelled).
            logger.info("push config %s of task %s is gone", self._given.config_id, task_id)
        self._finished = True

    async def _deliver(self, event: StreamResponse) -> None:
        """Post `event` until it is delivered, refused, or the window runs out."""
        backoff = FIRST_BACKOFF_SECONDS
        while True:
            config = await self._deps.config(self._given.task_id, self._given.config_id)
            verdict = await self._deps.post(config, event)
            if verdict is not Verdict.FAILED:
                self._failing_since = None
                if verdict is Verdict.DELIVERED:
                    self._delivered += 1
                else:
                    self._dropped += 1
                return
            now = datetime.now(UTC)
            if self._failing_since is None:
                self._failing_since = now
            if now - self._failing_since >= self._given.window:
                await self._give_up(event)
                return
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)

    async def _give_up(self, event: StreamResponse) -> None:
        """The receiver has failed for the whole window: drop this event and the backlog."""
        self._drop_before = await self._deps.log_length(self._given.task_id)
        self._dropped += 1
        self._failing_since = None
        logger.warning(
            "push receiver of task %s config %s failed for %s; dropping events before %d "
            "(this one's state: %s)",
            self._given.task_id,
            self._given.config_id,
            self._given.window,
            self._drop_before,
            "final" if state_of(event) in FINAL else "not final",
        )


def _resumed(given: DeliveryInput) -> DeliveryProgress:
    """The progress an earlier attempt of this slice heartbeated, else the slice's start."""
    details = activity.info().heartbeat_details
    if details:
        try:
            return DeliveryProgress.model_validate(details[0])
        except ValueError:
            logger.exception("unreadable heartbeat details of a push delivery; starting over")
    return DeliveryProgress(cursor=given.cursor, failing_since=given.failing_since)


def _headers(config: TaskPushNotificationConfig) -> dict[str, str]:
    headers: dict[str, str] = {}
    if config.token:
        headers[PUSH_TOKEN_HEADER] = config.token
    auth = config.authentication
    if config.HasField("authentication") and auth.scheme and auth.credentials:
        headers["Authorization"] = f"{auth.scheme} {auth.credentials}"
    return headers

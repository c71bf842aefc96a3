"""The inbound push endpoint: a remote agent's push notification rings a stand-in's doorbell.

    POST /a2a/push/{task_id}  X-A2A-Notification-Token: <token>  body: a StreamResponse
      └─► PushBodyLimit   413 when the body is over MAX_PUSH_BYTES (declared or streamed)
      └─► PushReceiver    401 no token · 400 no StreamResponse or no remote task id
            └─► update "remote_push"(PushIn: sha256(token), remote task id, claimed state)
                on the workflow `task_id` names; its validator decides
                any refusal or error ─► 401 · accepted ─► 204

A push is a doorbell, never a payload (decision 008): the stand-in's validator compares
the digest in constant time and checks the remote task id and that it is still open; a
rejected update records nothing in history. The claimed state only tells the stand-in
whether to fetch again. Every refusal of a well-formed push is the same 401, so a caller
learns nothing about which check failed. The token itself goes nowhere: not into the
update argument, not into a log line, and the body is never logged either.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from datetime import timedelta
from typing import Final
from urllib.parse import quote

from a2a.types import StreamResponse
from google.protobuf import json_format
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from temporalio.client import Client

from tiny_harness.service.a2a.limits import read_capped, replay_body

# The general body limit's own helpers: a push is read the same way, only to a smaller limit.
from tiny_harness.service.durable.remote_payloads import REMOTE_PUSH_UPDATE, PushIn
from tiny_harness.service.o11y.counters import Counters

logger = logging.getLogger(__name__)

PUSH_PATH: Final = "/a2a/push/{task_id}"
PUSH_ROUTE: Final = "/a2a/push/{task_id:path}"
"""The route for `PUSH_PATH`: the server decodes `%2F` before routing, so an id with a `/`
in it (which `push_url` encodes) still reaches the endpoint whole."""
PUSH_TOKEN_HEADER: Final = "X-A2A-Notification-Token"  # noqa: S105 - a header name
MAX_PUSH_BYTES: Final = 65_536
UPDATE_TIMEOUT: Final = timedelta(seconds=10)
"""How long a push waits for the stand-in to take its update: a workflow whose worker is down
must not hold the connection open. A late-delivered doorbell is harmless."""

_PUSH_PREFIX: Final = PUSH_PATH.removesuffix("{task_id}")


def push_url(base_url: str, task_id: str) -> str:
    """The push URL for the local task `task_id` on a server reachable at `base_url`.

    The id is one percent-encoded path segment, so a `/` or `..` inside it cannot change the
    path. An id that *is* a dot segment (or empty) cannot be one, and is refused (ValueError).
    """
    if task_id in {"", ".", ".."}:
        raise ValueError(f"{task_id!r} cannot be a push URL's task id")
    return base_url.rstrip("/") + PUSH_PATH.format(task_id=quote(task_id, safe=""))


def token_digest(token: str) -> str:
    """The SHA-256 hex digest of `token`: the only form of a push token anything keeps."""
    return hashlib.sha256(token.encode()).hexdigest()


class PushReceiver:
    """Verifies an inbound push and wakes its stand-in; answers an HTTP status.

    Checks, in order: size (413), token present (401), body a StreamResponse naming a task
    (400), then the stand-in's `remote_push` update: any exception at all is 401, success 204.
    """

    def __init__(
        self,
        client: Client,
        *,
        update_timeout: timedelta = UPDATE_TIMEOUT,
        counters: Counters | None = None,
    ) -> None:
        self._client = client
        self._update_timeout = update_timeout.total_seconds()
        self.counters = counters or Counters()
        """Where accepted and refused pushes are counted (`PushBodyLimit` counts there too)."""

    async def receive(self, task_id: str, token: str | None, body: bytes) -> int:
        """The HTTP status for a push to the local task `task_id` carrying `token` and `body`."""
        if len(body) > MAX_PUSH_BYTES:
            return self._refused(task_id, "oversized", 413)
        if not token:
            return self._refused(task_id, "no-token", 401)
        push = _parse(body)
        if push is None:
            return self._refused(task_id, "malformed", 400)
        remote_task_id, claimed_state = push
        update = PushIn(
            token_digest=token_digest(token),
            remote_task_id=remote_task_id,
            claimed_state=claimed_state,
        )
        try:
            handle = self._client.get_workflow_handle(task_id)
            async with asyncio.timeout(self._update_timeout):
                await handle.execute_update(REMOTE_PUSH_UPDATE, update, result_type=None)
        except Exception as error:  # noqa: BLE001 - every refusal is one 401; logged below
            return self._refused(task_id, "unverified", 401, f" ({type(error).__name__})")
        self.counters.push_received()
        return 204

    def _refused(self, task_id: str, category: str, status: int, detail: str = "") -> int:
        self.counters.push_received(refused=category)
        return _refused(task_id, category + detail, status)


def _parse(body: bytes) -> tuple[str, int | None] | None:
    """The remote task id and claimed state of a StreamResponse body, or None."""
    try:
        event = json_format.Parse(body, StreamResponse(), ignore_unknown_fields=True)
    except (json_format.ParseError, ValueError):
        return None
    kind = event.WhichOneof("payload")
    state: int = 0
    if kind == "task":
        remote_task_id, state = event.task.id, event.task.status.state
    elif kind == "status_update":
        remote_task_id, state = event.status_update.task_id, event.status_update.status.state
    elif kind == "artifact_update":
        remote_task_id = event.artifact_update.task_id
    elif kind == "message":
        remote_task_id = event.message.task_id
    else:
        return None
    if not remote_task_id:
        return None
    # TASK_STATE_UNSPECIFIED (0) claims nothing.
    return remote_task_id, (int(state) or None)


def _refused(task_id: str, category: str, status: int) -> int:
    logger.info("push to task %r refused: %s", task_id, category)
    return status


class PushBodyLimit:
    """Refuse a push body over `max_bytes` with 413 before anything else reads it.

    It must sit outermost on the app: the general body limit inside it buffers every body up
    to the server's (much larger) request limit before any route runs. A declared
    Content-Length over the limit is refused without reading a byte; a chunked body is read
    only up to the limit. Requests to other paths pass through untouched.
    """

    def __init__(
        self, app: ASGIApp, *, max_bytes: int = MAX_PUSH_BYTES, counters: Counters | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.counters = counters or Counters()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or not path.startswith(_PUSH_PREFIX):
            await self.app(scope, receive, send)
            return
        task_id = path.removeprefix(_PUSH_PREFIX)
        body = await read_capped(scope, receive, self.max_bytes)
        if body == "gone":
            return
        if body == "too large":
            await self._refuse(task_id)(scope, receive, send)
            return
        await self.app(scope, replay_body(body, receive), send)

    def _refuse(self, task_id: str) -> Response:
        self.counters.push_received(refused="oversized")
        _refused(task_id, "oversized", 413)
        return Response(status_code=413)

"""SSE keep-alive: a stream waiting on a long step sends comment lines at the configured
interval on both bindings, and the a2a-sdk client reads such a stream as before.

SubscribeToTask on a task parked INPUT_REQUIRED replays its log and ends at once (the
newest event is the pause), so the waiting stream here is a task inside a slow model call.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from a2a.helpers import get_artifact_text
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import SubscribeToTaskRequest
from starlette.routing import BaseRoute, Mount, Route
from temporalio.client import Client

from tests.support import (
    BINDINGS,
    RunningHarness,
    collect,
    running_harness,
    send_request,
    states,
)
from tiny_harness.errors import ConfigError
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.a2a.keepalive import with_keepalive

KEEPALIVE = timedelta(seconds=0.3)
HEADERS = {"A2A-Version": "1.0", "Accept": "text/event-stream"}


def slow_step(seconds: float) -> str:
    """A script whose only model call takes `seconds`: no event flows meanwhile."""
    return f"turns:\n  - text: done slowly\n    delay_seconds: {seconds}\n"


async def start_in_background(harness: RunningHarness) -> str:
    """A task's id, answered before its work is done (its model call still running)."""
    client = await harness.client(streaming=False)
    request = send_request("take your time")
    request.configuration.return_immediately = True
    answer = await collect(client.send_message(request))
    return answer[0].task.id


def subscribe_request(harness: RunningHarness, binding: str, task_id: str) -> httpx.Request:
    if binding == "JSONRPC":
        body = {"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": task_id}}
        return harness.http.build_request(
            "POST", harness.url + "/", content=json.dumps(body), headers=HEADERS
        )
    return harness.http.build_request(
        "GET", f"{harness.url}/rest/tasks/{task_id}:subscribe", headers=HEADERS
    )


async def first_comment(harness: RunningHarness, request: httpx.Request) -> tuple[str, list[str]]:
    """The first SSE comment line on the stream, and the data lines before it."""
    response = await harness.http.send(request, stream=True)
    try:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        data: list[str] = []
        async for line in response.aiter_lines():
            if line.startswith(":"):
                return line, data
            if line.startswith("data:"):
                data.append(line)
        raise AssertionError(f"the stream ended without a comment after {data}")
    finally:
        await response.aclose()


async def test_a_waiting_stream_sends_comments_at_the_keepalive_on_both_bindings(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(
        temporal_client, tmp_path, slow_step(3), sse_keepalive=KEEPALIVE
    ) as harness:
        task_id = await start_in_background(harness)
        seen = await asyncio.gather(
            *(first_comment(harness, subscribe_request(harness, b, task_id)) for b in BINDINGS)
        )

    for comment, data in seen:
        assert comment.startswith(": ping")
        assert task_id in data[0]  # the stream opened with the task, then waited
        # The comment came while the model call was still running: no answer before it.
        assert not any("done slowly" in line or "COMPLETED" in line for line in data)


async def test_the_sdk_client_reads_a_stream_with_comments_to_the_end(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(
        temporal_client, tmp_path, slow_step(1.5), sse_keepalive=KEEPALIVE
    ) as harness:
        task_id = await start_in_background(harness)
        clients = [await harness.client(binding) for binding in BINDINGS]
        # A raw subscriber beside them sees the comments the SDK clients read past.
        raw = asyncio.create_task(
            first_comment(harness, subscribe_request(harness, "JSONRPC", task_id))
        )
        streams = await asyncio.gather(
            *(collect(c.subscribe(SubscribeToTaskRequest(id=task_id))) for c in clients)
        )
        comment, _ = await raw

    assert comment.startswith(": ping")
    for events in streams:
        assert states(events)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
        artifact = next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
        assert get_artifact_text(artifact) == "done slowly"


class _NoExecutor(AgentExecutor):
    """Never run: the routes are only looked at."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def shape(routes: Sequence[BaseRoute]) -> list[object]:
    """What routing sees of `routes`: kind, path, methods, name, and the same of mounts'."""
    out: list[object] = []
    for route in routes:
        if isinstance(route, Mount):
            out.append(("mount", route.path, shape(route.routes)))
        elif isinstance(route, Route):
            out.append(("route", route.path, route.methods, route.name))
        else:
            out.append(route)
    return out


def test_keepalive_keeps_every_sdk_route_as_routing_sees_it() -> None:
    handler = DefaultRequestHandler(
        agent_executor=_NoExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=build_agent_card("http://127.0.0.1:8080", model="demo", push=False),
    )
    sdk: list[BaseRoute] = [
        *create_jsonrpc_routes(handler, rpc_url="/"),
        *create_rest_routes(handler, path_prefix="/rest"),
    ]

    rebuilt = with_keepalive(sdk, KEEPALIVE)

    assert shape(rebuilt) == shape(sdk)
    assert any(isinstance(route, Mount) for route in rebuilt)  # the tenant mount is kept too
    assert all(new is not old for new, old in zip(rebuilt, sdk, strict=True))


@pytest.mark.parametrize("interval", [timedelta(0), timedelta(seconds=31)])
def test_keepalive_outside_0_to_30_seconds_is_refused(interval: timedelta) -> None:
    with pytest.raises(ConfigError) as caught:
        with_keepalive([], interval)
    assert caught.value.variable == "server.sse_keepalive"

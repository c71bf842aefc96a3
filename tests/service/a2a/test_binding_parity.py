"""The same sequence of operations gives the same results on both bindings.

Spec 5.1: an agent offering several bindings must return semantically equivalent results
and map errors consistently. One sequence runs through each binding with the SDK client:

    send (parks INPUT_REQUIRED) -> GetTask(historyLength=1) -> reply (COMPLETED) -> GetTask
    -> ListTasks(contextId) -> CancelTask of the completed task (error)
    -> SubscribeToTask of the completed task (error)

Each result is turned into JSON (camelCase, as on the wire), ids are replaced by their order
of first appearance, timestamps and call durations by a marker; then the two runs must be
equal, field by field.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path

from a2a.client import Client as A2AClient
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    ListTasksResponse,
    SubscribeToTaskRequest,
    TaskState,
)
from a2a.utils.errors import A2AError
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message as ProtoMessage
from temporalio.client import Client

from tests.support import ASKS_WHICH_SIZE, BINDINGS, collect, running_harness, send_request

type Json = bool | int | float | str | list[Json] | dict[str, Json] | None

ID_KEYS = frozenset({"id", "taskId", "contextId", "messageId", "artifactId"})
TIME_KEYS = frozenset({"timestamp", "startedAt"})
MEASURED_KEYS = frozenset({"durationMs"})
"""How long a call took differs from run to run: only its presence is compared."""


class Normaliser:
    """Replaces ids by `<id N>` (N: order of first appearance) and timestamps by `<time>`,
    in every result of one run, so two runs compare field by field."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}

    def __call__(self, value: Json, key: str = "") -> Json:
        if isinstance(value, dict):
            return {k: self(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v, key) for v in value]
        if isinstance(value, str) and key in TIME_KEYS:
            return "<time>"
        if key in MEASURED_KEYS:
            return "<measured>"
        if isinstance(value, str) and key in ID_KEYS:
            return self._ids.setdefault(value, f"<id {len(self._ids) + 1}>")
        if isinstance(value, str):
            for raw, placeholder in self._ids.items():
                value = value.replace(raw, placeholder)
        return value


def as_json(message: ProtoMessage) -> Json:
    converted: Json = MessageToDict(message)
    return converted


async def error_of(call: Awaitable[object]) -> Json:
    """The A2A error an awaited call raises, as its class name and message."""
    try:
        await call
    except A2AError as error:
        return {"error": type(error).__name__, "message": str(error)}
    return {"error": None}


async def settled_listing(client: A2AClient, context_id: str) -> ListTasksResponse:
    """ListTasks of the context once the store shows the task COMPLETED (it trails the
    stream briefly)."""
    for _ in range(200):
        page = await client.list_tasks(ListTasksRequest(context_id=context_id))
        if page.tasks and page.tasks[0].status.state == TaskState.TASK_STATE_COMPLETED:
            return page
        await asyncio.sleep(0.05)
    raise AssertionError("the listing never showed the task COMPLETED")


async def run_sequence(client: A2AClient) -> dict[str, Json]:
    """The sequence, each step's result as normalised JSON."""
    norm = Normaliser()
    results: dict[str, Json] = {}
    first = await collect(client.send_message(send_request("I want a shirt")))
    results["send"] = norm([as_json(event) for event in first])
    task = first[0].task
    parked = await client.get_task(GetTaskRequest(id=task.id, history_length=1))
    results["get parked, historyLength=1"] = norm(as_json(parked))
    reply = await collect(client.send_message(send_request("medium", task_id=task.id)))
    results["reply"] = norm([as_json(event) for event in reply])
    results["get completed"] = norm(as_json(await client.get_task(GetTaskRequest(id=task.id))))
    results["list by context"] = norm(as_json(await settled_listing(client, task.context_id)))
    results["cancel completed"] = norm(
        await error_of(client.cancel_task(CancelTaskRequest(id=task.id)))
    )
    results["subscribe completed"] = norm(
        await error_of(collect(client.subscribe(SubscribeToTaskRequest(id=task.id))))
    )
    return results


async def test_one_sequence_gives_the_same_results_on_both_bindings(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASKS_WHICH_SIZE) as harness:
        runs = {binding: await run_sequence(await harness.client(binding)) for binding in BINDINGS}
    jsonrpc, rest = runs["JSONRPC"], runs["HTTP+JSON"]
    assert list(jsonrpc) == list(rest)
    for step in jsonrpc:
        assert jsonrpc[step] == rest[step], step
    # The sequence did what it says, so equal results are not equally empty ones.
    parked = jsonrpc["get parked, historyLength=1"]
    assert isinstance(parked, dict)
    assert isinstance(parked["history"], list)
    assert len(parked["history"]) == 1
    assert jsonrpc["cancel completed"] == {
        "error": "TaskNotCancelableError",
        "message": "Task cannot be canceled",
    }
    subscribed = jsonrpc["subscribe completed"]
    assert isinstance(subscribed, dict)
    assert subscribed["error"] == "UnsupportedOperationError"
    listing = jsonrpc["list by context"]
    assert isinstance(listing, dict)
    assert listing["totalSize"] == 1

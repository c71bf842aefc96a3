"""API-key authentication (`[auth] mode = "api_key"`): every A2A call presents a key that
names its participant; without a valid one the answer is one 401, the same whatever was
wrong, before anything is read or started. The card, the health check and remote agents'
pushes stay public. Through the real server on 127.0.0.1, the real a2a-sdk client."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from a2a.client import Client as A2AClient
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.types import GetTaskRequest, ListTasksRequest
from a2a.utils.errors import TaskNotFoundError
from starlette.applications import Starlette
from starlette.routing import Route
from temporalio.client import Client

from tests.support import (
    ASKS_WHICH_SIZE,
    RunningHarness,
    as_participant,
    collect,
    running_harness,
    send_request,
    states,
)
from tiny_harness.harness.tasks.extension import ext_of
from tiny_harness.service.a2a.authentication import (
    PUBLIC_PREFIXES,
    ApiKeys,
    key_digest,
    new_key,
)

ALICE_KEY = new_key()
BOB_KEY = new_key()
KEYS = ApiKeys([(key_digest(ALICE_KEY), "alice"), (key_digest(BOB_KEY), "bob")])

JSONRPC_METHODS = (
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
)

BAD_CREDENTIALS = {
    "none": {},
    "empty bearer": {"Authorization": "Bearer"},
    "another scheme": {"Authorization": f"Basic {ALICE_KEY}"},
    "wrong key": {"Authorization": f"Bearer {new_key()}"},
    "wrong header key": {"X-API-Key": "th_not-a-key"},
    "a digest for a key": {"Authorization": f"Bearer {key_digest(ALICE_KEY)}"},
}


def protected_requests(app: Starlette) -> list[tuple[str, str]]:
    """(method, path) of every route of the app but the public ones, path parameters
    filled in: each A2A verb of both bindings, and /_monitor."""
    found: list[tuple[str, str]] = []
    for route in app.routes:
        if not isinstance(route, Route) or route.path.startswith(PUBLIC_PREFIXES):
            continue
        path = route.path
        for name in route.param_convertors:
            path = path.replace(f"{{{name}}}", "t-1").replace(f"{{{name}:path}}", "t-1")
        found += [(method, path) for method in sorted(route.methods or ()) if method != "HEAD"]
    return found


async def keyed_client(harness: RunningHarness, http: httpx.AsyncClient) -> A2AClient:
    config = ClientConfig(
        streaming=True, supported_protocol_bindings=["JSONRPC"], httpx_client=http
    )
    return await ClientFactory(config).create_from_url(harness.url)


async def test_every_a2a_verb_refuses_a_call_without_a_valid_key_alike_and_starts_nothing(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(
        temporal_client, tmp_path, ASKS_WHICH_SIZE, auth=KEYS, auth_mode="api_key"
    ) as h:
        assert isinstance(h.app, Starlette)
        requests = protected_requests(h.app)
        answers: set[tuple[int, str, str]] = set()
        for headers in BAD_CREDENTIALS.values():
            for method in JSONRPC_METHODS:
                body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"id": "t-1"}}
                response = await h.http.post(f"{h.url}/", json=body, headers=headers)
                answers.add(_answer(response))
            for method, path in requests:
                response = await h.http.request(method, h.url + path, headers=headers, json={})
                answers.add(_answer(response))
        started = await h.workflow_ids()

    paths = {path for _, path in requests}
    assert {"/rest/message:send", "/rest/tasks/t-1", "/_monitor"} <= paths
    assert answers == {
        (
            401,
            'Bearer realm="tiny-harness"',
            '{"error":"unauthenticated","message":"a valid credential is required"}',
        )
    }
    assert started == []


def _answer(response: httpx.Response) -> tuple[int, str, str]:
    return response.status_code, response.headers.get("www-authenticate", ""), response.text


async def test_the_card_and_health_check_need_no_key_and_the_card_declares_the_schemes(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(
        temporal_client, tmp_path, ASKS_WHICH_SIZE, auth=KEYS, auth_mode="api_key"
    ) as h:
        card = await h.http.get(f"{h.url}/.well-known/agent-card.json")
        health = await h.http.get(f"{h.url}/healthz")
        push = await h.http.post(f"{h.url}/a2a/push/t-1", json={})

    assert card.status_code == health.status_code == 200
    declared = card.json()
    assert declared["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
    assert declared["securitySchemes"]["api_key"]["apiKeySecurityScheme"]["name"] == "X-API-Key"
    assert declared["securityRequirements"] == [
        {"schemes": {"bearer": {}}},
        {"schemes": {"api_key": {}}},
    ]
    # The push route answers with its own token check, not the A2A routes' key check.
    assert push.status_code == 401
    assert "www-authenticate" not in push.headers


async def test_a_key_names_the_participant_whatever_the_call_asserts(
    temporal_client: Client, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with (
        running_harness(
            temporal_client, tmp_path, ASKS_WHICH_SIZE, auth=KEYS, auth_mode="api_key"
        ) as h,
        httpx.AsyncClient(headers={"Authorization": f"Bearer {ALICE_KEY}"}) as as_alice,
        httpx.AsyncClient(headers={"X-API-Key": BOB_KEY}) as as_bob,
    ):
        alice = await keyed_client(h, as_alice)
        bob = await keyed_client(h, as_bob)
        alices = await collect(alice.send_message(send_request("a shirt")))
        # Bob's key, claiming to be Alice: he is Bob.
        claims_alice: ClientCallContext = as_participant("alice")
        bobs = await collect(bob.send_message(send_request("a hat"), context=claims_alice))
        listed_by_bob = await bob.list_tasks(ListTasksRequest(), context=claims_alice)
        with pytest.raises(TaskNotFoundError):
            await bob.get_task(GetTaskRequest(id=alices[0].task.id), context=claims_alice)
        listed_by_alice = await alice.list_tasks(ListTasksRequest())

    assert states(alices)[-1] == states(bobs)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert [t.id for t in listed_by_bob.tasks] == [bobs[0].task.id]
    assert [t.id for t in listed_by_alice.tasks] == [alices[0].task.id]
    started_by_bob = ext_of(listed_by_bob.tasks[0])
    assert started_by_bob is not None
    assert [p.id for p in started_by_bob.participants] == ["bob"]
    assert any(
        "participant 'bob' asserted 'alice'" in record.getMessage() for record in caplog.records
    )

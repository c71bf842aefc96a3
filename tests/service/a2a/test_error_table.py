"""Every A2A error this server produces, checked on the wire of both bindings against the
specification's error table.

`SPEC` restates the A2A 1.0 specification (a2aproject/A2A `docs/specification.md`):
section 5.4 gives each A2A error its JSON-RPC code and HTTP status; sections 9.5 and 11.6
put a `google.rpc.ErrorInfo` in the error details (`error.data` on JSON-RPC,
`error.details` on HTTP+JSON) whose `reason` is the error's name in UPPER_SNAKE_CASE
without "Error" and whose `domain` is `a2a-protocol.org`. For the standard JSON-RPC errors
(section 9.5) the specification names a code but no ErrorInfo reason and no HTTP status;
there `SPEC` says None and the row states what the SDK sends instead, and where.

Each `ROWS` entry provokes one error with a raw request (httpx, no SDK client), on the
binding(s) that have one. Where the specification gives no value, or the server's answer
differs from it because of the SDK's mapping, the row carries an `Actual`: what the SDK
sends, and where (file:line in a2a-sdk 1.3). The one difference that is ours is marked
`ours` and runs xfail (strict), so its fix turns the row red until the mark goes.

The errors no row provokes, and why, are in `NOT_PROVOKED`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from tests.support import RunningHarness, collect, running_harness, send_request
from tiny_harness.service.a2a.app import create_app
from tiny_harness.service.a2a.card import build_agent_card

ANSWER = "turns:\n  - text: answered\n"
DOMAIN = "a2a-protocol.org"
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
DONE = "$DONE"
"""Stands for the id of a completed task in a request."""

V1: Final[Mapping[str, str]] = {"content-type": "application/json", "A2A-Version": "1.0"}


@dataclass(frozen=True)
class Spec:
    """What the specification says an error looks like on the wire."""

    rpc_code: int
    http_status: int | None  # None: the specification gives the error no HTTP status
    status: str | None  # the google.rpc.Status code an HTTP+JSON error body carries
    reason: str | None  # None: the specification names no ErrorInfo reason for it


FP = "FAILED_PRECONDITION"

SPEC: Final[Mapping[str, Spec]] = {
    # Section 5.4, A2A-specific errors (the gRPC column is the body's `status`, 11.6).
    "TaskNotFoundError": Spec(-32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"),
    "TaskNotCancelableError": Spec(-32002, 400, FP, "TASK_NOT_CANCELABLE"),
    "PushNotificationNotSupportedError": Spec(-32003, 400, FP, "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    "UnsupportedOperationError": Spec(-32004, 400, FP, "UNSUPPORTED_OPERATION"),
    "ContentTypeNotSupportedError": Spec(
        -32005, 400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"
    ),
    "InvalidAgentResponseError": Spec(-32006, 500, "INTERNAL", "INVALID_AGENT_RESPONSE"),
    "ExtendedAgentCardNotConfiguredError": Spec(
        -32007, 400, FP, "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
    ),
    "ExtensionSupportRequiredError": Spec(-32008, 400, FP, "EXTENSION_SUPPORT_REQUIRED"),
    "VersionNotSupportedError": Spec(-32009, 400, FP, "VERSION_NOT_SUPPORTED"),
    # Section 9.5, standard JSON-RPC errors; section 3.3.2 makes a validation error a 400
    # with gRPC INVALID_ARGUMENT.
    "JSONParseError": Spec(-32700, 400, "INVALID_ARGUMENT", None),
    "InvalidRequestError": Spec(-32600, None, None, None),
    "MethodNotFoundError": Spec(-32601, None, None, None),
    "InvalidParamsError": Spec(-32602, 400, "INVALID_ARGUMENT", None),
}

NOT_PROVOKED: Final[Mapping[str, str]] = {
    "ContentTypeNotSupportedError": "unreachable: the handler checks no part's media type",
    "InvalidAgentResponseError": "unreachable: each method answers only its own result type",
    "ExtensionSupportRequiredError": "unreachable: the card's only extension is not required",
    "ExtendedAgentCardNotConfiguredError": (
        "unreachable: the card declares no extended card, so GetExtendedAgentCard is "
        "UnsupportedOperation (spec 3.3.4), never this"
    ),
}


@dataclass(frozen=True)
class Call:
    """One raw HTTP request; `$DONE` in `path` or `body` is replaced by a completed task's id."""

    method: str
    path: str
    body: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: dict(V1))
    push_off: bool = False  # send it to the server built without outbound push


@dataclass(frozen=True)
class Actual:
    """What the server answers where it is not `SPEC`'s value, and why (file:line)."""

    why: str
    rpc_code: int | None = None
    http_status: int | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Row:
    error: str
    case: str
    rpc: Call | None
    rest: Call | None
    actual: Actual | None = None
    ours: str = ""  # a deviation that is ours to fix: the row is xfail (strict) until it is


def rpc(
    method: str,
    params: object = None,
    *,
    headers: Mapping[str, str] = V1,
    push_off: bool = False,
) -> Call:
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params or {}}
    return Call("POST", "/", json.dumps(body), headers=headers, push_off=push_off)


def without_version() -> dict[str, str]:
    return {"content-type": "application/json"}


SEND = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
NO_PARTS = {"message": {"messageId": "m-2", "role": "ROLE_USER", "parts": []}}
TO_DONE = {"message": {**SEND["message"], "messageId": "m-3", "taskId": DONE}}
TO_UNKNOWN = {"message": {**SEND["message"], "messageId": "m-5", "taskId": "no-such-task"}}
BAD_PARTS = {"message": {"messageId": "m-4", "role": "ROLE_USER", "parts": "not a list"}}
WITH_PUSH = {**SEND, "configuration": {"taskPushNotificationConfig": {"url": "https://x.test/"}}}
PUSH_CONFIG = json.dumps({"url": "https://receiver.example/hook"})
SDK_PARSE_ERROR = (
    "spec names no reason for a standard error; the SDK's REST binding answers a body it "
    "cannot parse with reason INVALID_REQUEST, whatever the cause "
    "(a2a/utils/error_handlers.py:120-126)"
)

ROWS: Final[tuple[Row, ...]] = (
    Row(
        "TaskNotFoundError",
        "GetTask of an unknown id",
        rpc("GetTask", {"id": "no-such-task"}),
        Call("GET", "/rest/tasks/no-such-task"),
    ),
    Row(
        "TaskNotFoundError",
        "a message to an unknown task",
        rpc("SendMessage", TO_UNKNOWN),
        Call("POST", "/rest/message:send", json.dumps(TO_UNKNOWN)),
    ),
    Row(
        "TaskNotCancelableError",
        "CancelTask of a completed task",
        rpc("CancelTask", {"id": DONE}),
        Call("POST", f"/rest/tasks/{DONE}:cancel", "{}"),
    ),
    Row(
        "UnsupportedOperationError",
        "SubscribeToTask of a completed task (spec 3.1.6)",
        rpc("SubscribeToTask", {"id": DONE}),
        Call("POST", f"/rest/tasks/{DONE}:subscribe"),
    ),
    Row(
        "UnsupportedOperationError",
        "a message to a completed task (spec 3.1.1)",
        rpc("SendMessage", TO_DONE),
        Call("POST", "/rest/message:send", json.dumps(TO_DONE)),
    ),
    Row(
        # Spec 4.6.3: an agent SHOULD ignore a requested extension it does not support
        # (unless the card marks it required). We refuse it by design (docs/extensions.md, "The task
        # extension"); UnsupportedOperation is the nearest error the table offers.
        "UnsupportedOperationError",
        "an unadvertised extension in A2A-Extensions",
        rpc("SendMessage", SEND, headers={**V1, "A2A-Extensions": "https://x.test/ext/v9"}),
        Call(
            "POST",
            "/rest/message:send",
            json.dumps(SEND),
            headers={**V1, "A2A-Extensions": "https://x.test/ext/v9"},
        ),
    ),
    Row(
        # Spec 3.3.4 and 13.3: with `capabilities.extendedAgentCard` false, the operation
        # MUST answer UnsupportedOperationError.
        "UnsupportedOperationError",
        "GetExtendedAgentCard when the card offers none",
        rpc("GetExtendedAgentCard"),
        Call("GET", "/rest/extendedAgentCard"),
    ),
    Row(
        "PushNotificationNotSupportedError",
        "CreateTaskPushNotificationConfig on a server without push",
        rpc(
            "CreateTaskPushNotificationConfig",
            {"taskId": DONE, "url": "https://receiver.example/hook"},
            push_off=True,
        ),
        Call("POST", f"/rest/tasks/{DONE}/pushNotificationConfigs", PUSH_CONFIG, push_off=True),
    ),
    Row(
        "PushNotificationNotSupportedError",
        "a push config in SendMessage on a server without push",
        rpc("SendMessage", WITH_PUSH, push_off=True),
        Call("POST", "/rest/message:send", json.dumps(WITH_PUSH), push_off=True),
    ),
    Row(
        "VersionNotSupportedError",
        "A2A-Version 2.0",
        rpc("GetTask", {"id": DONE}, headers={**V1, "A2A-Version": "2.0"}),
        Call("GET", f"/rest/tasks/{DONE}", headers={**V1, "A2A-Version": "2.0"}),
    ),
    Row(
        # Spec 3.6.2: "Agents MUST interpret empty value as 0.3 version"; this server is 1.0.
        "VersionNotSupportedError",
        "no A2A-Version header (read as 0.3)",
        rpc("GetTask", {"id": DONE}, headers=without_version()),
        Call("GET", f"/rest/tasks/{DONE}", headers=without_version()),
    ),
    Row(
        "InvalidParamsError",
        "ListTasks with page size 0",
        rpc("ListTasks", {"pageSize": 0}),
        Call("GET", "/rest/tasks?pageSize=0"),
        Actual(
            "spec names no reason for a standard error; the SDK sends INVALID_PARAMS "
            "(a2a/utils/errors.py:197)",
            reason="INVALID_PARAMS",
        ),
    ),
    Row(
        "InvalidParamsError",
        "ListTasks with a page token this server did not issue",
        rpc("ListTasks", {"pageToken": "bm90LWEtdG9rZW4"}),
        Call("GET", "/rest/tasks?pageToken=bm90LWEtdG9rZW4"),
        Actual("as above (a2a/utils/errors.py:197)", reason="INVALID_PARAMS"),
    ),
    Row(
        "InvalidParamsError",
        "a message with no parts",
        rpc("SendMessage", NO_PARTS),
        Call("POST", "/rest/message:send", json.dumps(NO_PARTS)),
        Actual("as above (a2a/utils/errors.py:197)", reason="INVALID_PARAMS"),
    ),
    Row(
        "InvalidParamsError",
        "params that do not parse as the method's request",
        rpc("SendMessage", BAD_PARTS),
        Call("POST", "/rest/message:send", json.dumps(BAD_PARTS)),
        Actual("as above (a2a/utils/errors.py:197)", reason="INVALID_PARAMS"),
    ),
    Row(
        # JSON-RPC: the SDK answers with its own pydantic error model, which carries no
        # ErrorInfo (a2a/server/routes/jsonrpc_dispatcher.py:345), as the spec allows.
        "JSONParseError",
        "a body that is not JSON",
        Call("POST", "/", "{not json"),
        Call("POST", "/rest/message:send", "{not json"),
    ),
    Row(
        "InvalidRequestError",
        "a request without `jsonrpc`",
        Call("POST", "/", json.dumps({"id": 7, "method": "GetTask", "params": {"id": "x"}})),
        None,
        Actual(
            "spec names no reason; the SDK sends INVALID_REQUEST (a2a/utils/errors.py:198)",
            reason="INVALID_REQUEST",
        ),
    ),
    Row(
        "InvalidRequestError",
        "a batch",
        Call("POST", "/", json.dumps([{"jsonrpc": "2.0", "id": 7, "method": "GetTask"}])),
        None,
        Actual("as above (a2a/utils/errors.py:198)", reason="INVALID_REQUEST"),
    ),
    Row(
        # No ErrorInfo, as for JSONParseError (a2a/server/routes/jsonrpc_dispatcher.py:301).
        "MethodNotFoundError",
        "a 0.3 method name",
        rpc("message/send", SEND),
        None,
    ),
)

# The REST binding's parse failures are not the JSON-RPC binding's: a body the SDK cannot
# parse is reported as InvalidRequest there (reason and all), whatever the JSON-RPC binding
# calls the same fault.
REST_ACTUAL: Final[Mapping[tuple[str, str], Actual]] = {
    ("InvalidParamsError", "params that do not parse as the method's request"): Actual(
        SDK_PARSE_ERROR, reason="INVALID_REQUEST"
    ),
    ("JSONParseError", "a body that is not JSON"): Actual(
        SDK_PARSE_ERROR, reason="INVALID_REQUEST"
    ),
}


@dataclass
class Rig:
    harness: RunningHarness
    done: str
    raw: httpx.AsyncClient  # not the harness's: the SDK client sets A2A-Version on that one
    push_off: httpx.AsyncClient


@pytest.fixture(scope="module")
async def rig(
    temporal_env: WorkflowEnvironment, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Rig]:
    """One harness with one completed task, and the same harness's gateway served by an app
    built without outbound push (its card says so), reached in process."""
    path: Path = tmp_path_factory.mktemp("error-table")
    async with running_harness(temporal_env.client, path, ANSWER) as harness:
        client = await harness.client()
        done = (await collect(client.send_message(send_request("control"))))[0].task.id
        card = build_agent_card(harness.url, model="scripted test model", push=False)
        app = create_app(harness.gateway, card, max_request_bytes=1_048_576, outbound=None)
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(timeout=30) as raw,
            httpx.AsyncClient(transport=transport, base_url="http://push-off") as off,
        ):
            yield Rig(harness, done, raw, off)


def cases() -> list[object]:
    out: list[object] = []
    for row in ROWS:
        for binding, call in (("JSONRPC", row.rpc), ("HTTP+JSON", row.rest)):
            if call is None:
                continue
            marks = [pytest.mark.xfail(strict=True, reason=row.ours)] if row.ours else []
            out.append(pytest.param(row, binding, marks=marks, id=f"{binding}: {row.case}"))
    return out


def expected(row: Row, binding: str) -> Spec:
    spec = SPEC[row.error]
    actual = REST_ACTUAL.get((row.error, row.case)) if binding == "HTTP+JSON" else None
    actual = actual or row.actual
    if actual is None:
        return spec
    return replace(
        spec,
        rpc_code=actual.rpc_code or spec.rpc_code,
        http_status=actual.http_status or spec.http_status,
        reason=actual.reason or spec.reason,
    )


async def send(rig: Rig, call: Call) -> httpx.Response:
    http = rig.push_off if call.push_off else rig.raw
    base = "http://push-off" if call.push_off else rig.harness.url
    body = call.body.replace(DONE, rig.done) if call.body is not None else None
    return await http.request(
        call.method, base + call.path.replace(DONE, rig.done), content=body, headers=call.headers
    )


def reasons(details: object) -> list[tuple[object, object]]:
    """The (reason, domain) of each ErrorInfo among an error's details."""
    assert details is None or isinstance(details, list), details
    infos = [d for d in details or [] if isinstance(d, dict) and d.get("@type") == ERROR_INFO]
    return [(info.get("reason"), info.get("domain")) for info in infos]


@pytest.mark.parametrize(("row", "binding"), cases())
async def test_each_error_has_the_spec_code_status_and_error_info(
    rig: Rig, row: Row, binding: str
) -> None:
    want = expected(row, binding)
    call = row.rpc if binding == "JSONRPC" else row.rest
    assert call is not None
    answer = await send(rig, call)
    if binding == "JSONRPC":
        assert answer.status_code == 200  # a JSON-RPC error travels in a 200 response
        error = answer.json()["error"]
        assert error["code"] == want.rpc_code
        found = reasons(error.get("data"))
    else:
        assert answer.status_code == want.http_status
        error = answer.json()["error"]
        assert (error["code"], error["status"]) == (want.http_status, want.status)
        found = reasons(error.get("details"))
    assert found == ([] if want.reason is None else [(want.reason, DOMAIN)])


def test_the_table_covers_every_error_the_spec_names() -> None:
    provoked = {row.error for row in ROWS}
    assert provoked | set(NOT_PROVOKED) == set(SPEC)
    assert not provoked & set(NOT_PROVOKED)


def test_every_deviation_says_why_and_where() -> None:
    deviations = [r.actual for r in ROWS if r.actual] + list(REST_ACTUAL.values())
    assert all(a.why and ".py:" in a.why for a in deviations)
    assert all(r.ours and not r.actual for r in ROWS if r.ours)

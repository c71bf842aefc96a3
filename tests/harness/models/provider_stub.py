"""A local stand-in for the model providers' HTTP APIs, for the adapter tests.

It serves on 127.0.0.1 and replays the recorded answers in `tests/fixtures/providers/`:

    POST /<scenario>/<any path>   ──►  tests/fixtures/providers/<scenario>.json

A recording is `{"status": 200, "headers": {...}, "body": {...}}` for a plain answer, or
`{"status": 200, "events": [{"event": "name" | null, "data": {...} | "[DONE]"}]}` for a
server-sent-event stream. The text `{{api_key}}` in a recording is replaced by the key the
request carried, to play a provider that echoes it. Two scenarios need no recording:
`drop-connection` starts an answer and closes the connection mid-body (uvicorn logs the
cut as an error), and `hang` answers nothing until the client gives up. Every request is
recorded, so a test can assert on what an adapter sent; an adapter's base URL is
`stub.base_url(scenario)` plus its own prefix (`/v1` for the OpenAI SDK).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from pydantic import JsonValue, SecretStr, TypeAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from tiny_harness.harness.models.llm import AssistantItem, LLMRequest, ToolResultItem, UserItem
from tiny_harness.harness.tools.definition import JsonObject, ToolCall, ToolDefinition
from tiny_harness.service.http import HttpServer

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "providers"
HANG_SECONDS = 5.0
_JSON_OBJECT: TypeAdapter[JsonObject] = TypeAdapter(JsonObject)


@dataclass(frozen=True)
class RecordedRequest:
    """One request the stub received: its scenario, path below it, headers and JSON body."""

    scenario: str
    path: str
    headers: dict[str, str]
    body: JsonObject


def dig(value: JsonValue, *keys: str | int) -> JsonValue:
    """The value at `keys` inside nested JSON (a KeyError/IndexError/TypeError if absent)."""
    for key in keys:
        if isinstance(value, list) and isinstance(key, int):
            value = value[key]
            continue
        if isinstance(value, dict) and isinstance(key, str):
            value = value[key]
            continue
        raise TypeError(f"cannot take {key!r} of {type(value).__name__}")
    return value


class ProviderStub:
    """The stub server for the life of an `async with`; see the module docstring."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        app = Starlette(routes=[Route("/{scenario}/{path:path}", self._answer, methods=["POST"])])
        self._server = HttpServer(app, host="127.0.0.1", port=0)

    async def __aenter__(self) -> Self:
        await self._server.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._server.__aexit__(exc_type, exc, traceback)

    def base_url(self, scenario: str) -> str:
        """The URL whose requests replay `scenario`."""
        return f"{self._server.url}/{scenario}"

    @property
    def last(self) -> RecordedRequest:
        """The newest request received."""
        return self.requests[-1]

    async def _answer(self, request: Request) -> Response:
        scenario = request.path_params["scenario"]
        raw = await request.body()
        self.requests.append(
            RecordedRequest(
                scenario=scenario,
                path=request.path_params["path"],
                headers=dict(request.headers),
                body=_JSON_OBJECT.validate_json(raw) if raw else {},
            )
        )
        if scenario == "drop-connection":
            return _DroppedConnection()
        if scenario == "hang":
            return await _hang(request)
        key = _api_key(request)
        text = (FIXTURES / f"{scenario}.json").read_text(encoding="utf-8")
        return _replay(_JSON_OBJECT.validate_json(text.replace("{{api_key}}", key)))


def _api_key(request: Request) -> str:
    bearer = request.headers.get("authorization", "").removeprefix("Bearer ")
    return request.headers.get("x-api-key", bearer)


def _replay(recording: JsonObject) -> Response:
    status = recording.get("status", 200)
    headers = recording.get("headers", {})
    if not isinstance(status, int) or not isinstance(headers, dict):
        raise TypeError("a recording's status is an int and its headers an object")
    plain_headers = {name: str(value) for name, value in headers.items()}
    events = recording.get("events")
    if isinstance(events, list):
        return Response(
            _sse(events),
            status_code=status,
            headers=plain_headers,
            media_type="text/event-stream",
        )
    return Response(
        json.dumps(recording.get("body")),
        status_code=status,
        headers=plain_headers,
        media_type="application/json",
    )


def _sse(events: list[JsonValue]) -> str:
    """Server-sent-event framing: `event:` when named, one `data:` line, a blank line."""
    frames: list[str] = []
    for event in events:
        name = dig(event, "event") if isinstance(event, dict) and "event" in event else None
        data = dig(event, "data")
        lines = [f"event: {name}"] if isinstance(name, str) else []
        lines.append(f"data: {data if isinstance(data, str) else json.dumps(data)}")
        frames.append("\n".join(lines) + "\n\n")
    return "".join(frames)


async def _hang(request: Request) -> Response:
    """Answer nothing until the client under test gives up (or `HANG_SECONDS` pass)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(HANG_SECONDS):
            while (await request.receive())["type"] != "http.disconnect":
                pass
    return Response(status_code=504)


class _DroppedConnection(Response):
    """Promise a body, send part of it, and end: the server then closes the connection."""

    def __init__(self) -> None:
        super().__init__(status_code=200)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"512")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"id": "partial', "more_body": False})


KEY = SecretStr("sk-test-stub-0123456789abcdefABCDEF")
"""The key every adapter under test sends; no error message may ever contain it."""

CALC_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}
TOOLS = (
    ToolDefinition(name="calc.add", description="Add two numbers.", input_schema=CALC_SCHEMA),
    ToolDefinition(
        name="plugin/server.tool",
        description="A plugin's MCP tool.",
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
    ),
    ToolDefinition(
        name="ask_participant",
        description="Ask a participant a question and wait for the reply.",
        input_schema={"type": "object", "properties": {"question": {"type": "string"}}},
    ),
)


def conversation(*, cache_key: str | None = "task-7f3a") -> LLMRequest:
    """A conversation with every kind of item: a question, a turn that calls a tool and asks
    a participant, the tool's result, the participant's reply, and a new question."""
    return LLMRequest(
        instructions="You are a careful assistant.",
        input=(
            UserItem(message_id="m1", text="What is 2 + 3, and where am I?"),
            AssistantItem(
                text="Let me add, and ask you.",
                tool_calls=(
                    ToolCall(call_id="call_add", name="calc.add", arguments={"a": 2, "b": 3}),
                    ToolCall(
                        call_id="call_ask",
                        name="ask_participant",
                        arguments={"question": "Which city?"},
                    ),
                ),
            ),
            ToolResultItem(call_id="call_add", name="calc.add", text="5"),
            UserItem(message_id="m2", text="Lyon", reply_to="call_ask"),
            UserItem(message_id="m3", text="And the weather there?"),
        ),
        tools=TOOLS,
        cache_key=cache_key,
    )

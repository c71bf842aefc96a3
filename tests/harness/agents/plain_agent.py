"""A plain a2a-sdk agent on 127.0.0.1, with no tiny-harness inside, for RemoteAgent's tests.

Its executor answers by the text of the message:

    "hold"    WORKING, then nothing until the task is cancelled (the stream stays open)
    "ask"     INPUT_REQUIRED "what next?"; the reply completes it with "echo: <reply>"
              (a tiny-harness brief whose goal is "ask" too)
    "auth"    AUTH_REQUIRED "sign in"; the reply completes it the same way
    "odd"     COMPLETED with an artifact of parts of every kind: HTML text, a file's
              bytes, a file's URL, JSON data
    "leak"    COMPLETED with the status message `plain_agent(leak=...)` gave it (a
              brief whose goal is "leak" too): a careless agent's credentials
    other     WORKING, then COMPLETED with "echo: <text>"

`Recorder`, an ASGI middleware in front of the routes, keeps each request's path, JSON-RPC
method, body and headers, and notes when the client dropped a response before it was complete.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx
from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    Part,
    SecurityScheme,
    TaskState,
)
from google.protobuf.struct_pb2 import Value
from starlette.applications import Starlette
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tiny_harness.service.http import HttpServer, free_port

REST_PREFIX = "/rest"


class PlainExecutor(AgentExecutor):
    """Echoes, asks, or holds a task open until it is cancelled (see the module)."""

    def __init__(self, leak: str = "") -> None:
        self._leak = leak

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            if context.message is None:
                raise ValueError("a new task needs a message")
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = context.get_user_input()
        if task.status.state in (
            TaskState.TASK_STATE_INPUT_REQUIRED,
            TaskState.TASK_STATE_AUTH_REQUIRED,
        ):
            await updater.complete(updater.new_agent_message([new_text_part(f"echo: {text}")]))
        elif text == "hold":
            await updater.start_work()
            await asyncio.Event().wait()  # until the framework cancels this execution
        elif text == "auth" or text.endswith("Goal: auth"):
            await updater.requires_auth(updater.new_agent_message([new_text_part("sign in")]))
        elif text == "leak" or text.endswith("Goal: leak"):
            await updater.complete(updater.new_agent_message([new_text_part(self._leak)]))
        elif text == "odd":
            await updater.add_artifact(odd_parts(), name="odd parts")
            await updater.complete()
        elif text == "ask" or text.endswith("Goal: ask"):
            await updater.requires_input(updater.new_agent_message([new_text_part("what next?")]))
        else:
            await updater.start_work()
            await updater.complete(updater.new_agent_message([new_text_part(f"echo: {text}")]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id is None or context.context_id is None:
            raise ValueError("cancel needs a task")
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def odd_parts() -> list[Part]:
    """One part of each kind, none of them Markdown."""
    data = Value()
    data.struct_value.update({"rows": 2, "ok": True})
    return [
        Part(text="<b>bold</b>", media_type="text/html"),
        Part(raw=b"%PDF-1.7 tiny", filename="report.pdf", media_type="application/pdf"),
        Part(url="https://files.example/plan.png", filename="plan.png", media_type="image/png"),
        Part(data=data, media_type="application/json"),
    ]


@dataclass
class Call:
    """One HTTP request the agent received."""

    path: str
    headers: list[tuple[str, str]]
    """(lower-case name, value), in order, repeats kept."""
    method: str = ""
    """The JSON-RPC method, or "" for a request that is not JSON-RPC."""
    body: bytes = b""
    completed: bool = False
    dropped: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the client went away before the response was complete."""

    def header(self, name: str) -> list[str]:
        """Every value of the header `name`."""
        return [value for key, value in self.headers if key == name.lower()]


class Recorder:
    """ASGI middleware: appends a `Call` to `calls` for every HTTP request."""

    def __init__(self, app: ASGIApp, calls: list[Call]) -> None:
        self._app = app
        self._calls = calls

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]
        call = Call(path=scope["path"], headers=headers)
        self._calls.append(call)
        body = bytearray()

        async def recording_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
                if not message.get("more_body", False):
                    call.body = bytes(body)
                    call.method = _rpc_method(call.body)
            elif message["type"] == "http.disconnect" and not call.completed:
                call.dropped.set()
            return message

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                call.completed = True
            await send(message)

        await self._app(scope, recording_receive, recording_send)


def _rpc_method(body: bytes) -> str:
    try:
        payload = json.loads(body)
    except ValueError:
        return ""
    method = payload.get("method", "") if isinstance(payload, dict) else ""
    return method if isinstance(method, str) else ""


def plain_card(
    url: str,
    *,
    push: bool = False,
    streaming: bool = True,
    bindings: tuple[str, ...] = ("JSONRPC",),
) -> AgentCard:
    """The card of a plain agent served at `url` (no trailing slash)."""
    paths = {"JSONRPC": "/", "HTTP+JSON": REST_PREFIX}
    return AgentCard(
        name="plain",
        description="A plain a2a-sdk agent that echoes.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url + paths[b], protocol_binding=b, protocol_version="1.0")
            for b in bindings
        ],
        capabilities=AgentCapabilities(streaming=streaming, push_notifications=push),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes.", tags=["echo"])],
    )


def with_extension(card: AgentCard, uri: str, *, required: bool) -> AgentCard:
    """A copy of `card` advertising the extension `uri`."""
    edited = AgentCard()
    edited.CopyFrom(card)
    edited.capabilities.extensions.append(AgentExtension(uri=uri, required=required))
    return edited


@dataclass
class PlainAgent:
    """A running plain agent: its base URL, its card, and every call it received."""

    url: str
    card: AgentCard
    calls: list[Call]

    def rpc_calls(self, method: str) -> list[Call]:
        """The JSON-RPC calls of `method`, in order."""
        return [c for c in self.calls if c.method == method]


@asynccontextmanager
async def plain_agent(
    *,
    push_store: bool = False,
    push_sender: bool = False,
    card: Callable[[str], AgentCard] = plain_card,
    leak: str = "",
    bearer: str = "",
) -> AsyncIterator[PlainAgent]:
    """Serve a plain agent on 127.0.0.1 whose card `card(url)` builds; `push_store` gives
    it a push-config store (the card must still advertise push for the SDK to use it), and
    `push_sender` the SDK's own sender, which POSTs task events to the registered URLs;
    `leak` is the status message a "leak" task completes with; with `bearer`, every call
    but the card's must present it (`Authorization: Bearer`), else 401."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    agent_card = card(url)
    store = InMemoryPushNotificationConfigStore() if push_store else None
    pusher = httpx.AsyncClient(timeout=10)
    sender = (
        BasePushNotificationSender(pusher, store) if push_sender and store is not None else None
    )
    handler = DefaultRequestHandler(
        agent_executor=PlainExecutor(leak),
        task_store=InMemoryTaskStore(),
        agent_card=agent_card,
        push_config_store=store,
        push_sender=sender,
    )
    routes: list[BaseRoute] = [*create_agent_card_routes(agent_card)]
    routes += create_jsonrpc_routes(handler, rpc_url="/")
    routes += create_rest_routes(handler, path_prefix=REST_PREFIX)
    calls: list[Call] = []
    app: ASGIApp = Recorder(Starlette(routes=routes), calls)
    if bearer:
        app = requiring_bearer(app, bearer)
    try:
        async with HttpServer(app, host="127.0.0.1", port=port):
            yield PlainAgent(url=url, card=agent_card, calls=calls)
    finally:
        await handler.aclose()
        await pusher.aclose()


def requiring_bearer(app: ASGIApp, token: str) -> ASGIApp:
    """`app`, answering 401 to a call (not the card) without `Authorization: Bearer token`."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith("/.well-known/"):
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
        await app(scope, receive, send)

    return guarded


def with_bearer_scheme(card: AgentCard) -> AgentCard:
    """A copy of `card` requiring a bearer token."""
    edited = AgentCard()
    edited.CopyFrom(card)
    scheme = SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer"))
    edited.security_schemes["bearer"].CopyFrom(scheme)
    edited.security_requirements.add().schemes["bearer"].SetInParent()
    return edited

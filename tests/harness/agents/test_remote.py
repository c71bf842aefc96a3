"""RemoteAgent against a plain a2a-sdk agent over real HTTP on 127.0.0.1 (no SDK mocks).

Every call is checked where it lands: the agent's `Recorder` reads the headers it got.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_message_text, new_text_message
from a2a.types import (
    AgentCard,
    HTTPAuthSecurityScheme,
    ListTaskPushNotificationConfigsRequest,
    Message,
    Role,
    SecurityRequirement,
    SecurityScheme,
    StreamResponse,
    StringList,
    TaskState,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tests.harness.agents.plain_agent import (
    Call,
    PlainAgent,
    plain_agent,
    plain_card,
    with_extension,
)
from tests.support import capture_debug
from tiny_harness.errors import AgentUnavailableError, UnsupportedExtensionError
from tiny_harness.harness.agents import remote
from tiny_harness.harness.agents.remote import PARTICIPANT_HEADER, RemoteAgent
from tiny_harness.harness.agents.spec import RemoteAgentSpec
from tiny_harness.service.http import HttpServer, free_port

PARTICIPANT = "p-42"
TOKEN = "push-token-never-echoed-7f3a"
UNKNOWN_EXTENSION = "https://example.org/ext/unknown/v1"
WAIT = 10.0


def user_message(text: str, *, task_id: str = "") -> Message:
    return new_text_message(text, task_id=task_id or None, role=Role.ROLE_USER)


def task_id_of(event: StreamResponse) -> str:
    kind = event.WhichOneof("payload")
    if kind == "task":
        return event.task.id
    if kind == "status_update":
        return event.status_update.task_id
    raise AssertionError(f"no task in a {kind} event")


def state_of(event: StreamResponse) -> int:
    kind = event.WhichOneof("payload")
    if kind == "task":
        return event.task.status.state
    if kind == "status_update":
        return event.status_update.status.state
    return TaskState.TASK_STATE_UNSPECIFIED


@asynccontextmanager
async def connected(
    server: PlainAgent, *, http: httpx.AsyncClient | None = None, card: AgentCard | None = None
) -> AsyncIterator[RemoteAgent]:
    agent = await RemoteAgent.connect(
        RemoteAgentSpec(id="plain", url=server.url), http=http, card=card
    )
    try:
        yield agent
    finally:
        await agent.aclose()


async def drain(stream: AsyncIterator[StreamResponse]) -> list[StreamResponse]:
    return [event async for event in stream]


async def parked_task(agent: RemoteAgent) -> str:
    """A task of the plain agent waiting for input ("ask")."""
    events = await drain(agent.send_message(user_message("ask"), participant=PARTICIPANT))
    assert state_of(events[-1]) == TaskState.TASK_STATE_INPUT_REQUIRED
    return task_id_of(events[-1])


def assert_well_formed(call: Call, *, participant: str = PARTICIPANT) -> None:
    assert call.header("a2a-version") == ["1.0"]
    assert call.header(PARTICIPANT_HEADER) == [participant]
    assert call.header("a2a-extensions") == []


# --- the card ---------------------------------------------------------------------------------


async def test_connect_fetches_the_card_with_the_protocol_version() -> None:
    async with plain_agent() as server, connected(server) as agent:
        assert agent.card == server.card
        assert agent.agent_id == "plain"
        assert agent.updates == "auto"
        assert agent.follow_interval.total_seconds() == 5
        [fetch] = server.calls
        assert fetch.path == "/.well-known/agent-card.json"
        assert fetch.header("a2a-version") == ["1.0"]


async def test_a_given_card_is_used_as_it_is_and_nothing_is_fetched() -> None:
    async with plain_agent() as server:
        spec = RemoteAgentSpec(
            id="plain", url=server.url, version="2.1.0", updates="follow", follow_interval=3
        )
        agent = await RemoteAgent.connect(spec, card=server.card)
        try:
            assert server.calls == []
            assert agent.ref.version == "2.1.0"
            assert agent.updates == "follow"
            assert agent.follow_interval.total_seconds() == 3
            events = await drain(agent.send_message(user_message("hi"), participant=PARTICIPANT))
            assert state_of(events[-1]) == TaskState.TASK_STATE_COMPLETED
        finally:
            await agent.aclose()


def with_security_scheme(url: str) -> AgentCard:
    card = plain_card(url)
    card.security_schemes["bearer"].CopyFrom(
        SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="bearer"))
    )
    return card


def with_security_requirement(url: str) -> AgentCard:
    card = plain_card(url)
    card.security_requirements.append(SecurityRequirement(schemes={"oauth": StringList()}))
    return card


@pytest.mark.parametrize("card", [with_security_scheme, with_security_requirement])
async def test_a_card_declaring_security_is_refused_before_anything_is_sent(
    card: Callable[[str], AgentCard],
) -> None:
    async with plain_agent(card=card) as server:
        with pytest.raises(UnsupportedExtensionError, match="security") as refused:
            await RemoteAgent.connect(RemoteAgentSpec(id="plain", url=server.url))
        assert refused.value.agent == "plain"
        assert [c.path for c in server.calls] == ["/.well-known/agent-card.json"]


async def test_a_given_card_declaring_security_is_refused_too() -> None:
    async with plain_agent() as server:
        card = with_security_scheme(server.url)
        with pytest.raises(UnsupportedExtensionError, match=r"security schemes \(bearer\)"):
            await RemoteAgent.connect(RemoteAgentSpec(id="plain", url=server.url), card=card)
        assert server.calls == []


async def test_a_card_requiring_an_unknown_extension_is_refused_naming_it() -> None:
    def requiring(url: str) -> AgentCard:
        return with_extension(plain_card(url), UNKNOWN_EXTENSION, required=True)

    async with plain_agent(card=requiring) as server:
        with pytest.raises(UnsupportedExtensionError, match=UNKNOWN_EXTENSION):
            await RemoteAgent.connect(RemoteAgentSpec(id="plain", url=server.url))
        assert len(server.calls) == 1


async def test_an_optional_unknown_extension_is_accepted_and_never_requested() -> None:
    def offering(url: str) -> AgentCard:
        return with_extension(plain_card(url), UNKNOWN_EXTENSION, required=False)

    async with plain_agent(card=offering) as server, connected(server) as agent:
        task_id = await parked_task(agent)
        await agent.get_task(task_id, participant=PARTICIPANT)
        calls = [c for c in server.calls if c.method]
        assert [c.method for c in calls] == ["SendStreamingMessage", "GetTask"]
        for call in calls:
            assert_well_formed(call)


async def test_extensions_requested_are_those_supported_and_advertised_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    required, offered, unadvertised = (f"https://example.org/ext/{n}" for n in "abc")
    monkeypatch.setattr(remote, "SUPPORTED_EXTENSIONS", frozenset({required, unadvertised}))

    def advertising(url: str) -> AgentCard:
        card = with_extension(plain_card(url), required, required=True)
        return with_extension(card, offered, required=False)

    async with plain_agent(card=advertising) as server, connected(server) as agent:
        await drain(agent.send_message(user_message("hello"), participant=PARTICIPANT))
        [call] = server.rpc_calls("SendStreamingMessage")
        assert call.header("a2a-extensions") == [required]


async def test_a_card_at_a_legacy_protocol_version_is_refused() -> None:
    def legacy(url: str) -> AgentCard:
        card = plain_card(url)
        card.supported_interfaces[0].protocol_version = "0.3"
        return card

    async with plain_agent(card=legacy) as server:
        with pytest.raises(UnsupportedExtensionError, match=r"A2A 1\.x"):
            await RemoteAgent.connect(RemoteAgentSpec(id="plain", url=server.url))


async def test_an_unreachable_agent_is_unavailable_naming_the_failure_type() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(AgentUnavailableError, match=r"\(ConnectError\)") as unavailable:
        await RemoteAgent.connect(RemoteAgentSpec(id="gone", url=url))
    assert unavailable.value.agent == "gone"
    assert url not in unavailable.value.message


@pytest.mark.parametrize(
    ("body", "failure"),
    [("not a card", "JSONDecodeError"), ('{"name": 7, "skills": "x"}', "ParseError")],
)
async def test_an_unparseable_card_is_unavailable(body: str, failure: str) -> None:
    async def card_route(request: Request) -> PlainTextResponse:
        return PlainTextResponse(body, media_type="application/json")

    app = Starlette(routes=[Route("/.well-known/agent-card.json", card_route)])
    async with HttpServer(app, host="127.0.0.1", port=0) as server:
        with pytest.raises(AgentUnavailableError, match=failure):
            await RemoteAgent.connect(RemoteAgentSpec(id="odd", url=server.url))


async def test_a_missing_card_is_unavailable_with_its_status() -> None:
    async with HttpServer(Starlette(), host="127.0.0.1", port=0) as server:
        with pytest.raises(AgentUnavailableError, match="HTTP 404"):
            await RemoteAgent.connect(RemoteAgentSpec(id="odd", url=server.url))


# --- streams ----------------------------------------------------------------------------------


async def test_send_message_streams_the_task_to_its_end_with_the_headers() -> None:
    async with plain_agent() as server, connected(server) as agent:
        events = await drain(agent.send_message(user_message("hello"), participant=PARTICIPANT))

        assert events[0].WhichOneof("payload") == "task"
        assert [state_of(e) for e in events][-2:] == [
            TaskState.TASK_STATE_WORKING,
            TaskState.TASK_STATE_COMPLETED,
        ]
        assert get_message_text(events[-1].status_update.status.message) == "echo: hello"
        [call] = server.rpc_calls("SendStreamingMessage")
        assert_well_formed(call)


async def test_send_message_over_http_json_carries_the_same_headers() -> None:
    def rest_only(url: str) -> AgentCard:
        return plain_card(url, bindings=("HTTP+JSON",))

    async with plain_agent(card=rest_only) as server, connected(server) as agent:
        events = await drain(agent.send_message(user_message("hello"), participant=PARTICIPANT))
        assert state_of(events[-1]) == TaskState.TASK_STATE_COMPLETED
        [call] = [c for c in server.calls if c.path == "/rest/message:stream"]
        assert_well_formed(call)


async def test_closing_a_stream_closes_its_response_at_once_and_the_agent_sees_it() -> None:
    responses: list[httpx.Response] = []

    async def keep(response: httpx.Response) -> None:
        responses.append(response)

    async with (
        plain_agent() as server,
        httpx.AsyncClient(event_hooks={"response": [keep]}) as http,
        connected(server, http=http) as agent,
    ):
        stream = agent.send_message(user_message("hold"), participant=PARTICIPANT)
        async for event in stream:
            if state_of(event) == TaskState.TASK_STATE_WORKING:
                break
        [response] = [r for r in responses if r.request.url.path == "/"]
        assert not response.is_closed

        await stream.aclose()

        assert response.is_closed  # at once, not when the garbage collector gets to it
        [call] = server.rpc_calls("SendStreamingMessage")
        await asyncio.wait_for(call.dropped.wait(), WAIT)
        assert not call.completed


async def test_breaking_out_of_a_stream_ends_the_connection() -> None:
    async with plain_agent() as server, connected(server) as agent:
        async for event in agent.send_message(user_message("hold"), participant=PARTICIPANT):
            if state_of(event) == TaskState.TASK_STATE_WORKING:
                break

        [call] = server.rpc_calls("SendStreamingMessage")
        await asyncio.wait_for(call.dropped.wait(), WAIT)


async def test_a_non_streaming_agent_answers_send_message_with_one_event() -> None:
    def unary(url: str) -> AgentCard:
        return plain_card(url, streaming=False)

    async with plain_agent(card=unary) as server, connected(server) as agent:
        events = await drain(agent.send_message(user_message("hello"), participant=PARTICIPANT))
        [event] = events
        assert state_of(event) == TaskState.TASK_STATE_COMPLETED
        [call] = server.rpc_calls("SendMessage")
        assert_well_formed(call)

        with pytest.raises(
            AgentUnavailableError, match="SubscribeToTask refused: the agent does not stream"
        ):
            await drain(agent.subscribe(task_id_of(event), participant=PARTICIPANT))
        assert server.rpc_calls("SubscribeToTask") == []


async def test_subscribe_streams_the_snapshot_then_what_the_reply_changes() -> None:
    async with plain_agent() as server, connected(server) as agent:
        task_id = await parked_task(agent)
        stream = agent.subscribe(task_id, participant="p-follow")
        first = await asyncio.wait_for(anext(stream), WAIT)
        assert first.WhichOneof("payload") == "task"
        assert state_of(first) == TaskState.TASK_STATE_INPUT_REQUIRED

        reply = user_message("go on", task_id=task_id)
        await drain(agent.send_message(reply, participant=PARTICIPANT))
        rest = await asyncio.wait_for(drain(stream), WAIT)

        assert state_of(rest[-1]) == TaskState.TASK_STATE_COMPLETED
        assert get_message_text(rest[-1].status_update.status.message) == "echo: go on"
        [call] = server.rpc_calls("SubscribeToTask")
        assert_well_formed(call, participant="p-follow")


async def test_subscribing_to_a_finished_task_is_unavailable_naming_the_a2a_error() -> None:
    async with plain_agent() as server, connected(server) as agent:
        events = await drain(agent.send_message(user_message("hello"), participant=PARTICIPANT))
        with pytest.raises(AgentUnavailableError, match=r"\(UnsupportedOperationError\)"):
            await drain(agent.subscribe(task_id_of(events[-1]), participant=PARTICIPANT))


# --- unary calls ------------------------------------------------------------------------------


async def test_get_task_answers_the_task_as_the_agent_has_it() -> None:
    async with plain_agent() as server, connected(server) as agent:
        task_id = await parked_task(agent)

        task = await agent.get_task(task_id, participant="p-get")

        assert task.id == task_id
        assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert get_message_text(task.status.message) == "what next?"
        [call] = server.rpc_calls("GetTask")
        assert_well_formed(call, participant="p-get")


async def test_an_unknown_task_is_unavailable_naming_only_the_error_type() -> None:
    async with plain_agent() as server, connected(server) as agent:
        with pytest.raises(AgentUnavailableError) as unavailable:
            await agent.get_task("no-such-task", participant=PARTICIPANT)
        assert unavailable.value.message == "agent 'plain': GetTask failed (TaskNotFoundError)"


async def test_cancel_task_cancels_a_working_task() -> None:
    async with plain_agent() as server, connected(server) as agent:
        stream = agent.send_message(user_message("hold"), participant=PARTICIPANT)
        async for event in stream:
            if state_of(event) == TaskState.TASK_STATE_WORKING:
                break
        await stream.aclose()

        task = await agent.cancel_task(task_id_of(event), participant="p-cancel")

        assert task.status.state == TaskState.TASK_STATE_CANCELED
        [call] = server.rpc_calls("CancelTask")
        assert_well_formed(call, participant="p-cancel")


async def test_an_empty_participant_sends_no_participant_header() -> None:
    async with plain_agent() as server, connected(server) as agent:
        await drain(agent.send_message(user_message("hello"), participant=""))
        [call] = server.rpc_calls("SendStreamingMessage")
        assert call.header(PARTICIPANT_HEADER) == []
        assert call.header("a2a-version") == ["1.0"]


# --- push configs -----------------------------------------------------------------------------


def pushing(url: str) -> AgentCard:
    return plain_card(url, push=True)


async def configs_of(server: PlainAgent, task_id: str) -> list[str]:
    async with httpx.AsyncClient() as http:
        client = ClientFactory(ClientConfig(httpx_client=http)).create(server.card)
        request = ListTaskPushNotificationConfigsRequest(task_id=task_id)
        listed = await client.list_task_push_notification_configs(request)
        return [config.id for config in listed.configs]


async def test_set_push_config_registers_url_and_token_and_delete_removes_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    capture_debug(caplog)
    async with plain_agent(card=pushing, push_store=True) as server, connected(server) as agent:
        task_id = await parked_task(agent)
        url = "http://127.0.0.1:9/a2a/push/local-1"

        config_id = await agent.set_push_config(task_id, url, TOKEN, participant="p-push")

        assert config_id
        assert await configs_of(server, task_id) == [config_id]
        [create] = server.rpc_calls("CreateTaskPushNotificationConfig")
        assert_well_formed(create, participant="p-push")
        params = json.loads(create.body)["params"]
        assert params == {"taskId": task_id, "url": url, "token": TOKEN}  # no id: theirs

        await agent.delete_push_config(task_id, config_id, participant="p-push")

        assert await configs_of(server, task_id) == []
        [delete] = server.rpc_calls("DeleteTaskPushNotificationConfig")
        assert_well_formed(delete, participant="p-push")
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("tiny_harness")]
    assert all(TOKEN not in line for line in ours)


async def test_set_push_config_on_an_agent_without_push_sends_nothing() -> None:
    async with plain_agent() as server, connected(server) as agent:
        assert not agent.push_supported
        with pytest.raises(AgentUnavailableError, match="does not advertise push"):
            await agent.set_push_config("t-1", "http://127.0.0.1:9/p", TOKEN, participant="p")
        assert server.rpc_calls("CreateTaskPushNotificationConfig") == []


async def test_push_refused_by_the_agent_is_unavailable_and_never_echoes_the_token() -> None:
    async with plain_agent(card=pushing, push_store=False) as server, connected(server) as agent:
        task_id = await parked_task(agent)
        with pytest.raises(AgentUnavailableError) as unavailable:
            await agent.set_push_config(task_id, "http://127.0.0.1:9/p", TOKEN, participant="p")

        assert "PushNotificationNotSupportedError" in unavailable.value.message
        assert TOKEN not in str(unavailable.value)
        assert unavailable.value.__suppress_context__


# --- closing ----------------------------------------------------------------------------------


async def test_aclose_closes_the_client_it_made_and_is_safe_twice() -> None:
    async with plain_agent() as server:
        agent = await RemoteAgent.connect(RemoteAgentSpec(id="plain", url=server.url))
        await agent.aclose()
        await agent.aclose()
        with pytest.raises(AgentUnavailableError):
            await agent.get_task("t", participant=PARTICIPANT)


async def test_aclose_leaves_a_shared_client_open() -> None:
    async with plain_agent() as server, httpx.AsyncClient() as http:
        async with connected(server, http=http):
            pass
        assert not http.is_closed

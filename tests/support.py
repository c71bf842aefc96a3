"""Test support: a whole harness (worker + A2A server) on the shared Temporal dev server.

Each `running_harness` gets its own task queue, store file and HTTP port on 127.0.0.1, so
tests never see each other's tasks.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from a2a.client import Client as A2AClient
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.client.service_parameters import ServiceParametersFactory
from a2a.helpers import new_text_message
from a2a.types import Message, Role, SendMessageRequest, StreamResponse, Task, TaskState
from google.protobuf.message import Message as ProtoMessage
from starlette.authentication import AuthenticationBackend
from starlette.types import ASGIApp
from temporalio.api.common.v1 import Payload
from temporalio.client import Client

from tiny_harness.config import HeartbeatConfig, RemoteAgentSpec, TemporalConfig
from tiny_harness.harness.agents.remote import RemoteAgent
from tiny_harness.harness.agents.roster import render_roster
from tiny_harness.harness.agents.turns import RemoteTurn
from tiny_harness.harness.channels.a2a import A2AChannel
from tiny_harness.harness.entities import RegistryEntry
from tiny_harness.harness.models.llm import LLM, LLMRequest, LLMResponse
from tiny_harness.harness.models.prices import ModelPrice
from tiny_harness.harness.models.scripted import Script, ScriptedLLM, parse_script
from tiny_harness.harness.persistence.push_config_store import PushConfigStore
from tiny_harness.harness.persistence.retention import RetentionConfig
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.sqlite_push_configs import SqlitePushConfigs
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.plugins.install import Installation, build_harness
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.harness.settings.retry import RetryPolicies
from tiny_harness.harness.tasks.calls import CallEvent, calls_in
from tiny_harness.harness.tasks.extension import (
    EventEnvelope,
    Participant,
    ParticipantRole,
    TaskExtensionData,
    envelope_part,
    ext_of,
)
from tiny_harness.service.a2a.app import create_app
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.a2a.doorbell import PushReceiver
from tiny_harness.service.a2a.rate_limit import RateLimit
from tiny_harness.service.durable.activities.task import TaskActivities
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.client.searchable import register_search_attributes
from tiny_harness.service.durable.client.temporal import harness_converter
from tiny_harness.service.durable.client.worker import build_worker
from tiny_harness.service.durable.payloads import InvokeLLMInput
from tiny_harness.service.heartbeat.activities import HeartbeatActivities
from tiny_harness.service.heartbeat.schedule import HeartbeatMonitor
from tiny_harness.service.http import HttpServer, free_port
from tiny_harness.service.notifications.outbound import open_outbound
from tiny_harness.service.o11y.counters import Counters
from tiny_harness.service.o11y.logs import FIELDS

BINDINGS = ("JSONRPC", "HTTP+JSON")

ASKS_WHICH_SIZE = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Which size?"}}]
  - text: "Size noted: the shirt is ordered."
"""
"""A script whose task asks one question (INPUT_REQUIRED), then completes on the reply."""

ENDLESS_PLANS = "turns:\n" + "".join(
    f"  - tool_calls: [{{name: create_plan, arguments: {{steps: [{{name: try {n}}}]}}}}]\n"
    for n in range(10)
)
"""A script whose model never finishes: ten turns, each making a new plan."""

BUYS_FROM_SELF = """
turns:
  - when: "^buy"
    tool_calls: [{name: spawn_subtask, arguments: {agent: self, name: shirt, goal: order a shirt,
                  description: "size M, blue", acceptance_criteria: ["an order number"]}}]
  - when: "^Task: shirt"
    text: "Ordered: #42"
  - when: "^buy"
    text: "Waiting for the sub-task."
  - when: "COMPLETED"
    text: "Bought."
"""
"""A script whose task ("buy ...") delegates a shirt order to this same harness (`self`,
see `serving_self`), and completes once the sub-task has."""


@dataclass
class RunningHarness:
    """A harness under test: its URL, task queue, store and a way to make clients."""

    url: str
    task_queue: str
    store: SqliteStore
    gateway: TaskGateway
    temporal: Client
    http: httpx.AsyncClient
    harness: Harness
    installation: Installation
    push_configs: PushConfigStore
    server: HttpServer
    app: ASGIApp

    @asynccontextmanager
    async def outage(self) -> AsyncIterator[None]:
        """The A2A server is down inside the block (its port refuses connections, open
        streams are cut) and serves again on the same port after it; the worker and every
        task keep running throughout."""
        port = self.server.port
        await self.server.__aexit__(None, None, None)
        try:
            yield
        finally:
            self.server = HttpServer(self.app, host="127.0.0.1", port=port)
            await self.server.__aenter__()

    async def client(self, binding: str = "JSONRPC", *, streaming: bool = True) -> A2AClient:
        config = ClientConfig(
            streaming=streaming,
            supported_protocol_bindings=[binding],
            httpx_client=self.http,
        )
        return await ClientFactory(config).create_from_url(self.url)

    async def workflow_ids(self) -> list[str]:
        """Ids of every workflow ever started on this harness's task queue."""
        query = f'TaskQueue="{self.task_queue}"'
        return [wf.id async for wf in self.temporal.list_workflows(query)]

    async def workflows_once_visible(self, expected: set[str]) -> set[str]:
        """The workflow ids on this harness's queue, read once every one of `expected` is
        visible: visibility lags a little, so a check that nothing else was started waits
        for a workflow known to exist (a control task) before it reads."""
        for _ in range(200):
            seen = set(await self.workflow_ids())
            if expected <= seen:
                return seen
            await asyncio.sleep(0.05)
        raise AssertionError(f"{expected - seen} never became visible; saw {seen}")

    async def control_task(self, text: str = "control") -> str:
        """Start one good task after a refusal, so "nothing was started" can be told from a
        slow visibility index: once it shows, a workflow started before it would too."""
        client = await self.client()
        events = await collect(client.send_message(send_request(text)))
        return events[0].task.id


def harness_client(temporal: Client, store: Store, *, large_payload_bytes: int) -> Client:
    """A client on `temporal`'s connection with the converter `serve` gives its clients:
    redacting, and keeping payloads of `large_payload_bytes` or more in `store`."""
    config = temporal.config()
    config["data_converter"] = harness_converter(store, threshold=large_payload_bytes)
    return Client(**config)


def script(text: str) -> Script:
    return parse_script(text, source="<test>")


class HeldLLM(ScriptedLLM):
    """The scripted model with one call held until the test releases it: a window in which
    the task is under way, opened and closed by the test instead of by a delay it hopes is
    long enough. The worker runs in the test's event loop, so plain events reach it."""

    def __init__(self, script_text: str, *, hold_call: int = 1) -> None:
        super().__init__(script(script_text), name="test")
        self.hold_call = hold_call
        self.calls = 0
        self.holding = asyncio.Event()
        """Set once the held call has begun: the task is waiting on its model."""
        self.release = asyncio.Event()

    async def invoke(self, request: LLMRequest) -> LLMResponse:
        self.calls += 1
        if self.calls == self.hold_call:
            self.holding.set()
            await self.release.wait()
        return await super().invoke(request)


@asynccontextmanager
async def running_harness(
    temporal: Client,
    tmp_path: Path,
    script_text: str,
    *,
    max_request_bytes: int = 1_048_576,
    history_event_bound: int = 10_000,
    plugins: Sequence[Path] = (),
    retries: RetryPolicies | None = None,
    max_model_calls: int = 100,
    max_task_tokens: int | None = None,
    show_call_details: bool = True,
    prices: Mapping[str, ModelPrice] | None = None,
    llm: LLM | None = None,
    heartbeat: HeartbeatConfig | None = None,
    push_allow: tuple[str, ...] = ("127.0.0.1",),
    push_window: timedelta = timedelta(minutes=5),
    sse_keepalive: timedelta = timedelta(seconds=15),
    rate_limit: RateLimit | None = None,
    channel: A2AChannel | None = None,
    counters: Counters | None = None,
    large_payload_bytes: int = TemporalConfig().large_payload_bytes,
    max_cached_workflows: int = TemporalConfig().max_cached_workflows,
    auth: AuthenticationBackend | None = None,
    auth_mode: str = "none",
) -> AsyncIterator[RunningHarness]:
    """With `heartbeat`, the worker also runs the heartbeat and `/_monitor` reads the
    schedule `heartbeat.schedule_id` (which the test creates and deletes). Clients' push
    receivers may be at `push_allow` (loopback by default, so tests can receive pushes).
    No rate limit unless `rate_limit`: tests make many requests from 127.0.0.1. The worker
    and server use their own client on the shared connection (`RunningHarness.temporal`),
    keeping large payloads in the harness's store as `serve` does."""
    task_queue = f"test-{uuid.uuid4()}"
    store = SqliteStore(tmp_path / f"{task_queue}.sqlite3")
    temporal = harness_client(temporal, store, large_payload_bytes=large_payload_bytes)
    llm = llm or ScriptedLLM(script(script_text), name="test")
    searchable = await register_search_attributes(temporal, temporal.namespace)
    gateway = TaskGateway(
        temporal,
        task_queue=task_queue,
        store=store,
        searchable=searchable,
        history_event_bound=history_event_bound,
        retries=retries,
        max_model_calls=max_model_calls,
        max_task_tokens=max_task_tokens,
        show_call_details=show_call_details,
        prices=prices,
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    monitor = HeartbeatMonitor(temporal, schedule_id=heartbeat.schedule_id) if heartbeat else None
    push_configs = PushConfigStore(
        SqlitePushConfigs(tmp_path / f"{task_queue}.sqlite3"), os.urandom(32)
    )
    harness, installation = await build_harness(
        llm=llm, store=store, plugins=plugins, data_dir=tmp_path / "data"
    )
    beats = (
        HeartbeatActivities(temporal, harness, task_queue=task_queue, retention=RetentionConfig())
        if heartbeat
        else None
    )
    try:
        async with AsyncExitStack() as stack:
            outbound = await open_outbound(
                temporal,
                gateway,
                push_configs,
                stack,
                task_queue=task_queue,
                allow=push_allow,
                window=push_window,
            )
            app = create_app(
                gateway,
                build_agent_card(url, model="scripted test model", push=True, auth=auth_mode),
                max_request_bytes=max_request_bytes,
                monitor=monitor,
                push=PushReceiver(temporal),
                outbound=outbound.registrations,
                sse_keepalive=sse_keepalive,
                rate_limit=rate_limit,
                channel=channel,
                auth=auth,
            )
            worker = build_worker(
                temporal,
                task_queue=task_queue,
                activities=TaskActivities(harness, counters=counters),
                heartbeat=beats,
                push_base_url=url,
                push=outbound.activities,
                max_cached_workflows=max_cached_workflows,
            )
            http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
            await stack.enter_async_context(worker)
            server = await HttpServer(app, host="127.0.0.1", port=port).__aenter__()
            running = RunningHarness(
                url,
                task_queue,
                store,
                gateway,
                temporal,
                http,
                harness,
                installation,
                push_configs,
                server,
                app,
            )
            try:
                yield running
            finally:
                await running.server.__aexit__(None, None, None)
    finally:
        await harness.close()
        await push_configs.close()
        await store.close()


@asynccontextmanager
async def delegating_to(
    running: RunningHarness,
    agent_id: str,
    url: str,
    *,
    updates: str = "auto",
    auth: dict[str, str] | None = None,
) -> AsyncIterator[RemoteAgent]:
    """Register the A2A agent at `url` on `running`'s harness as `agent_id` (in its
    registry and its roster), as the server does with an `[[agents]]` entry (with its
    `auth` table, if given)."""
    fields: dict[str, object] = {"id": agent_id, "url": url, "updates": updates}
    if auth is not None:
        fields["auth"] = auth
    spec = RemoteAgentSpec.model_validate(fields)
    agent = await RemoteAgent.connect(spec)
    await running.harness.registry.add(RegistryEntry(ref=agent.ref, instance=agent))
    running.harness.roster = render_roster([agent])
    try:
        yield agent
    finally:
        await agent.aclose()


@asynccontextmanager
async def serving_self(running: RunningHarness) -> AsyncIterator[RemoteAgent]:
    """Register `running`'s own server on its harness as agent `self`, as `serve` does."""
    me = await RemoteAgent.connect(RemoteAgentSpec.for_self(running.url))
    await running.harness.registry.add(RegistryEntry(ref=me.ref, instance=me))
    try:
        yield me
    finally:
        await me.aclose()


async def sub_task_end(temporal: Client, parent_id: str) -> RemoteTurn:
    """The last turn of the parent's first sub-task, once its stand-in has ended."""
    handle = temporal.get_workflow_handle(f"{parent_id}.sub-1", result_type=RemoteTurn)
    turn: RemoteTurn = await handle.result()
    return turn


def as_participant(participant: str) -> ClientCallContext:
    """The call context of a client asserting `participant` (the `X-Participant-Id` header
    a perimeter sets); a delegated task belongs to its parent task's id."""
    parameters = ServiceParametersFactory.create_from({"A2A-Version": "1.0"}, [])
    parameters["X-Participant-Id"] = participant
    return ClientCallContext(service_parameters=parameters)


def user_message(text: str, *, task_id: str = "", context_id: str = "") -> Message:
    return new_text_message(
        text, task_id=task_id or None, context_id=context_id or None, role=Role.ROLE_USER
    )


def send_request(text: str, *, task_id: str = "", context_id: str = "") -> SendMessageRequest:
    return SendMessageRequest(message=user_message(text, task_id=task_id, context_id=context_id))


def watchers(*ids: str) -> tuple[Participant, ...]:
    """People taking part in a task as watchers, named by their ids."""
    return tuple(
        Participant(id=i, kind="human", role=ParticipantRole.WATCHER, display_name=i) for i in ids
    )


def with_task_envelope(request: SendMessageRequest, ext: TaskExtensionData) -> SendMessageRequest:
    """`request`, its message also carrying a task envelope with `ext`."""
    request.message.parts.append(envelope_part(EventEnvelope.of_task(ext)))
    return request


async def collect(stream: AsyncIterator[StreamResponse]) -> list[StreamResponse]:
    return [event async for event in stream]


async def first_event(stream: AsyncIterator[StreamResponse]) -> StreamResponse:
    """The stream's first event; the stream is closed after it (a subscription to a task
    that waits for input stays open until the task ends)."""
    try:
        return await anext(stream)
    finally:
        if isinstance(stream, AsyncGenerator):
            await stream.aclose()


def streamed_messages(events: list[StreamResponse]) -> list[Message]:
    """The messages of the stream's status updates (an opening task's history first)."""
    found: list[Message] = []
    for event in events:
        if event.HasField("task"):
            found.extend(event.task.history)
        elif event.HasField("status_update") and event.status_update.status.HasField("message"):
            found.append(event.status_update.status.message)
    return found


def call_events(messages: list[Message]) -> list[CallEvent]:
    """The model and tool calls the messages tell, in order."""
    return [event for message in messages for event in calls_in(message)]


def states(events: list[StreamResponse]) -> list[str]:
    """The task states the events announce, in order (artifacts shown as 'artifact')."""
    out: list[str] = []
    for event in events:
        kind = event.WhichOneof("payload")
        if kind == "task":
            out.append(TaskState.Name(event.task.status.state))
        elif kind == "status_update":
            out.append(TaskState.Name(event.status_update.status.state))
        elif kind == "artifact_update":
            out.append("artifact")
    return out


async def llm_inputs(temporal: Client, task_id: str) -> list[InvokeLLMInput]:
    """Every model call the task's workflow made, from its history, in order."""
    history = await temporal.get_workflow_handle(task_id).fetch_history()
    inputs: list[InvokeLLMInput] = []
    for event in history.events:
        if not event.HasField("activity_task_scheduled_event_attributes"):
            continue
        scheduled = event.activity_task_scheduled_event_attributes
        if scheduled.activity_type.name != "invoke_llm":
            continue
        decoded = await temporal.data_converter.decode(
            list(scheduled.input.payloads), [InvokeLLMInput]
        )
        inputs.append(decoded[0])
    return inputs


async def llm_requests(temporal: Client, task_id: str) -> list[LLMRequest]:
    """Every request the task's workflow sent to the model, from its history, in order;
    their tools are by reference (`offered_tools`)."""
    return [call.request for call in await llm_inputs(temporal, task_id)]


async def offered_tools(temporal: Client, task_id: str) -> list[set[str]]:
    """The names of the tools each of the task's model calls offered, in order."""
    return [
        {tool.name for tool in call.toolset.offered} if call.toolset is not None else set()
        for call in await llm_inputs(temporal, task_id)
    ]


async def llm_responses(temporal: Client, task_id: str) -> list[LLMResponse]:
    """Every answer the task's model gave, as recorded in its workflow history, in order."""
    history = await temporal.get_workflow_handle(task_id).fetch_history()
    llm_calls = {
        event.event_id
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
        and event.activity_task_scheduled_event_attributes.activity_type.name == "invoke_llm"
    }
    responses: list[LLMResponse] = []
    for event in history.events:
        done = event.activity_task_completed_event_attributes
        if event.HasField("activity_task_completed_event_attributes") and (
            done.scheduled_event_id in llm_calls
        ):
            decoded = await temporal.data_converter.decode(
                list(done.result.payloads), [LLMResponse]
            )
            responses.append(decoded[0])
    return responses


def ext_as_set(task: Task) -> TaskExtensionData | None:
    """The task's extension data without the usage the server counts in it: what its
    client and the harness set."""
    ext = ext_of(task)
    return None if ext is None else ext.model_copy(update={"usage": None})


def tool_output(text: str) -> str:
    """The content of a tool result as the model was shown it, without its untrusted-data
    block (`<tool_result ...>` ... `</tool_result>`)."""
    opening, _, rest = text.partition("\n")
    assert opening.startswith("<tool_result "), text
    content, _, closing = rest.rpartition("\n")
    assert closing == "</tool_result>", text
    return content


def log_fields(record: logging.LogRecord) -> dict[str, object]:
    """The structured fields a log record carries (`logs.FIELDS`), None where it has none."""
    return {name: record.__dict__.get(name) for name in FIELDS}


DEBUG_LOGGERS = (None, "a2a", "temporalio", "temporalio.activity", "temporalio.workflow", "httpx")
"""Every logger a message or secret could reach the log through (None: the root)."""


def capture_debug(caplog: pytest.LogCaptureFixture) -> None:
    """Capture DEBUG records from every logger in `DEBUG_LOGGERS`, whatever level an earlier
    test or the CLI left them at (pytest puts the levels back after the test), so a check
    that a secret is not in the DEBUG log reads a log that has DEBUG in it."""
    for name in DEBUG_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)


def payloads_in(message: ProtoMessage) -> list[Payload]:
    """Every Temporal `Payload` inside `message` (a history event, say), however deep."""
    if isinstance(message, Payload):
        return [message]
    found: list[Payload] = []
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            values = [v for v in value.values() if isinstance(v, ProtoMessage)]
        elif field.is_repeated:
            values = list(value)
        else:
            values = [value]
        for item in values:
            found += payloads_in(item)
    return found


async def history_payloads(temporal: Client, workflow_id: str) -> list[Payload]:
    """Every payload the workflow's history holds (its newest run), as Temporal keeps it."""
    history = await temporal.get_workflow_handle(workflow_id).fetch_history()
    return [payload for event in history.events for payload in payloads_in(event)]


async def stored_log(store: Store, task_id: str) -> list[StreamResponse]:
    """The task's whole event log as the store holds it, page by page."""
    events: list[StreamResponse] = []
    while page := (await store.read_log(task_id, len(events))).events:
        events.extend(page)
    return events

"""`RemoteAgent`: an A2A 1.0 agent reached over HTTP through the a2a-sdk client.

    connect(spec) ── GET <url>/.well-known/agent-card.json ── validate ── ClientFactory
                     (skipped when a card is given:                       (JSON-RPC or
                      the harness itself, same-process agents)             HTTP+JSON)

    every call:  A2A-Version: 1.0
                 A2A-Extensions: the supported URIs the card advertises (task, channel)
                 X-Participant-Id: the participant, on every call about a task

A card is refused (`UnsupportedExtensionError`, nothing ever sent) when it declares a
security scheme or requirement, requires an extension outside `SUPPORTED_EXTENSIONS`, or
offers no interface we speak at A2A 1.x. Every client or transport failure becomes an
`AgentUnavailableError` naming the agent and the failure's type, never the failure's text:
it may echo a request, and a push-config request carries a token. This module logs no
request, response or token.

A stream (`send_message`, `subscribe`) is closed on every exit: when the caller stops
reading and closes the generator, the HTTP response under it is closed at once, so the
agent sees the connection end (`sdk_streams.py`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from datetime import timedelta
from typing import Final, Self

import httpx
from a2a.client import A2ACardResolver, AgentCardResolutionError, ClientConfig, ClientFactory
from a2a.client import Client as A2AClient
from a2a.client.auth import AuthInterceptor
from a2a.client.client import ClientCallContext
from a2a.client.interceptors import ClientCallInterceptor
from a2a.client.service_parameters import (
    ServiceParameters,
    ServiceParametersFactory,
    with_a2a_extensions,
)
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskRequest,
    Message,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
)
from a2a.utils.constants import PROTOCOL_VERSION_1_0, VERSION_HEADER, TransportProtocol
from a2a.utils.errors import A2AError
from google.protobuf.json_format import ParseError
from packaging.version import InvalidVersion, Version

from tiny_harness.errors import AgentUnavailableError, ConfigError, UnsupportedExtensionError
from tiny_harness.harness.agents.agent import Agent, Updates
from tiny_harness.harness.agents.credentials import SchemeCredential, fitting_schemes
from tiny_harness.harness.agents.sdk_streams import closing_stream, track_responses
from tiny_harness.harness.agents.spec import AgentAuth, RemoteAgentSpec
from tiny_harness.harness.channels.extension import CHANNEL_EXTENSION_URI
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.http_spans import trace_calls_out
from tiny_harness.harness.tasks.extension import TASK_EXTENSION_URI

__all__ = [
    "BINDINGS",
    "PARTICIPANT_HEADER",
    "SUPPORTED_EXTENSIONS",
    "RemoteAgent",
    "card_refusal",
]

SUPPORTED_EXTENSIONS: Final[frozenset[str]] = frozenset({TASK_EXTENSION_URI, CHANNEL_EXTENSION_URI})
"""URIs of the A2A extensions the harness implements as a client: the task extension and
the channel extension."""

PARTICIPANT_HEADER: Final = "X-Participant-Id"
"""The header naming the participant a call about a task is made as (decision-003)."""

BINDINGS: Final[tuple[str, ...]] = (TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON)
"""The protocol bindings the client speaks; the card's order picks one."""

CALL_TIMEOUT_SECONDS: Final = 30.0
"""The limit on a unary call (card, GetTask, CancelTask, push configs), every phase."""

_STREAM_TIMEOUT: Final = httpx.Timeout(CALL_TIMEOUT_SECONDS, read=None)
"""The timeouts of a client we create: a stream may be quiet for as long as its task is."""

_MAX_QUOTED: Final = 200
"""The most of one card-supplied name a refusal quotes."""

_CLIENT_ERRORS: Final = (A2AError, httpx.HTTPError, ParseError, ValueError)
"""What the SDK client raises: A2A errors mapped from the agent's answers, transport errors
(A2AClientError), and what escapes its parsing (protobuf ParseError, ValueError)."""


def card_refusal(card: AgentCard, auth: AgentAuth | None = None) -> str | None:
    """Why the harness cannot use an agent with this card (holding the credential `auth`
    for it, if any), or None when it can; the names it quotes from the card are flattened
    to one line and cut."""
    if auth is not None and (card.security_schemes or card.security_requirements):
        if not fitting_schemes(card, auth):
            return (
                f"its card requires security the configured {auth.scheme} credential does not "
                f"fit (its schemes: {_listed(card.security_schemes)})"
            )
    elif card.security_schemes:
        return f"its card declares security schemes ({_listed(card.security_schemes)})"
    if card.security_requirements and auth is None:
        return "its card requires security"
    if any(s.security_requirements for s in card.skills):
        return "its card requires security for a skill"
    required = [
        e.uri
        for e in card.capabilities.extensions
        if e.required and e.uri not in SUPPORTED_EXTENSIONS
    ]
    if required:
        return f"its card requires extensions the harness does not implement: {_listed(required)}"
    if not _speaks_1_x(card):
        return "its card offers no JSON-RPC or HTTP+JSON interface at A2A 1.x"
    return None


def _credentials(spec: RemoteAgentSpec, card: AgentCard) -> list[ClientCallInterceptor]:
    """What puts the agent's credential on every call: nothing for an agent that needs
    none. Raises `ConfigError` naming the variable when the secret is not in the
    environment."""
    auth = spec.auth
    if auth is None or not (card.security_schemes or card.security_requirements):
        return []
    secret = auth.secret()
    if secret is None:
        raise ConfigError(
            f"agent {spec.id!r}: the environment variable {auth.variable} holding its "
            f"{auth.scheme} credential is not set",
            variable=auth.variable,
        )
    return [AuthInterceptor(SchemeCredential(secret, fitting_schemes(card, auth)))]


def _listed(names: Iterable[str]) -> str:
    return ", ".join(" ".join(name.split())[:_MAX_QUOTED] for name in sorted(names))


def _speaks_1_x(card: AgentCard) -> bool:
    """Whether an interface of ours is at 1.x, or all of ours leave the version unsaid."""
    ours = [i for i in card.supported_interfaces if i.protocol_binding in BINDINGS]
    versions = [i.protocol_version for i in ours]
    if ours and not any(versions):
        return True
    for version in versions:
        try:
            if Version(version).major == 1:
                return True
        except InvalidVersion:
            continue
    return False


class RemoteAgent(Agent):
    """An A2A agent at a URL, by id; build it with `connect`."""

    def __init__(
        self,
        spec: RemoteAgentSpec,
        card: AgentCard,
        client: A2AClient,
        http: httpx.AsyncClient,
        *,
        owns_http: bool,
    ) -> None:
        self.ref = EntityRef(kind=EntityKind.AGENT, id=spec.id, version=spec.version)
        self._card = card
        self._client = client
        self._http = http
        self._owns_http = owns_http
        self._updates: Updates = spec.updates
        self._follow_interval = spec.follow_interval
        advertised = {e.uri for e in card.capabilities.extensions}
        self._extensions = sorted(advertised & SUPPORTED_EXTENSIONS)
        self._closed = False

    @classmethod
    async def connect(
        cls,
        spec: RemoteAgentSpec,
        *,
        http: httpx.AsyncClient | None = None,
        card: AgentCard | None = None,
    ) -> Self:
        """The agent `spec` names, its card fetched (unless `card` is given) and validated.

        `http` is shared, not owned: `aclose` leaves it open, its timeouts bound the streams
        (a client made here lets a stream be quiet indefinitely), a response hook is added
        to it and its requests are traced (`trace_calls_out`). Unary calls are bounded by
        `CALL_TIMEOUT_SECONDS` either way.

        Raises `AgentUnavailableError` when the card cannot be fetched or parsed, and
        `UnsupportedExtensionError` when it is refused (see `card_refusal`).
        """
        owns_http = http is None
        client_http = http if http is not None else httpx.AsyncClient(timeout=_STREAM_TIMEOUT)
        trace_calls_out(client_http)
        try:
            if card is None:
                card = await _fetch_card(spec, client_http)
            reason = card_refusal(card, spec.auth)
            if reason is not None:
                raise UnsupportedExtensionError(f"agent {spec.id!r}: {reason}", agent=spec.id)
            track_responses(client_http)
            config = ClientConfig(
                streaming=True,
                httpx_client=client_http,
                supported_protocol_bindings=list(BINDINGS),
            )
            client = ClientFactory(config).create(card, interceptors=_credentials(spec, card))
        except BaseException:
            if owns_http:
                await client_http.aclose()
            raise
        return cls(spec, card, client, client_http, owns_http=owns_http)

    @property
    def card(self) -> AgentCard:
        """The agent's validated card."""
        return self._card

    @property
    def updates(self) -> Updates:
        """How a parked task of this agent is watched (the spec's `updates`)."""
        return self._updates

    @property
    def follow_interval(self) -> timedelta:
        """The pause before re-subscribing when a follow stream ended unchanged."""
        return self._follow_interval

    def send_message(self, message: Message, *, participant: str) -> AsyncGenerator[StreamResponse]:
        """SendMessage, streamed when the card allows it (else the one answer). Close the
        generator (`aclose`) when done with it early: that closes the HTTP response."""
        request = SendMessageRequest(message=message)
        context = self._context(participant, timeout=None)
        return self._stream(
            "SendMessage", lambda: self._client.send_message(request, context=context)
        )

    async def get_task(self, task_id: str, *, participant: str) -> Task:
        """GetTask: the task as the agent has it now."""
        try:
            return await self._client.get_task(
                GetTaskRequest(id=task_id), context=self._context(participant)
            )
        except _CLIENT_ERRORS as error:
            raise self._unavailable("GetTask", error) from None

    def subscribe(self, task_id: str, *, participant: str) -> AsyncGenerator[StreamResponse]:
        """SubscribeToTask; `AgentUnavailableError` before any request when the card does
        not stream."""
        request = SubscribeToTaskRequest(id=task_id)
        context = self._context(participant, timeout=None)
        refusal = None if self._card.capabilities.streaming else "the agent does not stream"
        return self._stream(
            "SubscribeToTask",
            lambda: self._client.subscribe(request, context=context),
            refusal=refusal,
        )

    async def cancel_task(self, task_id: str, *, participant: str) -> Task:
        """CancelTask: the task as the agent answers."""
        try:
            return await self._client.cancel_task(
                CancelTaskRequest(id=task_id), context=self._context(participant)
            )
        except _CLIENT_ERRORS as error:
            raise self._unavailable("CancelTask", error) from None

    async def set_push_config(self, task_id: str, url: str, token: str, *, participant: str) -> str:
        """Register `url` and `token` (no config id: the agent assigns it) and return the id.

        An agent whose card does not advertise push gets no request: the refusal is an
        `AgentUnavailableError` saying so. The token is sent, never logged or echoed.
        """
        if not self.push_supported:
            raise AgentUnavailableError(
                f"agent {self.agent_id!r} does not advertise push notifications",
                agent=self.agent_id,
            )
        config = TaskPushNotificationConfig(task_id=task_id, url=url, token=token)
        try:
            created = await self._client.create_task_push_notification_config(
                config, context=self._context(participant)
            )
        except _CLIENT_ERRORS as error:
            raise self._unavailable("CreateTaskPushNotificationConfig", error) from None
        if not created.id:
            raise AgentUnavailableError(
                f"agent {self.agent_id!r} registered a push config without an id",
                agent=self.agent_id,
            )
        return created.id

    async def delete_push_config(self, task_id: str, config_id: str, *, participant: str) -> None:
        """DeleteTaskPushNotificationConfig for a config `set_push_config` registered."""
        request = DeleteTaskPushNotificationConfigRequest(task_id=task_id, id=config_id)
        try:
            await self._client.delete_task_push_notification_config(
                request, context=self._context(participant)
            )
        except _CLIENT_ERRORS as error:
            raise self._unavailable("DeleteTaskPushNotificationConfig", error) from None

    async def aclose(self) -> None:
        """Close the SDK client, and the httpx client when `connect` created it."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._client.close()
        finally:
            if self._owns_http:
                await self._http.aclose()

    def _context(
        self, participant: str, *, timeout: float | None = CALL_TIMEOUT_SECONDS
    ) -> ClientCallContext:
        """The headers of one call: the version, our extensions, the participant (when
        there is one), and for a unary call its time limit."""
        updates = [with_a2a_extensions(self._extensions)] if self._extensions else []
        parameters: ServiceParameters = ServiceParametersFactory.create_from(
            {VERSION_HEADER: PROTOCOL_VERSION_1_0}, updates
        )
        if participant:
            parameters[PARTICIPANT_HEADER] = participant
        return ClientCallContext(service_parameters=parameters, timeout=timeout)

    def _stream(
        self,
        operation: str,
        open_stream: Callable[[], AsyncIterator[StreamResponse]],
        *,
        refusal: str | None = None,
    ) -> AsyncGenerator[StreamResponse]:
        """The SDK stream `open_stream` makes, errors mapped, closed on every exit.

        Callers return this generator itself, never wrap it in another: closing a wrapper
        would leave this one (and the response it closes) to the garbage collector.
        A `refusal` is raised on the first step, before anything is sent.
        """
        refused = (
            AgentUnavailableError(
                f"agent {self.agent_id!r}: {operation} refused: {refusal}", agent=self.agent_id
            )
            if refusal is not None
            else None
        )
        return closing_stream(
            open_stream,
            errors=_CLIENT_ERRORS,
            mapped=lambda error: self._unavailable(operation, error),
            refusal=refused,
        )

    def _unavailable(self, operation: str, error: BaseException) -> AgentUnavailableError:
        """The error for a failed call: the operation and the failure's type, no text."""
        return AgentUnavailableError(
            f"agent {self.agent_id!r}: {operation} failed ({type(error).__name__})",
            agent=self.agent_id,
        )


async def _fetch_card(spec: RemoteAgentSpec, http: httpx.AsyncClient) -> AgentCard:
    resolver = A2ACardResolver(http, str(spec.url))
    headers = {VERSION_HEADER: PROTOCOL_VERSION_1_0}
    try:
        return await resolver.get_agent_card(
            http_kwargs={"headers": headers, "timeout": CALL_TIMEOUT_SECONDS}
        )
    except AgentCardResolutionError as error:
        status = f", HTTP {error.status_code}" if error.status_code is not None else ""
        raise AgentUnavailableError(
            f"agent {spec.id!r}: its card cannot be fetched or parsed "
            f"({type(error.__cause__ or error).__name__}{status})",
            agent=spec.id,
        ) from None
    except _CLIENT_ERRORS as error:
        raise AgentUnavailableError(
            f"agent {spec.id!r}: its card cannot be fetched or parsed ({type(error).__name__})",
            agent=spec.id,
        ) from None

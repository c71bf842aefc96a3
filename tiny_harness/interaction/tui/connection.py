"""`AgentConnection`: the terminal UI's one way to an A2A agent, through the a2a-sdk client.

    open(url) ── the agent card (A2ACardResolver) ── ClientFactory: the transport the card
                                                      offers first (JSON-RPC or HTTP+JSON)
    every call: A2A-Version: 1.0, X-Participant-Id when the person gave a name,
                A2A-Extensions: A2UI 0.9.1 when the card offers it (never an extension the
                card does not list, so any A2A agent can be used)

It uses nothing private to tiny-harness: against another agent the features that need our
extensions simply have nothing to show. Every failure becomes an `AgentCallError` a person
can read: `AgentUnreachableError` when there was no answer (the UI retries), an
`AgentRefusalError` carrying the A2A error's name, code and message when the agent said no.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Final, Self

import httpx
from a2a.client import A2ACardResolver, A2AClientError, ClientConfig, ClientFactory
from a2a.client import Client as A2AClient
from a2a.client.client import ClientCallContext
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
)
from a2a.utils.constants import PROTOCOL_VERSION_1_0, VERSION_HEADER
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP, A2AError
from google.protobuf.json_format import ParseError

from tiny_harness.errors import AgentCallError, AgentRefusalError, AgentUnreachableError
from tiny_harness.harness.a2ui.messages import A2UI_EXTENSION_URI
from tiny_harness.harness.agents.remote import BINDINGS, PARTICIPANT_HEADER
from tiny_harness.harness.agents.sdk_streams import closing_stream, track_responses
from tiny_harness.interaction.tui import DEFAULT_URL

__all__ = ["AgentConnection"]

CALL_TIMEOUT_SECONDS: Final = 15.0
"""The limit on a unary call; a stream may be quiet as long as its task is."""

_TRANSPORT_ERRORS: Final = (A2AClientError, httpx.HTTPError, OSError)
_ERRORS: Final = (A2AError, httpx.HTTPError, OSError, ParseError, ValueError)


def call_error(error: BaseException, operation: str) -> AgentCallError:
    """What a failed SDK call means to a person: unreachable, or the agent's refusal."""
    if isinstance(error, _TRANSPORT_ERRORS):
        return AgentUnreachableError(f"{operation}: no answer from the agent ({_said(error)})")
    if isinstance(error, A2AError):
        code = JSON_RPC_ERROR_CODE_MAP.get(type(error))
        return AgentRefusalError(
            f"{operation}: {error.message}", reason=type(error).__name__, a2a_code=code
        )
    return AgentCallError(f"{operation}: the agent's answer cannot be read ({_said(error)})")


def _said(error: BaseException) -> str:
    text = " ".join(str(error).split())[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class AgentConnection:
    """One agent, as one participant; build it with `open`, end it with `aclose`."""

    def __init__(
        self, url: str, card: AgentCard, client: A2AClient, http: httpx.AsyncClient, who: str
    ) -> None:
        self.url = url
        self.card = card
        self.participant = who
        self._client = client
        self._http = http
        offered = {e.uri for e in card.capabilities.extensions}
        self.offers_a2ui = A2UI_EXTENSION_URI in offered
        self._extensions = [A2UI_EXTENSION_URI] if self.offers_a2ui else []

    @classmethod
    async def open(cls, url: str = DEFAULT_URL, *, participant: str = "", token: str = "") -> Self:
        """The agent at `url`: its card read, a client made for the transport it offers;
        every call presents `token` as a bearer token when given (an agent's API key).
        Raises `AgentUnreachableError` when the card cannot be had."""
        headers = {"Authorization": f"Bearer {token}"} if token else None
        http = httpx.AsyncClient(
            headers=headers, timeout=httpx.Timeout(CALL_TIMEOUT_SECONDS, read=None)
        )
        try:
            track_responses(http)
            resolver = A2ACardResolver(http, url)
            card = await resolver.get_agent_card(
                http_kwargs={
                    "headers": {VERSION_HEADER: PROTOCOL_VERSION_1_0},
                    "timeout": CALL_TIMEOUT_SECONDS,
                }
            )
            config = ClientConfig(
                streaming=True, httpx_client=http, supported_protocol_bindings=list(BINDINGS)
            )
            client = ClientFactory(config).create(card)
        except _ERRORS as error:
            await http.aclose()
            raise AgentUnreachableError(
                f"the agent card at {url} cannot be read ({_said(error)})"
            ) from None
        except BaseException:
            await http.aclose()
            raise
        return cls(url, card, client, http, participant)

    @property
    def streams(self) -> bool:
        """Whether the card offers streaming (SendStreamingMessage, SubscribeToTask)."""
        return bool(self.card.capabilities.streaming)

    async def list_tasks(self, *, page_size: int = 100, history: bool = False) -> list[Task]:
        """The caller's tasks, newest change first (one page); their histories only when
        `history` (a long task's history is large, and a list needs none)."""
        request = ListTasksRequest(page_size=page_size)
        if not history:
            request.history_length = 0
        try:
            page = await self._client.list_tasks(request, context=self._context())
        except _ERRORS as error:
            raise call_error(error, "ListTasks") from None
        return list(page.tasks)

    async def get_task(self, task_id: str) -> Task:
        """The task as it stands, with its history."""
        try:
            return await self._client.get_task(GetTaskRequest(id=task_id), context=self._context())
        except _ERRORS as error:
            raise call_error(error, "GetTask") from None

    async def cancel(self, task_id: str) -> Task:
        """CancelTask: the task as the agent answers."""
        try:
            return await self._client.cancel_task(
                CancelTaskRequest(id=task_id), context=self._context()
            )
        except _ERRORS as error:
            raise call_error(error, "CancelTask") from None

    def send(self, message: Message) -> AsyncGenerator[StreamResponse]:
        """SendStreamingMessage (SendMessage's one answer when the card does not stream)."""
        request = SendMessageRequest(message=message)
        return closing_stream(
            lambda: self._client.send_message(request, context=self._context(timeout=None)),
            errors=_ERRORS,
            mapped=lambda error: call_error(error, "SendMessage"),
        )

    def subscribe(self, task_id: str) -> AsyncGenerator[StreamResponse]:
        """SubscribeToTask: the task as it stands, then every event until it is final."""
        request = SubscribeToTaskRequest(id=task_id)
        refusal = None
        if not self.streams:
            refusal = AgentRefusalError(
                "SubscribeToTask: the agent does not stream",
                reason="UnsupportedOperationError",
                a2a_code=None,
            )
        return closing_stream(
            lambda: self._client.subscribe(request, context=self._context(timeout=None)),
            errors=_ERRORS,
            mapped=lambda error: call_error(error, "SubscribeToTask"),
            refusal=refusal,
        )

    async def aclose(self) -> None:
        """Close the SDK client and its HTTP connections."""
        try:
            await self._client.close()
        finally:
            await self._http.aclose()

    def _context(self, *, timeout: float | None = CALL_TIMEOUT_SECONDS) -> ClientCallContext:
        updates = [with_a2a_extensions(self._extensions)] if self._extensions else []
        parameters = ServiceParametersFactory.create_from(
            {VERSION_HEADER: PROTOCOL_VERSION_1_0}, updates
        )
        if self.participant:
            parameters[PARTICIPANT_HEADER] = self.participant
        return ClientCallContext(service_parameters=parameters, timeout=timeout)

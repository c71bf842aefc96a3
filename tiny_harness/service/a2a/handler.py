"""`HarnessRequestHandler`: the A2A operations, answered by task workflows.

It implements the SDK's `RequestHandler` directly rather than the SDK's default handler:
the default keeps an in-process registry of running tasks as their source of truth (and,
for a task it is not running, writes CANCELED straight into its store), while here Temporal
owns every task's life. Each operation is a thin mapping onto `TaskGateway`:

    SendMessage / SendStreamingMessage  update-with-start (new task) or update (reply),
                                        then the event bridge from the receipt's cursor
    GetTask / ListTasks                 workflow query, or the store once closed
    CancelTask                          signal, then the bridge until the task is final
    SubscribeToTask                     the bridge from event 0: a full replay, then live
    push-config operations              `PushRegistrations` (store + courier workflow), when
                                        the server offers push; refused when it does not

Refusals are the A2A errors the specification names, raised before any workflow starts:
among them a request naming an extension the card does not advertise, and a message whose
task envelope (docs/a2a/ext/) does not validate.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncGenerator

from a2a.server.context import ServerCallContext
from a2a.server.events import Event
from a2a.server.request_handlers import RequestHandler
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
)
from a2a.utils.errors import (
    ExtendedAgentCardNotConfiguredError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from a2a.utils.proto_utils import validate_proto_required_fields
from a2a.utils.task import apply_history_length, validate_history_length, validate_page_size

from tiny_harness.errors import (
    FinalTaskError,
    InvalidMessageError,
    PushError,
    PushUrlRefusedError,
    TaskExtensionError,
    TaskRefusedError,
    UnknownTaskError,
)
from tiny_harness.harness.core.task_ext import envelopes_in
from tiny_harness.service.a2a.bridge import follow
from tiny_harness.service.a2a.listing import list_tasks
from tiny_harness.service.durable.event_log import TERMINAL_STATES
from tiny_harness.service.durable.gateway import TaskGateway
from tiny_harness.service.durable.models import InboxReceipt, TaskSnapshot
from tiny_harness.service.notifications.registrations import PushRegistrations

logger = logging.getLogger(__name__)


class HarnessRequestHandler(RequestHandler):
    """Every A2A operation of the harness, over `TaskGateway`."""

    def __init__(
        self, gateway: TaskGateway, card: AgentCard, *, push: PushRegistrations | None = None
    ) -> None:
        self._gateway = gateway
        self._card = card
        self._push = push

    # ---- messages ----------------------------------------------------------------------

    async def on_message_send(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> Task | Message:
        """Accept the message; answer at once (`returnImmediately`) or when the task pauses."""
        receipt = await self._accept(params, context)
        task_id = receipt.task.id
        if not params.configuration.return_immediately:
            async for _ in follow(self._gateway, task_id, receipt.cursor, receipt.page):
                pass
            snap = await self._gateway.snapshot(task_id)
            if snap is not None:
                return apply_history_length(snap.task, params.configuration)
        return apply_history_length(receipt.task, params.configuration)

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event]:
        """Accept the message, then stream the task: its snapshot first, then each event."""
        receipt = await self._accept(params, context)
        if receipt.cursor > 0:  # a new task's log opens with the task itself
            yield apply_history_length(receipt.task, params.configuration)
        async for event in follow(self._gateway, receipt.task.id, receipt.cursor, receipt.page):
            yield _payload(event)

    async def _accept(self, params: SendMessageRequest, context: ServerCallContext) -> InboxReceipt:
        validate_proto_required_fields(params)
        validate_history_length(params.configuration)
        self._check_extensions(context)
        message = params.message
        if message.role == Role.ROLE_AGENT:
            raise InvalidParamsError(message="a client message must have role ROLE_USER")
        if not message.parts:
            raise InvalidParamsError(message="a message needs at least one part")
        _check_envelopes(message)
        wants_push = params.configuration.HasField("task_push_notification_config")
        if wants_push and self._push is None:
            raise PushNotificationNotSupportedError
        push = params.configuration.task_push_notification_config if wants_push else None
        try:
            if message.task_id:
                return await self._reply(message, push)
            task_id = str(uuid.uuid4())
            context_id = message.context_id or str(uuid.uuid4())
            if push is None:
                return await self._gateway.start(task_id, context_id, message)
            # Registered first, so a refused config starts no task; its courier reads
            # from event 0, so it hears the task from the beginning whenever it starts.
            stored = await self._register(push, task_id, cursor=0, final=False)
            try:
                return await self._gateway.start(task_id, context_id, message)
            except BaseException:
                await self._registrations().delete(task_id, stored.id)
                raise
        except TaskRefusedError as error:
            raise _protocol_error(error) from error

    def _check_extensions(self, context: ServerCallContext) -> None:
        """Refuse a request that asks for an extension this server does not offer."""
        offered = {e.uri for e in self._card.capabilities.extensions}
        unknown = sorted(context.requested_extensions - offered)
        if unknown:
            raise UnsupportedOperationError(
                message=f"extension not supported by this agent: {', '.join(unknown)}"
            )

    async def _reply(
        self, message: Message, push: TaskPushNotificationConfig | None
    ) -> InboxReceipt:
        snap = await self._known(message.task_id)
        if snap.task.status.state in TERMINAL_STATES:
            raise FinalTaskError(f"task {message.task_id} is final and takes no more messages")
        if message.context_id and message.context_id != snap.task.context_id:
            raise InvalidMessageError(
                f"context {message.context_id} does not match the task's context"
            )
        if push is not None:
            await self._register(push, message.task_id, cursor=snap.version, final=False)
        return await self._gateway.send(message.task_id, message)

    # ---- tasks -------------------------------------------------------------------------

    async def on_get_task(self, params: GetTaskRequest, context: ServerCallContext) -> Task | None:
        """The task as it stands, trimmed to `historyLength`."""
        validate_history_length(params)
        snap = await self._known_or_404(params.id)
        return apply_history_length(snap.task, params)

    async def on_list_tasks(
        self, params: ListTasksRequest, context: ServerCallContext
    ) -> ListTasksResponse:
        """A page of tasks from the store, newest change first."""
        validate_history_length(params)
        if params.HasField("page_size"):
            validate_page_size(params.page_size)
        return await list_tasks(self._gateway.store, params)

    async def on_cancel_task(
        self, params: CancelTaskRequest, context: ServerCallContext
    ) -> Task | None:
        """Signal the workflow to cancel and answer once the task is CANCELED (or final)."""
        snap = await self._known_or_404(params.id)
        if snap.task.status.state in TERMINAL_STATES:
            raise TaskNotCancelableError
        try:
            await self._gateway.cancel(params.id, "canceled by request")
        except FinalTaskError as error:
            raise TaskNotCancelableError from error
        async for _ in follow(self._gateway, params.id, snap.version):
            pass
        final = await self._known_or_404(params.id)
        return final.task

    async def on_subscribe_to_task(
        self, params: SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event]:
        """Replay the task's whole event log, then follow it live."""
        snap = await self._known_or_404(params.id)
        if snap.task.status.state in TERMINAL_STATES:
            raise UnsupportedOperationError(message=f"task {params.id} is in a final state")
        async for event in follow(self._gateway, params.id, 0):
            yield _payload(event)

    async def _known(self, task_id: str) -> TaskSnapshot:
        snap = await self._gateway.snapshot(task_id)
        if snap is None:
            raise UnknownTaskError(f"no task {task_id}")
        return snap

    async def _known_or_404(self, task_id: str) -> TaskSnapshot:
        try:
            return await self._known(task_id)
        except UnknownTaskError as error:
            raise TaskNotFoundError from error

    # ---- push notifications ----------------------------------------------------------------

    def _registrations(self) -> PushRegistrations:
        if self._push is None:
            raise PushNotificationNotSupportedError
        return self._push

    async def _register(
        self, config: TaskPushNotificationConfig, task_id: str, *, cursor: int, final: bool
    ) -> TaskPushNotificationConfig:
        """Store a config for `task_id` (its own task id must be empty or the same)."""
        if config.task_id and config.task_id != task_id:
            raise InvalidParamsError(message="the push config names another task")
        bound = TaskPushNotificationConfig()
        bound.CopyFrom(config)
        bound.task_id = task_id
        try:
            return await self._registrations().create(bound, cursor=cursor, final=final)
        except PushUrlRefusedError as error:
            raise InvalidParamsError(message=f"push URL refused: {error.reason}") from error
        except PushError as error:
            raise InvalidParamsError(message=error.message) from error

    async def on_create_task_push_notification_config(
        self, params: TaskPushNotificationConfig, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        """Register a receiver for the task's events from now on (secrets never echoed)."""
        self._registrations()
        validate_proto_required_fields(params)
        snap = await self._known_or_404(params.task_id)
        final = snap.task.status.state in TERMINAL_STATES
        return await self._register(params, params.task_id, cursor=snap.version, final=final)

    async def on_get_task_push_notification_config(
        self, params: GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        """One of the task's push configs, without token or credentials."""
        push = self._registrations()
        await self._known_or_404(params.task_id)
        config = await push.get(params.task_id, params.id)
        if config is None:
            raise TaskNotFoundError(message=f"no push config {params.id} on this task")
        return config

    async def on_list_task_push_notification_configs(
        self, params: ListTaskPushNotificationConfigsRequest, context: ServerCallContext
    ) -> ListTaskPushNotificationConfigsResponse:
        """The task's push configs, without tokens or credentials, in one page."""
        push = self._registrations()
        await self._known_or_404(params.task_id)
        return ListTaskPushNotificationConfigsResponse(configs=await push.list(params.task_id))

    async def on_delete_task_push_notification_config(
        self, params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> None:
        """Forget a push config and stop its deliveries."""
        push = self._registrations()
        await self._known_or_404(params.task_id)
        if not await push.delete(params.task_id, params.id):
            raise TaskNotFoundError(message=f"no push config {params.id} on this task")

    async def on_get_extended_agent_card(
        self, params: GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> AgentCard:
        """There is no extended card."""
        raise ExtendedAgentCardNotConfiguredError


def _check_envelopes(message: Message) -> None:
    """Refuse a message whose task envelopes do not validate, or that carries an event kind
    this server does not take from clients (only `task` envelopes are taken)."""
    try:
        envelopes = envelopes_in(message)
    except TaskExtensionError as error:
        raise InvalidParamsError(message=error.message) from error
    for envelope in envelopes:
        if envelope.kind != "task":
            raise InvalidParamsError(
                message=f"a {envelope.kind} envelope is not accepted in a message to this agent"
            )


def _payload(event: StreamResponse) -> Event:
    kind = event.WhichOneof("payload")
    if kind == "task":
        return event.task
    if kind == "status_update":
        return event.status_update
    if kind == "artifact_update":
        return event.artifact_update
    return event.message


def _protocol_error(error: TaskRefusedError) -> Exception:
    if isinstance(error, UnknownTaskError):
        return TaskNotFoundError(message=error.message)
    if isinstance(error, FinalTaskError):
        return UnsupportedOperationError(message=error.message)
    return InvalidParamsError(message=error.message)

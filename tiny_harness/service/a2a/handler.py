"""`HarnessRequestHandler`: the A2A operations, answered by task workflows.

It implements the SDK's `RequestHandler` directly rather than the SDK's default handler:
the default keeps an in-process registry of running tasks as their source of truth (and,
for a task it is not running, writes CANCELED straight into its store), while here Temporal
owns every task's life. Each operation is a thin mapping onto `TaskGateway`:

    SendMessage / SendStreamingMessage  update-with-start (new task) or update (reply),
                                        then the event bridge from the receipt's cursor
    GetTask / ListTasks                 the store (the end stored first for a workflow that
                                        ended outside its loop)
    CancelTask                          signal, then the bridge until the task is final
    SubscribeToTask                     the task as it stands, then the bridge from there
    push-config operations              `PushRegistrations` (store + courier workflow), when
                                        the server offers push; refused when it does not

Refusals are the A2A errors the specification names, raised before any workflow starts
(a message's are `admission.py`'s). Every operation on a task first checks that the caller
takes part in it (`access.py`): a task the caller may not see is answered exactly as a task
that does not exist.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncGenerator
from datetime import UTC, datetime

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
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
)
from a2a.utils.errors import (
    InvalidParamsError,
    TaskNotCancelableError,
    UnsupportedOperationError,
)
from a2a.utils.proto_utils import validate_proto_required_fields
from a2a.utils.task import apply_history_length, validate_history_length

from tiny_harness.errors import (
    ChannelMembershipError,
    FinalTaskError,
    RoleChangeError,
    TaskRefusedError,
)
from tiny_harness.harness.channels.a2a import A2AChannel
from tiny_harness.harness.persistence.store import TaskQuery
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.service.a2a.access import (
    asserted_participant,
    deny,
    may_access,
    not_found,
    owner_of,
)
from tiny_harness.service.a2a.admission import admit
from tiny_harness.service.a2a.bridge import follow, logged_events
from tiny_harness.service.a2a.listing import list_tasks
from tiny_harness.service.a2a.push_config_requests import PushConfigRequests
from tiny_harness.service.admission import AdmittedMessage
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.payloads import InboxReceipt, TaskSnapshot
from tiny_harness.service.notifications.registrations import PushRegistrations
from tiny_harness.service.o11y.agent_spans import invoke_agent
from tiny_harness.service.refusals import a2a_error
from tiny_harness.service.replies import check_reply, send_reply

logger = logging.getLogger(__name__)

CHANNEL_OPERATION = "post to the channel of"
"""How a refused post is named in the denial log line."""


class HarnessRequestHandler(RequestHandler):
    """Every A2A operation of the harness, over `TaskGateway`."""

    def __init__(
        self,
        gateway: TaskGateway,
        card: AgentCard,
        *,
        push: PushRegistrations | None = None,
        redactor: Redactor | None = None,
        channel: A2AChannel | None = None,
    ) -> None:
        """`redactor` masks credentials in every inbound message (None: the built-in shapes,
        no configured secrets); `channel` decides who may post to a task's channel (None:
        the default `A2AChannel`)."""
        self._gateway = gateway
        self._card = card
        self._push = PushConfigRequests(push)
        self._redactor = redactor or Redactor()
        self._channel = channel or A2AChannel()

    # ---- messages ----------------------------------------------------------------------

    async def on_message_send(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> Task | Message:
        """Accept the message; answer at once (`returnImmediately`) or when the task pauses."""
        receipt = await self._accept(params, context)
        task_id = receipt.task.id
        if not params.configuration.return_immediately and not receipt.queued:
            async for _ in follow(self._gateway, task_id, receipt.cursor):
                pass
            snap = await self._gateway.snapshot(task_id, history_length=_length(params))
            if snap is not None:
                return apply_history_length(snap.task, params.configuration)
        return await self._as_accepted(receipt, params)

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event]:
        """Accept the message, then stream the task: as it was when it took the message (a
        new task's log opens with the task itself), then each event after that."""
        receipt = await self._accept(params, context)
        if receipt.cursor > 0:
            yield await self._as_accepted(receipt, params)
        if receipt.queued:
            return  # the task waits for someone else's answer: nothing moves now
        async for event in follow(self._gateway, receipt.task.id, receipt.cursor):
            yield _payload(event)

    async def _as_accepted(self, receipt: InboxReceipt, params: SendMessageRequest) -> Task:
        """The task as it took the message, with its history from the store, trimmed."""
        task = Task()
        task.CopyFrom(receipt.task)
        snap = await self._gateway.snapshot(task.id, history_length=_length(params))
        if snap is not None:
            task.history.extend(snap.task.history)
        return apply_history_length(task, params.configuration)

    async def _accept(self, params: SendMessageRequest, context: ServerCallContext) -> InboxReceipt:
        request = admit(
            params,
            context,
            card=self._card,
            redactor=self._redactor,
            push_offered=self._push.offered,
        )
        admitted, push = request.admitted, request.push
        message, participant = admitted.message, admitted.participant
        try:
            if message.task_id:
                receipt = await self._reply(admitted, push)
            else:
                receipt = await self._start(message, push, participant)
        except TaskRefusedError as error:
            raise a2a_error(error) from error
        if admitted.masked:  # how many, never what
            logger.info(
                "task %s: masked %d credential-shaped values in message %s",
                receipt.task.id,
                admitted.masked,
                message.message_id,
            )
        return receipt

    async def _start(
        self, message: Message, push: TaskPushNotificationConfig | None, participant: str
    ) -> InboxReceipt:
        """A new task, in a new context or in one the participant started."""
        task_id = str(uuid.uuid4())
        if message.context_id:
            await self._check_context_owner(message.context_id, participant)
        context_id = message.context_id or str(uuid.uuid4())
        with invoke_agent(self._card.name, task_id, context_id, message.message_id):
            if push is None:
                return await self._gateway.start(task_id, context_id, message)
            # Registered first, so a refused config starts no task; its courier reads from
            # event 0, so it hears the task from the beginning whenever it starts.
            stored = await self._push.register(push, task_id, cursor=0, final=False)
            try:
                return await self._gateway.start(task_id, context_id, message)
            except BaseException:
                await self._push.require().delete(task_id, stored.id)
                raise

    async def _check_context_owner(self, context_id: str, participant: str) -> None:
        """Refuse a context another participant started, saying nothing of it."""
        page = await self._gateway.store.list_tasks(TaskQuery(context_id=context_id, page_size=1))
        if page.records and owner_of(page.records[0].task) != participant:
            logger.warning(
                "access denied: participant %r may not use context %s", participant, context_id
            )
            raise InvalidParamsError(message=f"context {context_id} cannot be used")

    async def _reply(
        self, admitted: AdmittedMessage, push: TaskPushNotificationConfig | None
    ) -> InboxReceipt:
        """The one reply path (`replies.py`), behind the access policy; a post by someone
        not on the channel gets the answer a missing task gets (abuse case 4)."""
        task_id, participant = admitted.message.task_id, admitted.participant
        snap = await self._visible_to(task_id, participant, "message", history_length=0)
        try:
            check_reply(self._channel, admitted, snap.task)
        except ChannelMembershipError as error:
            raise deny(CHANNEL_OPERATION, participant, task_id) from error
        except RoleChangeError as error:
            raise a2a_error(error) from error
        if push is not None:
            await self._push.register(push, task_id, cursor=snap.version, final=False)
        with invoke_agent(
            self._card.name, task_id, snap.task.context_id, admitted.message.message_id
        ):
            return await send_reply(self._gateway, admitted, datetime.now(UTC))

    # ---- tasks -------------------------------------------------------------------------

    async def on_get_task(self, params: GetTaskRequest, context: ServerCallContext) -> Task | None:
        """The task as it stands, trimmed to `historyLength`."""
        validate_history_length(params)
        length = params.history_length if params.HasField("history_length") else None
        snap = await self._visible(params.id, context, "read", history_length=length)
        return apply_history_length(snap.task, params)

    async def on_list_tasks(
        self, params: ListTasksRequest, context: ServerCallContext
    ) -> ListTasksResponse:
        """A page of the caller's tasks from the store, newest change first."""
        participant = asserted_participant(context)
        return await list_tasks(self._gateway, params, participant=participant)

    async def on_cancel_task(
        self, params: CancelTaskRequest, context: ServerCallContext
    ) -> Task | None:
        """Signal the workflow to cancel and answer once the task is CANCELED (or final)."""
        snap = await self._visible(params.id, context, "cancel", history_length=0)
        if snap.task.status.state in FINAL:
            raise TaskNotCancelableError
        try:
            await self._gateway.cancel(params.id, "canceled by request")
        except FinalTaskError as error:
            raise TaskNotCancelableError from error
        async for _ in logged_events(self._gateway, params.id, snap.version):
            pass
        final = await self._visible(params.id, context, "read")
        return final.task

    async def on_subscribe_to_task(
        self, params: SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event]:
        """The task as it stands (A2A 1.0 3.1.6: the first event is the current Task), then
        every event after it until the task is final.

        Unlike a send's stream, this one stays open through INPUT_REQUIRED and
        AUTH_REQUIRED (3.1.6: it terminates at a terminal state), so a subscriber hears the
        reply someone else sends and how the task ends."""
        snap = await self._visible(params.id, context, "subscribe to")
        if snap.task.status.state in FINAL:
            raise UnsupportedOperationError(message=f"task {params.id} is in a final state")
        yield snap.task
        async for logged in logged_events(self._gateway, params.id, snap.version):
            yield _payload(logged.event)

    async def _visible(
        self,
        task_id: str,
        context: ServerCallContext,
        operation: str,
        *,
        history_length: int | None = None,
    ) -> TaskSnapshot:
        """The task, if it exists and the calling participant takes part in it."""
        participant = asserted_participant(context)
        return await self._visible_to(task_id, participant, operation, history_length)

    async def _visible_to(
        self, task_id: str, participant: str, operation: str, history_length: int | None = None
    ) -> TaskSnapshot:
        """The task (with its `history_length` newest messages; None: all) if it exists and
        `participant` takes part in it; else the one not-found answer, the same for both (a
        denial is logged)."""
        snap = await self._gateway.snapshot(task_id, history_length=history_length)
        if snap is None:
            raise not_found(task_id)
        if not may_access(participant, snap.task):
            raise deny(operation, participant, task_id)
        return snap

    # ---- push notifications ----------------------------------------------------------------

    async def on_create_task_push_notification_config(
        self, params: TaskPushNotificationConfig, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        """Register a receiver for the task's events from now on (secrets never echoed)."""
        self._push.require()
        validate_proto_required_fields(params)
        snap = await self._visible(params.task_id, context, "configure push for", history_length=0)
        return await self._push.create(params, snap)

    async def on_get_task_push_notification_config(
        self, params: GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        """One of the task's push configs, without token or credentials."""
        self._push.require()
        await self._visible(params.task_id, context, "configure push for", history_length=0)
        return await self._push.get(params)

    async def on_list_task_push_notification_configs(
        self, params: ListTaskPushNotificationConfigsRequest, context: ServerCallContext
    ) -> ListTaskPushNotificationConfigsResponse:
        """The task's push configs, without tokens or credentials, in one page."""
        self._push.require()
        await self._visible(params.task_id, context, "configure push for", history_length=0)
        return await self._push.list(params)

    async def on_delete_task_push_notification_config(
        self, params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> None:
        """Forget a push config and stop its deliveries."""
        self._push.require()
        await self._visible(params.task_id, context, "configure push for", history_length=0)
        await self._push.delete(params)

    async def on_get_extended_agent_card(
        self, params: GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> AgentCard:
        """There is no extended card, and the card says so: the spec's answer is
        UnsupportedOperation (ExtendedAgentCardNotConfigured is for a card that promises
        one)."""
        raise UnsupportedOperationError(message="this agent has no extended agent card")


def _length(params: SendMessageRequest) -> int | None:
    """The history length a send asks for (None: all of it)."""
    configuration = params.configuration
    return configuration.history_length if configuration.HasField("history_length") else None


def _payload(event: StreamResponse) -> Event:
    kind = event.WhichOneof("payload")
    if kind == "task":
        return event.task
    if kind == "status_update":
        return event.status_update
    if kind == "artifact_update":
        return event.artifact_update
    return event.message

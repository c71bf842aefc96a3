"""`PushConfigRequests`: the A2A side of the four push-config requests a client sends.

The A2A request handler has already found the task and checked that the caller takes part
in it. This module binds each config to that task, answers reads without secrets (the
store never returns them), and turns our push errors into the A2A errors the
specification names; what a config does once registered is `PushRegistrations`'s. A
server without outbound push answers every request PushNotificationNotSupported.
"""

from __future__ import annotations

from a2a.types import (
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    TaskPushNotificationConfig,
)
from a2a.utils.errors import (
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotFoundError,
)

from tiny_harness.errors import PushError
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.service.durable.payloads import TaskSnapshot
from tiny_harness.service.notifications.registrations import PushRegistrations
from tiny_harness.service.refusals import a2a_error


class PushConfigRequests:
    """Push configs over `registrations` (None: the server does not offer push)."""

    def __init__(self, registrations: PushRegistrations | None) -> None:
        self._registrations = registrations

    @property
    def offered(self) -> bool:
        """Whether the server offers push notifications."""
        return self._registrations is not None

    def require(self) -> PushRegistrations:
        """The registrations; PushNotificationNotSupported when there are none."""
        if self._registrations is None:
            raise PushNotificationNotSupportedError
        return self._registrations

    async def register(
        self, config: TaskPushNotificationConfig, task_id: str, *, cursor: int, final: bool
    ) -> TaskPushNotificationConfig:
        """Store a config for `task_id` (its own task id must be empty or the same) and
        deliver the task's events from `cursor` on."""
        registrations = self.require()
        if config.task_id and config.task_id != task_id:
            raise InvalidParamsError(message="the push config names another task")
        bound = TaskPushNotificationConfig()
        bound.CopyFrom(config)
        bound.task_id = task_id
        try:
            return await registrations.create(bound, cursor=cursor, final=final)
        except PushError as error:
            raise a2a_error(error) from error

    async def create(
        self, params: TaskPushNotificationConfig, task: TaskSnapshot
    ) -> TaskPushNotificationConfig:
        """Register a receiver for the task's events from now on (secrets never echoed)."""
        final = task.task.status.state in FINAL
        return await self.register(params, task.task.id, cursor=task.version, final=final)

    async def get(self, params: GetTaskPushNotificationConfigRequest) -> TaskPushNotificationConfig:
        """One of the task's push configs, without token or credentials."""
        config = await self.require().get(params.task_id, params.id)
        if config is None:
            raise TaskNotFoundError(message=f"no push config {params.id} on this task")
        return config

    async def list(
        self, params: ListTaskPushNotificationConfigsRequest
    ) -> ListTaskPushNotificationConfigsResponse:
        """The task's push configs, without tokens or credentials, in one page."""
        configs = await self.require().list(params.task_id)
        return ListTaskPushNotificationConfigsResponse(configs=configs)

    async def delete(self, params: DeleteTaskPushNotificationConfigRequest) -> None:
        """Forget a push config and stop its deliveries."""
        if not await self.require().delete(params.task_id, params.id):
            raise TaskNotFoundError(message=f"no push config {params.id} on this task")

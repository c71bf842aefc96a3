"""`PushRegistrations`: what registering a push config does, behind the A2A requests.

    create  guard the URL (resolved now) ─► store (token, credentials sealed) ─► courier
    get     the stored config, secrets left out (the scheme is shown, not the credentials)
    list    the task's configs, the same way
    delete  drop it from the store and cancel its courier

The courier (`PushCourierWorkflow`, one per config) starts at the event the task records
next, so a client hears every change after it registered. Checking that the task exists
and that the caller may see it is the handler's business, not this module's.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from a2a.types import TaskPushNotificationConfig
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError, RPCStatusCode

from tiny_harness.harness.persistence.push_config_store import PushConfigStore
from tiny_harness.service.notifications.courier import PushCourierWorkflow, courier_id
from tiny_harness.service.notifications.payloads import CourierStart
from tiny_harness.service.notifications.url_guard import UrlGuard

logger = logging.getLogger(__name__)


class PushRegistrations:
    """Push configs of our clients' tasks, each with its courier."""

    def __init__(
        self,
        client: Client,
        *,
        task_queue: str,
        configs: PushConfigStore,
        guard: UrlGuard,
        window: timedelta,
    ) -> None:
        self._client = client
        self._task_queue = task_queue
        self._configs = configs
        self._guard = guard
        self._window = window

    async def create(
        self, config: TaskPushNotificationConfig, *, cursor: int, final: bool
    ) -> TaskPushNotificationConfig:
        """Store `config` and start delivering the task's events from `cursor` on (none
        when the task is `final`: there is nothing left to tell). Raises
        `PushUrlRefusedError`, `PushConfigError` or `PushConfigLimitError`; nothing is
        stored then."""
        await self._guard.check(config.url)
        stored = await self._configs.put(config)
        if not final:
            await self._client.start_workflow(
                PushCourierWorkflow.run,
                CourierStart(
                    task_id=stored.task_id,
                    config_id=stored.id,
                    cursor=cursor,
                    window=self._window,
                ),
                id=courier_id(stored.task_id, stored.id),
                task_queue=self._task_queue,
                # A replaced config keeps its running courier, which reads the new one.
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
            )
        return stored

    async def get(self, task_id: str, config_id: str) -> TaskPushNotificationConfig | None:
        """One config of the task, without its secrets; None when there is none."""
        return await self._configs.get(task_id, config_id)

    async def list(self, task_id: str) -> list[TaskPushNotificationConfig]:
        """Every config of the task, without secrets, oldest first."""
        return await self._configs.list(task_id)

    async def delete(self, task_id: str, config_id: str) -> bool:
        """Remove the config and stop its courier; False when there was no such config."""
        removed = await self._configs.delete(task_id, config_id)
        if removed:
            await self._stop_courier(task_id, config_id)
        return removed

    async def _stop_courier(self, task_id: str, config_id: str) -> None:
        handle = self._client.get_workflow_handle(courier_id(task_id, config_id))
        try:
            await handle.cancel()
        except RPCError as error:
            # A courier that already ended (its task is final) has nothing to stop; any
            # other failure leaves it to notice the deleted config on its next event.
            if error.status != RPCStatusCode.NOT_FOUND:
                logger.warning(
                    "courier of task %s config %s not cancelled: %s",
                    task_id,
                    config_id,
                    type(error).__name__,
                )

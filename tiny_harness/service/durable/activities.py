"""The activities of a task: every side effect of the loop happens here, never in workflow code.

    intake            a drained message -> the user item the model will read
    assemble_context  conversation + plan -> the LLM request for this turn
    invoke_llm        request -> response (the worker's configured model)
    invoke_tool       one tool call -> its result, or a command for the workflow
    persist           a task snapshot -> the store

Each takes one typed input model. They are methods of `TaskActivities` so the worker hands
them their dependencies (model, store) once, at construction.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from importlib import resources

from a2a.helpers import get_message_text
from pydantic import BaseModel
from temporalio import activity

from tiny_harness.errors import ToolError
from tiny_harness.harness.models.llm import LLM, LLMRequest, LLMResponse, UserItem
from tiny_harness.harness.persistence.store import Store, TaskRecord
from tiny_harness.harness.tools.definition import ToolResult, WorkflowCommand
from tiny_harness.harness.tools.intrinsics import intrinsic_definitions, invoke_intrinsic
from tiny_harness.service.durable.models import (
    AssembleInput,
    IntakeInput,
    InvokeLLMInput,
    InvokeToolInput,
    PersistInput,
)

logger = logging.getLogger(__name__)

HEARTBEAT_EVERY_SECONDS = 5.0


class ToolOutcome(BaseModel, frozen=True):
    """What one tool call produced: a result, and for an intrinsic the command to apply."""

    result: ToolResult
    command: WorkflowCommand | None = None


def system_prompt() -> str:
    """The built-in system prompt, the static prefix of every request."""
    return resources.files("tiny_harness.builtin").joinpath("systemprompt.md").read_text("utf-8")


@asynccontextmanager
async def _heartbeating() -> AsyncIterator[None]:
    """Heartbeat while the body runs, so a dead worker is noticed within the heartbeat timeout."""

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(HEARTBEAT_EVERY_SECONDS)

    beater = asyncio.create_task(beat())
    try:
        yield
    finally:
        beater.cancel()


class TaskActivities:
    """The activity bodies of `TaskWorkflow`, bound to one worker's model and store."""

    def __init__(self, llm: LLM, store: Store) -> None:
        self._llm = llm
        self._store = store
        self._prompt = system_prompt()

    @activity.defn(name="intake")
    async def intake(self, data: IntakeInput) -> UserItem:
        """Turn a drained message into the item the model reads; audit its arrival."""
        message = data.message
        logger.info(
            "task %s: intake of message %s (%d parts)",
            data.task_id,
            message.message_id,
            len(message.parts),
        )
        return UserItem(
            message_id=message.message_id,
            text=get_message_text(message),
            reply_to=data.reply_to,
        )

    @activity.defn(name="assemble_context")
    async def assemble_context(self, data: AssembleInput) -> LLMRequest:
        """Build this turn's request: static prompt first (the cacheable prefix), then state."""
        instructions = self._prompt
        if data.plan is not None:
            instructions = f"{instructions}\n## plan\n{data.plan.render()}\n"
        return LLMRequest(
            instructions=instructions,
            input=tuple(data.conversation),
            tools=intrinsic_definitions(),
            cache_key=data.task_id,
        )

    @activity.defn(name="invoke_llm")
    async def invoke_llm(self, data: InvokeLLMInput) -> LLMResponse:
        """Call the model once."""
        async with _heartbeating():
            return await self._llm.invoke(data.request)

    @activity.defn(name="invoke_tool")
    async def invoke_tool(self, data: InvokeToolInput) -> ToolOutcome:
        """Run one tool call; a call the tool refuses comes back as an error result."""
        call = data.call
        try:
            command = invoke_intrinsic(call)
        except ToolError as error:
            logger.info("task %s: tool call %s refused: %s", data.task_id, call.name, error.code)
            text = f"{error.code}: {error.message}"
            return ToolOutcome(
                result=ToolResult(call_id=call.call_id, name=call.name, text=text, is_error=True)
            )
        return ToolOutcome(result=command.result, command=command)

    @activity.defn(name="persist")
    async def persist(self, data: PersistInput) -> None:
        """Write the task's snapshot to the store; an older snapshot never replaces a newer."""
        record = TaskRecord(
            task=data.task,
            version=data.version,
            updated_at=datetime.now(UTC),
            events=data.events,
        )
        await self._store.put_task(record)

    def all(self) -> list[Callable[..., Awaitable[object]]]:
        """Every activity, for the worker."""
        return [self.intake, self.assemble_context, self.invoke_llm, self.invoke_tool, self.persist]

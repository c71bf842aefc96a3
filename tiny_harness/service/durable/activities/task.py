"""The activities of a task: every side effect of the loop happens here, never in workflow code.

    prepare_turn      before a model call, one local activity:
                        the log so far -> the store
                        each drained message -> the user item the model reads (request.received)
                        state -> the LLM request for this turn           (compaction.trigger)
    compact           conversation -> summary + kept items          (compaction.keep, .summarise)
    invoke_llm        request -> response                                  (llm.invoked)
    invoke_tool       one tool call -> result, or a command for the workflow (tool.invoked)
    persist           a step of the task's log, records -> the store        (persistence.write)
    dispatch_hooks    a workflow-level transition -> its hook chain        (task.state_changed, ...)

`prepare_turn` and `persist` also tell the workflow which workflow-level points have an
executor on this worker, so it dispatches nothing nobody listens to.

Each takes one typed input model and runs its body inside the hook chain of its operation.
A hook's veto (`HookAbort`) of a tool call becomes the refusal the model reads; anywhere
else it fails the activity without retry (`ApplicationError` type "HookAbort"), and the
workflow fails the task with the hook's reason.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Final

from a2a.helpers import get_message_text
from a2a.types import TaskState
from pydantic import BaseModel
from temporalio import activity
from temporalio.exceptions import ApplicationError

from tiny_harness.errors import HelpDecisionError, ToolError
from tiny_harness.harness.a2ui.messages import actions_in, render_action
from tiny_harness.harness.hooks import (
    HookAbort,
    HookPoint,
    LLMInvokedPost,
    LLMInvokedPre,
    Operation,
    PersistenceWriteIn,
    Phase,
    RequestReceivedPre,
    ToolInvokedPost,
    ToolInvokedPre,
    context_type,
)
from tiny_harness.harness.models.llm import (
    LLMResponse,
    UserItem,
)
from tiny_harness.harness.persistence.records import Record, ToolResultRecord
from tiny_harness.harness.persistence.store import Store, TaskRecord
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tools.definition import JsonObject, ToolCall, ToolResult, WorkflowCommand
from tiny_harness.harness.tools.mcp import McpTool
from tiny_harness.harness.tools.stored_results import cut
from tiny_harness.harness.tools.tool import TaskTool
from tiny_harness.service.durable.activities import context as bodies
from tiny_harness.service.durable.activities.beats import heartbeating
from tiny_harness.service.durable.activities.help import route_question
from tiny_harness.service.durable.payloads import (
    AssembledContext,
    CompactInput,
    CompactOutcome,
    DispatchInput,
    Intake,
    InvokeLLMInput,
    InvokeToolInput,
    PersistInput,
    PersistOutcome,
    PreparedTurn,
    TurnInput,
)
from tiny_harness.service.durable.toolsets import Toolsets
from tiny_harness.service.o11y.counters import Counters
from tiny_harness.service.o11y.operations import OperationRun, Operations

logger = logging.getLogger(__name__)


HOOK_ABORT_ERROR: Final = "HookAbort"
"""`ApplicationError.type` of an activity a hook aborted."""

WORKFLOW_POINTS: Final = (
    HookPoint(operation=Operation.TASK_STATE_CHANGED, phase=Phase.PRE),
    HookPoint(operation=Operation.STEP_FINISHED, phase=Phase.PRE),
    HookPoint(operation=Operation.SKILL_LOADED, phase=Phase.PRE),
    HookPoint(operation=Operation.SKILL_UNLOADED, phase=Phase.PRE),
    HookPoint(operation=Operation.ACTIVITY_FAILED, phase=Phase.PRE),
    HookPoint(operation=Operation.ACTIVITY_RETRIED, phase=Phase.PRE),
)
"""Points the workflow dispatches through `dispatch_hooks` (when an executor listens)."""


class ToolOutcome(BaseModel, frozen=True):
    """What one tool call produced: a result, and for an intrinsic the command to apply."""

    result: ToolResult
    command: WorkflowCommand | None = None
    vetoed: bool = False
    """A tool.invoked.pre hook refused the call: `result` says why, and it never ran."""


def _aborted(error: HookAbort) -> ApplicationError:
    return ApplicationError(
        f"refused by a hook: {error.reason.message}",
        error.reason.code,
        type=HOOK_ABORT_ERROR,
        non_retryable=True,
    )


def _pre(operation: Operation) -> HookPoint:
    return HookPoint(operation=operation, phase=Phase.PRE)


def _post(operation: Operation) -> HookPoint:
    return HookPoint(operation=operation, phase=Phase.POST)


class TaskActivities:
    """The activity bodies of `TaskWorkflow`, bound to one worker's `Harness`."""

    def __init__(
        self,
        harness: Harness,
        *,
        redactor: Redactor | None = None,
        counters: Counters | None = None,
        operations: Operations | None = None,
    ) -> None:
        """`redactor` masks credentials in every record before it is stored (the
        credential shapes alone when None); `counters` counts the tasks that end;
        `operations` traces the store writes, compactions and help decisions."""
        self._harness = harness
        self._redactor = redactor or Redactor()
        self._counters = counters or Counters()
        self._operations = operations or Operations()
        self._toolsets = Toolsets(harness.store, self._redactor)

    @property
    def harness(self) -> Harness:
        """The harness the activities run on."""
        return self._harness

    @activity.defn(name="prepare_turn")
    async def prepare_turn(self, data: TurnInput) -> PreparedTurn:
        """Write the log so far, take in the drained messages, assemble the turn's context
        with them: the worker's work before a model call, as one local activity. A retry
        does it again: the write changes nothing twice, the rest is built afresh."""
        if data.step is not None:
            await self.persist(data.step)
        items = tuple([await self._take_in(data.task_id, intake) for intake in data.messages])
        assembled = None
        if data.context is not None:
            store = await self._harness.store()
            assembled = await self._assemble(await bodies.assembly_of(store, data.context, items))
        return PreparedTurn(items=items, assembled=assembled, points=self._points())

    async def _take_in(self, task_id: str, intake: Intake) -> UserItem:
        """Run request.received hooks on a drained message; what the model reads."""
        ctx = RequestReceivedPre(
            task_id=task_id, correlation_id=intake.message.message_id, message=intake.message
        )
        try:
            ctx = await self._harness.hooks.run(_pre(Operation.REQUEST_RECEIVED), ctx)
        except HookAbort as error:
            raise _aborted(error) from error
        message = ctx.message
        logger.info(
            "task %s: intake of message %s (%d parts)",
            task_id,
            message.message_id,
            len(message.parts),
        )
        lines = intake.action_lines
        if lines is None or message != intake.message:  # a hook may have rewritten it
            lines = tuple(render_action(a) for _, a in actions_in(message))
        text = "\n".join([get_message_text(message), *lines]).strip()
        return UserItem(message_id=message.message_id, text=text, reply_to=intake.reply_to)

    async def _assemble(self, data: bodies.Assembly) -> AssembledContext:
        """Build this turn's request through the context window manager (stable sections
        first: the cacheable prefix; tool output as delimited untrusted data) and ask
        compaction.trigger whether it must be compacted first."""
        harness = self._harness
        window = await bodies.window_of(harness, data)
        try:
            compact = await bodies.needs_compaction(harness, data.task_id, window)
        except HookAbort as error:
            raise _aborted(error) from error
        request = bodies.WINDOWS.to_request(window, data.conversation, cache_key=data.task_id)
        toolset = None
        if request.tools:  # carried by reference (`Toolsets`), not through history
            toolset = await self._toolsets.keep(data.task_id, request.tools)
            request = request.model_copy(update={"tools": ()})
        return AssembledContext(
            request=request,
            estimated_tokens=window.estimated_tokens,
            compact=compact,
            toolset=toolset,
        )

    @activity.defn(name="compact")
    async def compact(self, data: CompactInput) -> CompactOutcome:
        """Fold the oldest conversation into a summary (compaction.keep and .summarise)."""
        task_id = data.context.task_id
        with self._operations.run(
            Operation.COMPACTION_SUMMARISE, task_id, activity.info().activity_id
        ) as run:
            try:
                outcome = await bodies.compact(self._harness, data)
            except HookAbort as error:
                raise _aborted(error) from error
            _note_compaction(run, outcome)
            return outcome

    @activity.defn(name="invoke_llm")
    async def invoke_llm(self, data: InvokeLLMInput) -> LLMResponse:
        """Call the model once, inside llm.invoked pre and post hooks."""
        hooks = self._harness.hooks
        correlation = activity.info().activity_id
        request = data.request
        if data.toolset is not None:
            tools = await self._toolsets.tools(data.toolset)
            request = request.model_copy(update={"tools": tools})
        pre = LLMInvokedPre(
            task_id=data.task_id, correlation_id=correlation, request=request, attempt=data.attempt
        )
        try:
            pre = await hooks.run(_pre(Operation.LLM_INVOKED), pre)
            llm = await self._harness.llm()
            async with heartbeating():
                response = await llm.invoke(pre.request)
            post = LLMInvokedPost(**pre.model_dump(), response=response)
            post = await hooks.run(_post(Operation.LLM_INVOKED), post)
        except HookAbort as error:
            raise _aborted(error) from error
        return post.response

    @activity.defn(name="invoke_tool")
    async def invoke_tool(self, data: InvokeToolInput) -> ToolOutcome:
        """Run one tool call inside tool.invoked hooks; a veto or a refusal is the result."""
        hooks = self._harness.hooks
        pre = ToolInvokedPre(
            task_id=data.task_id,
            correlation_id=data.call.call_id,
            call=data.call,
            attempt=data.attempt,
        )
        try:
            pre = await hooks.run(_pre(Operation.TOOL_INVOKED), pre)
        except HookAbort as error:
            text = f"refused by hook: {error.reason.code}: {error.reason.message}"
            return ToolOutcome(result=_error(data.call, text), vetoed=True)
        async with heartbeating():
            outcome = await self._run_tool(pre.call, data)
        post = ToolInvokedPost(**pre.model_dump(), result=outcome.result)
        try:
            post = await hooks.run(_post(Operation.TOOL_INVOKED), post)
        except HookAbort as error:
            raise _aborted(error) from error
        if outcome.command is not None:
            return ToolOutcome(result=post.result, command=outcome.command)
        return ToolOutcome(result=await self._bounded(data.task_id, post.result))

    async def _bounded(self, task_id: str, result: ToolResult) -> ToolResult:
        """`result` as the model is shown it: cut past the context's limit, the whole text
        kept in the store for `read_tool_result` (and out of Temporal's history)."""
        shown = cut(result, self._harness.budget.max_tool_result_chars)
        if shown is None:
            return result
        record = ToolResultRecord(
            task_id=task_id,
            call_id=result.call_id,
            name=result.name,
            text=result.text,
            is_error=result.is_error,
            recorded_at=self._harness.providers.clock(),
        )
        await self._write(await self._harness.store(), task_id, record.key, record)
        logger.info(
            "task %s: result of %s cut for the model (%d characters kept in the store)",
            task_id,
            result.name,
            len(result.text),
        )
        return shown

    async def _run_tool(self, call: ToolCall, data: InvokeToolInput) -> ToolOutcome:
        try:
            tool = await self._harness.tool(call.name, loaded_skills=data.loaded_skills)
            if isinstance(tool, McpTool):
                # A server that changed a tool since it was registered is refused (R6).
                await tool.check_drift(iteration=f"{data.task_id}:{data.iteration}")
            if isinstance(tool, TaskTool):
                answer: ToolResult | WorkflowCommand = await tool.invoke_for(data.task_id, call)
            else:
                answer = await tool.invoke(call)
            if isinstance(answer, WorkflowCommand) and answer.kind == "wait_for_reply":
                answer = await route_question(
                    self._harness, data.task_id, answer, data.task, self._operations
                )
        except (ToolError, HelpDecisionError) as error:
            logger.info("tool call %s refused: %s", call.name, error.code)
            return ToolOutcome(result=_error(call, f"{error.code}: {error.message}"))
        if isinstance(answer, WorkflowCommand):
            return ToolOutcome(result=answer.result, command=answer)
        return ToolOutcome(result=answer)

    @activity.defn(name="persist")
    async def persist(self, data: PersistInput) -> PersistOutcome:
        """Write a step of the task's log (masked), then each queued record through the
        persistence.write body (replaceable), one chain per record.

        The log itself is not a record a hook may route elsewhere: it is what every reader
        of the task reads (replace the `Store` entity to keep it elsewhere). A record a hook
        refuses is left unwritten and logged; the log is written all the same.
        """
        store = await self._harness.store()
        step = self._redactor.model(data.log)
        state = step.task.status.state
        count = 1 + len(data.records)
        attributes: dict[str, str | int] = {
            "tiny_harness.records": count,
            "tiny_harness.task.state": TaskState.Name(state),
        }
        with self._operations.run(
            Operation.PERSISTENCE_WRITE, step.task_id, str(step.version), attributes
        ) as run:
            run.detail = f"version {step.version}, {count} {'record' if count == 1 else 'records'}"
            # Counted when the task's end is first stored: a retried write counts it once.
            ended = await store.write_log(step)
            for record in data.records:
                try:
                    await self._write(store, step.task_id, record.key, record)
                except ApplicationError as error:
                    logger.warning("task %s: %s not written: %s", step.task_id, record.kind, error)
            run.outcome = "stored"
        if ended:
            self._counters.task_ended(state)
        return PersistOutcome(points=self._points())

    async def _write(
        self, store: Store, task_id: str, key: str, record: TaskRecord | Record
    ) -> None:
        """Write one record through the persistence.write body (replaceable), masked."""

        async def write(ctx: PersistenceWriteIn) -> PersistenceWriteIn:
            # Masked here, after the pre hooks: a plugin's change is masked as well.
            masked = self._redactor.model(ctx.record)
            if isinstance(masked, TaskRecord):
                await store.put_task(masked)
            else:
                await store.put_record(masked)
            return ctx.model_copy(update={"result": "stored"})

        point = HookPoint(operation=Operation.PERSISTENCE_WRITE, phase=Phase.IN)
        ctx = PersistenceWriteIn(task_id=task_id, correlation_id=key, record=record)
        try:
            await self._harness.hooks.run_body(point, ctx, write)
        except HookAbort as error:
            raise _aborted(error) from error

    @activity.defn(name="dispatch_hooks")
    async def dispatch_hooks(self, data: DispatchInput) -> JsonObject:
        """Run the hook chain of a workflow-level transition; the context it ends with."""
        point = HookPoint.parse(data.point)
        ctx = context_type(point).model_validate(data.context)
        try:
            ctx = await self._harness.hooks.run(point, ctx)
        except HookAbort as error:
            raise _aborted(error) from error
        return ctx.model_dump(mode="json")

    def _points(self) -> tuple[str, ...]:
        """The workflow-level points that have at least one executor on this worker."""
        hooks = self._harness.hooks
        return tuple(str(p) for p in WORKFLOW_POINTS if hooks.subscribers(p))

    def all(self) -> list[Callable[..., Awaitable[object]]]:
        """Every activity, for the worker."""
        return [
            self.prepare_turn,
            self.compact,
            self.invoke_llm,
            self.invoke_tool,
            self.persist,
            self.dispatch_hooks,
        ]


def _note_compaction(run: OperationRun, outcome: CompactOutcome) -> None:
    """What a compaction came to, on its span and record: folded (how much) or skipped."""
    record = outcome.record
    if record is None:
        run.outcome = "skipped"
        return
    run.outcome = "folded"
    run.detail = f"{len(record.removed_ids)} items"
    run.note(
        {
            "tiny_harness.compaction.items": len(record.removed_ids),
            "tiny_harness.compaction.tokens_before": record.tokens_before,
            "tiny_harness.compaction.tokens_after": record.tokens_after,
        }
    )


def _error(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(call_id=call.call_id, name=call.name, text=text, is_error=True)

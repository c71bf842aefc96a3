"""`TaskWorkflow`: one durable workflow per A2A task, running the agent loop.

    inbox (update) ──► mailbox ──► prepare_turn ─► invoke_llm ─┐
                                     ▲   (log, intake,           │ tool calls?
                                     │    context)    no ◄───────┤
                          INPUT_REQUIRED wait      invoke_tool xN ◄─── yes
                                                       (commands applied here)
    every step appends A2A events to the task's log ──► persist (local activity) ──► store

The workflow holds state and awaits activities or conditions: no I/O, no clock, no
randomness (ids come from `workflow.uuid4()`, times from `workflow.now()`). A message is in
history once `inbox` returns, and what the task recorded on taking it is in the store, so
the server answers its sender from the store. Readers (streams, subscriptions, GetTask)
never ask the workflow: they read the store, which wakes them as the log grows, so watching
a task adds nothing to its history.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from a2a.types import Message, Task, TaskState
    from pydantic import JsonValue

    from tiny_harness.harness.channels.extension import help_request
    from tiny_harness.harness.context.window import UsageMark
    from tiny_harness.harness.hooks import Operation, Phase
    from tiny_harness.harness.models.llm import AssistantItem, LLMResponse, UserItem
    from tiny_harness.harness.persistence.records import Record
    from tiny_harness.harness.tasks.extension import (
        ext_of,
        ext_part,
        sender_of,
    )
    from tiny_harness.service import refusals
    from tiny_harness.service.durable.activities.task import (
        HOOK_ABORT_ERROR,
        TaskActivities,
    )
    from tiny_harness.service.durable.payloads import (
        AssembleInput,
        InboxReceipt,
        InvokeLLMInput,
        TaskRun,
        TaskSnapshot,
        TaskStart,
    )
    from tiny_harness.service.durable.remote_payloads import SubtaskUpdate
    from tiny_harness.service.durable.workflows import events, read_model
    from tiny_harness.service.durable.workflows.assignment import (
        open_assigned,
        report_end,
        the_work,
    )
    from tiny_harness.service.durable.workflows.attempts import Attempts
    from tiny_harness.service.durable.workflows.commands import CommandApplier
    from tiny_harness.service.durable.workflows.compactor import Compactor
    from tiny_harness.service.durable.workflows.delegation import Delegation
    from tiny_harness.service.durable.workflows.dispatch import HookDispatcher
    from tiny_harness.service.durable.workflows.inbox import Inbox
    from tiny_harness.service.durable.workflows.log_writer import LogWriter
    from tiny_harness.service.durable.workflows.metering import Meter
    from tiny_harness.service.durable.workflows.milestones import Milestones
    from tiny_harness.service.durable.workflows.narrator import Narrator
    from tiny_harness.service.durable.workflows.preparer import Preparer
    from tiny_harness.service.durable.workflows.task_log import TaskLog
    from tiny_harness.service.durable.workflows.tool_runner import ToolRunner

_ONE_ATTEMPT = RetryPolicy(maximum_attempts=1)
"""The loop's own activities: the workflow retries them itself (`Attempts`)."""

_LONG = timedelta(minutes=5)


@workflow.defn
class TaskWorkflow:
    """One A2A task. Contract:

    - `inbox` (update): accept a message; refused (`FinalTask`) once the task is final,
      idempotent on `message_id`. Returns an `InboxReceipt` once the message is in history
      and what the task recorded on taking it is in the store.
    - `cancel` (signal): end the task CANCELED, cancelling the activity in flight.
    - `task` (query): the task as the run knows it, without its history (debugging; every
      reader reads the store).
    """

    @workflow.init
    def __init__(self, start: TaskStart) -> None:
        self._start = start
        self._run = start.carried or TaskRun(
            task=events.new_task(start.task_id, start.context_id, workflow.now())
        )
        self._log = TaskLog(self._run)
        self._brief: Message | None = None
        if start.assignment is not None and start.carried is None:
            self._brief = open_assigned(start.assignment, self._run.task, str(workflow.uuid4()))
            self._log.add_message(self._brief)
        self._hooks = HookDispatcher(start.task_id, self._on_hook_abort)
        self._writer = LogWriter(self._log, self._hooks.learn)
        if start.assignment is None:
            # The loop's first step is a model call: its preparation carries the log so far.
            self._writer.hold()
        self._preparer = Preparer(start.task_id, self._run, self._writer)
        self._closing = False
        self._cancel_requested = self._run.cancel_reason is not None
        self._driver: asyncio.Task[None] | None = None
        self._attempts = Attempts(self._hooks)
        self._narrator = Narrator(self._run, self._log, self._hooks)
        self._milestones = Milestones(start.task_id)
        self._commands = CommandApplier(self._run, self._narrator, self._hooks, self._milestones)
        self._compactor = Compactor(start, self._run, self._attempts, self._writer)
        self._delegation = Delegation(start, self._run, self._milestones)
        self._inbox = Inbox(self._run, self._log, self._delegation)
        self._meter = Meter(start, self._run)
        self._tools = ToolRunner(
            start,
            self._run,
            self._attempts,
            self._commands,
            self._delegation,
            self._writer,
            cancelled=lambda: self._cancel_requested,
        )

    # ---- run ---------------------------------------------------------------------------

    @workflow.run
    async def run(self, start: TaskStart) -> TaskSnapshot:
        """Drive the loop until the task is final; then write the rest of the log and close."""
        self._writer.start()
        self._driver = asyncio.create_task(self._drive())
        try:
            await self._driver
        except asyncio.CancelledError:
            if self._hooks.abort_reason is not None:
                self._narrator.fail(self._hooks.abort_reason)
            elif not self._cancel_requested:
                self._cancel_requested = True
                self._run.cancel_reason = "the workflow was cancelled"
        except ActivityError as error:
            # Cancelling the driver cancels the activity in flight, which surfaces here.
            if self._hooks.abort_reason is not None:
                self._narrator.fail(self._hooks.abort_reason)
            elif not self._cancel_requested:
                self._narrator.fail(_failure_text(error))
        if self._cancel_requested and self._delegation.unresolved:
            await self._delegation.cancel_all()
        if self._cancel_requested and not self._narrator.final:
            reason = self._run.cancel_reason or "canceled"
            self._narrator.set_state(TaskState.TASK_STATE_CANCELED, f"Task canceled: {reason}")
        if self._start.assignment is not None:
            await report_end(self._start.assignment, self._run.task)
        return await self._close()

    async def _drive(self) -> None:
        """The loop: assemble, call the model, run its tool calls, until it answers."""
        if self._start.assignment is not None:
            await self._await_assignee()
            return
        if self._run.llm_calls == 0:
            await workflow.wait_condition(lambda: bool(self._run.mailbox))
        if self._run.task.status.state != TaskState.TASK_STATE_WORKING:
            self._narrator.set_state(TaskState.TASK_STATE_WORKING)
        self._take_mailbox()
        while True:
            if self._should_roll_over():
                await self._roll_over()
            self._take_notes()
            if self._run.llm_calls >= self._start.max_model_calls:
                await self._stop(
                    f"The model was called {self._run.llm_calls} times without finishing the "
                    f"task (the limit is loop.max_model_calls = {self._start.max_model_calls})."
                )
                return
            if await self._stopped_over_budget():
                return
            response = await self._call_llm()
            if await self._stopped_over_budget():
                return
            if not response.tool_calls and (self._delegation.unresolved or self._run.notes):
                # The task cannot complete before its sub-tasks, nor before the model heard
                # the news of them that came while it answered: wait for (or take) it.
                if response.output_text:
                    self._narrator.say(response.output_text)
                await workflow.wait_condition(lambda: bool(self._run.notes or self._run.mailbox))
                self._writer.hold()
                self._take_mailbox()
                continue
            if not response.tool_calls:
                self._record(read_model.state_record(self._run, workflow.now()))
                self._narrator.complete(response.output_text)
                return
            for call in response.tool_calls:
                await self._tools.run(call)
                self._meter.tool_call()
            self._record(read_model.state_record(self._run, workflow.now()))
            if self._run.pending_question is not None:
                await self._wait_for_reply()
            elif self._run.mailbox:
                self._take_mailbox()

    async def _call_llm(self) -> LLMResponse:
        """Prepare the turn (compacting first when compaction.trigger asks), call the model."""
        assembled = await self._preparer.prepare(self._assemble_input())
        if assembled.compact and await self._compactor.compact(self._assemble_input()):
            assembled = await self._preparer.prepare(self._assemble_input())
        request = assembled.request
        self._tools.offered = {tool.name: tool for tool in request.tools}

        def attempt_once(attempt: int) -> Awaitable[LLMResponse]:
            return workflow.execute_activity_method(
                TaskActivities.invoke_llm,
                InvokeLLMInput(task_id=self._start.task_id, request=request, attempt=attempt),
                start_to_close_timeout=_LONG,
                heartbeat_timeout=self._start.retries.heartbeat_timeout,
                retry_policy=_ONE_ATTEMPT,
            )

        policy = self._start.retries.for_activity("invoke_llm")
        response = await self._attempts.run("invoke_llm", policy, attempt_once)
        self._run.llm_calls += 1
        self._meter.model_call(response)
        self._run.usage_mark = UsageMark.of(request, response.usage)
        self._run.conversation.append(
            AssistantItem(text=response.output_text, tool_calls=response.tool_calls)
        )
        if response.tool_calls and response.output_text:
            self._narrator.say(response.output_text)
        return response

    async def _stop(self, reason: str) -> None:
        """Fail the task with `reason`, cancelling its sub-tasks."""
        self._narrator.fail(reason)
        await self._delegation.cancel_all()

    async def _stopped_over_budget(self) -> bool:
        """Stop the task when its tokens (its sub-tasks' included) passed its budget."""
        reason = self._meter.over_budget()
        if reason is not None:
            await self._stop(reason)
        return reason is not None

    def _assemble_input(self) -> AssembleInput:
        return AssembleInput(
            task_id=self._start.task_id,
            conversation=tuple(self._run.conversation),
            plan=self._run.plan,
            loaded_skills=tuple(self._run.loaded_skills),
            previous=self._run.usage_mark,
        )

    def _take_notes(self) -> None:
        """Sub-task news goes into the conversation before the next model call."""
        self._run.conversation.extend(self._run.notes)
        self._run.notes.clear()

    def _record(self, record: Record | None) -> None:
        if record is not None:
            self._writer.add(record)

    def _on_hook_abort(self, reason: str) -> None:
        """A workflow-level hook vetoed a transition: the task fails with its reason."""
        if self._driver is not None and not self._driver.done():
            self._driver.cancel()

    async def _await_assignee(self) -> None:
        """An assigned task: wait for the assignee's answer, which is its result."""
        if self._log.empty:
            opening = events.task_event(self._run.task)
            if self._brief is not None:
                opening.task.history.append(self._brief)
            self._log.record(opening)
        if self._run.task.status.state != TaskState.TASK_STATE_WORKING:
            self._narrator.set_state(TaskState.TASK_STATE_WORKING)
        if self._start.assignment is not None and self._run.pending_question is None:
            self._run.pending_question = the_work(self._start.assignment)
        # The assignee may take long while others' messages queue up behind their answer:
        # the wait rolls over (the next run waits on, as the same assigned task).
        await self._wait_for_reply(roll_over=True)
        await self._preparer.take_in()
        answers = [i for i in self._run.conversation if isinstance(i, UserItem) and i.reply_to]
        self._narrator.complete(answers[0].text if answers else "")

    async def _wait_for_reply(self, *, roll_over: bool = False) -> None:
        question = self._run.pending_question
        if question is None:
            return
        if self._run.task.status.state != TaskState.TASK_STATE_INPUT_REQUIRED:
            options: list[JsonValue] = list(question.options)
            data: dict[str, JsonValue] | None = {"options": options} if options else None
            self._narrator.set_state(
                TaskState.TASK_STATE_INPUT_REQUIRED,
                question.question,
                data=data,
                extra=help_request(self._run.task.id, question.question, question.participant_id),
            )
            self._milestones.mark(
                Operation.HELP_REQUESTED,
                question.call_id,
                outcome="asked",
                detail="a question",
                phase=Phase.PRE,
            )
        # An addressed question waits for its addressee; others' messages wait behind it.
        await workflow.wait_condition(
            lambda: self._answered() or (roll_over and self._should_roll_over())
        )
        if not self._answered():
            await self._roll_over()
        self._writer.hold()  # the reply's preparation carries the log so far
        self._narrator.set_state(TaskState.TASK_STATE_WORKING)
        self._take_mailbox()

    def _take_mailbox(self) -> None:
        """Queue every waiting message for the next preparation, the answer to an open
        question first."""
        while self._run.mailbox:
            answer = self._inbox.answer_index()
            message = self._run.mailbox.pop(answer if answer is not None else 0)
            question = self._run.pending_question if answer is not None else None
            reply_to = question.call_id if question else None
            self._preparer.queue(message, reply_to, self._inbox.lines_for(message))
            if question is not None:
                self._run.pending_question = None
                self._milestones.mark(
                    Operation.HELP_REQUESTED, question.call_id, outcome="answered", detail="reply"
                )
            self._run.principal = sender_of(message)

    # ---- events and state ------------------------------------------------------------------

    async def _close(self) -> TaskSnapshot:
        await self._writer.flush(final=True)  # before the hooks: the write tells their points
        await self._hooks.settle()
        self._closing = True
        await self._quiesce()
        return TaskSnapshot(task=self._run.task, version=self._run.next_seq)

    async def _quiesce(self) -> None:
        """Wait until every handler has finished and all they recorded is written: the run
        may end after this, with nothing of its log left behind (no await may follow)."""
        while True:
            await workflow.wait_condition(workflow.all_handlers_finished)
            if not self._writer.due:
                return
            await self._writer.flush()

    # ---- continue-as-new ---------------------------------------------------------------------

    def _answered(self) -> bool:
        return self._inbox.answer_index() is not None

    def _should_roll_over(self) -> bool:
        info = workflow.info()
        length = info.get_current_history_length()
        return length > self._start.history_event_bound or info.is_continue_as_new_suggested()

    async def _roll_over(self) -> None:
        await self._writer.flush()
        await self._hooks.settle()
        await self._quiesce()
        # The whole start carries on (its assignment too), with the run so far.
        workflow.continue_as_new(self._start.model_copy(update={"carried": self._run}))

    # ---- handlers ----------------------------------------------------------------------------

    @workflow.update
    async def inbox(self, message: Message) -> InboxReceipt:
        """Accept one message into the mailbox; a repeated `message_id` is not taken twice.

        Returns once the message and what the task recorded on taking it are in the store:
        when the message wakes the task (its first message, or the reply it waits for),
        that is the task going WORKING, so a streaming sender reads it from the store.
        """
        if message.message_id in self._run.seen_message_ids:
            self._inbox.forget(message)
            return InboxReceipt(task=self._head(), cursor=self._run.next_seq, duplicate=True)
        self._run.seen_message_ids.append(message.message_id)
        self._writer.start()
        arrival = self._inbox.take(message, first=self._log.empty)
        await self._inbox.ring(arrival)
        cursor = self._log.next_seq
        if self._log.empty:
            # The task as its sender sees it first: their message in its history.
            opening = events.task_event(self._run.task)
            opening.task.history.append(arrival.message)
            self._log.record(opening)
        accepted = self._head()
        if arrival.wakes:
            await workflow.wait_condition(
                lambda: self._log.next_seq > max(cursor, 1) or self._cancel_requested
            )
        await self._writer.written()
        return InboxReceipt(task=accepted, cursor=cursor, queued=arrival.queued)

    def _head(self) -> Task:
        head = Task()
        head.CopyFrom(self._run.task)
        return head

    @inbox.validator
    def _validate_inbox(self, message: Message) -> None:
        if self._narrator.final or self._cancel_requested or self._closing:
            # A run rolling over to continue-as-new still takes messages: they are
            # carried in the mailbox to the next run.
            state = TaskState.Name(self._run.task.status.state)
            raise ApplicationError(f"task is final ({state})", type=refusals.FINAL_TASK)
        if not message.parts:
            message_error = "a message needs at least one part"
            raise ApplicationError(message_error, type=refusals.EMPTY_MESSAGE)
        self._inbox.check(message)

    @workflow.signal
    def cancel(self, reason: str) -> None:
        """End the task CANCELED; the activity in flight is cancelled."""
        if self._cancel_requested or self._narrator.final:
            return
        self._cancel_requested = True
        self._run.cancel_reason = reason or "canceled by request"
        if self._driver is not None:
            self._driver.cancel()

    @workflow.signal
    def subtask_changed(self, update: SubtaskUpdate) -> None:
        """A stand-in reports its sub-task's newest turn; a change of its state is told on
        this task too, with the extension data that lists it."""
        news = self._delegation.changed(update)
        self._meter.sub_tasks([row.usage for row in self._run.subtasks if row.usage is not None])
        ext = ext_of(self._run.task)
        if news is not None and ext is not None:
            self._narrator.note(news, extra=[ext_part(ext)])

    @workflow.query
    def task(self) -> TaskSnapshot:
        """The task as its events describe it now, without its history."""
        return TaskSnapshot(task=self._run.task, version=self._run.next_seq)


def _failure_text(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError):
        if cause.type == HOOK_ABORT_ERROR:
            return f"Refused by a hook: {cause.message}"
        return f"An activity failed after its retries: {cause.type}: {cause.message}"
    return f"An activity failed after its retries: {cause or error}"

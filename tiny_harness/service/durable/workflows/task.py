"""`TaskWorkflow`: one durable workflow per A2A task, running the agent loop.

    inbox (update) ──► mailbox ──► prepare_turn ─► invoke_llm ─┐
                                     ▲   (log, intake,           │ tool calls?
                                     │    context)    no ◄───────┤
                          INPUT_REQUIRED wait      invoke_tool xN ◄─── yes
    every step appends A2A events to the task's log ──► persist (local activity) ──► store

The workflow holds state and awaits activities or conditions (no I/O, clock or randomness).
It owns its state: the task and its log are `TaskLog`'s, the rest one `LoopState` replaced
with each change; helpers read them and return what changed, which the workflow applies
(`_apply_*`, ...). A message is in history once `inbox` returns, with what the task
recorded on taking it in the store, so the server answers its sender from the store.
Readers (streams, GetTask) read the store, which wakes them: watching adds no history.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from a2a.types import Message, TaskState

    from tiny_harness.harness.context.window import UsageMark
    from tiny_harness.harness.models.llm import AssistantItem, LLMResponse, ToolResultItem
    from tiny_harness.harness.persistence.records import Record
    from tiny_harness.harness.tasks.extension import TaskRef, ext_of, ext_part
    from tiny_harness.harness.tasks.usage import TaskUsage
    from tiny_harness.harness.tools.definition import ToolCall, ToolResult
    from tiny_harness.service import refusals
    from tiny_harness.service.durable.payloads import (
        SEEN_MESSAGE_IDS,
        AssembleInput,
        InboxReceipt,
        Intake,
        LogState,
        SubtaskRow,
        TaskRun,
        TaskSnapshot,
        TaskStart,
    )
    from tiny_harness.service.durable.remote_payloads import SubtaskUpdate
    from tiny_harness.service.durable.workflows import events, metering, read_model
    from tiny_harness.service.durable.workflows.assignment import (
        assigned_ext,
        brief_message,
        report_end,
        the_work,
    )
    from tiny_harness.service.durable.workflows.attempts import Attempts, failure_text
    from tiny_harness.service.durable.workflows.commands import CommandApplier, CommandOutcome
    from tiny_harness.service.durable.workflows.compactor import Compacted, Compactor
    from tiny_harness.service.durable.workflows.delegation import Delegation, unresolved
    from tiny_harness.service.durable.workflows.dispatch import HookDispatcher
    from tiny_harness.service.durable.workflows.inbox import Arrival, Inbox, answer_index, drain
    from tiny_harness.service.durable.workflows.log_writer import LogWriter
    from tiny_harness.service.durable.workflows.milestones import Milestones
    from tiny_harness.service.durable.workflows.model_caller import ModelCaller
    from tiny_harness.service.durable.workflows.narrator import Narrator
    from tiny_harness.service.durable.workflows.preparer import Prepared, Preparer
    from tiny_harness.service.durable.workflows.task_log import TaskLog
    from tiny_harness.service.durable.workflows.tool_runner import ToolRunner


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
        task = events.new_task(start.task_id, start.context_id, workflow.now(), start.trace)
        carried = start.carried or TaskRun(log=LogState(task=task))
        self._log = TaskLog(carried.log)
        self._loop = carried.loop
        self._brief: Message | None = None
        if start.assignment is not None and start.carried is None:
            self._log.set_ext(assigned_ext(start.assignment))
            self._brief = brief_message(start.assignment, self._log.task, str(workflow.uuid4()))
            self._log.add_message(self._brief)
        self._hooks = HookDispatcher(start.task_id, self._on_hook_abort)
        self._writer = LogWriter(self._log, self._hooks.learn)
        if start.assignment is None:
            # The loop's first step is a model call: its preparation carries the log so far.
            self._writer.hold()
        self._preparer = Preparer(start.task_id, self._writer, self._hand_over_intakes)
        self._closing = False
        self._cancel_requested = self._loop.cancel_reason is not None
        self._driver: asyncio.Task[None] | None = None
        self._attempts = Attempts(self._hooks)
        self._narrator = Narrator(self._log, self._hooks)
        self._milestones = Milestones(start.task_id)
        self._commands = CommandApplier(self._hooks, self._milestones)
        self._compactor = Compactor(start, self._attempts)
        self._delegation = Delegation(
            start,
            self._milestones,
            stopping=lambda: self._cancel_requested or self._hooks.abort_reason is not None,
        )
        self._inbox = Inbox(self._delegation)
        tell = self._narrator.call  # each model and tool call, as it starts and ends
        self._model = ModelCaller(start, self._attempts, tell)
        self._tools = ToolRunner(start, self._attempts, tell, lambda: self._cancel_requested)

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
                self._change(cancel_reason="the workflow was cancelled")
        except ActivityError as error:
            # Cancelling the driver cancels the activity in flight, which surfaces here.
            if self._hooks.abort_reason is not None:
                self._narrator.fail(self._hooks.abort_reason)
            elif not self._cancel_requested:
                self._narrator.fail(failure_text(error))
        if self._cancel_requested and unresolved(self._loop):
            await self._delegation.cancel_all(self._loop)
        if self._cancel_requested and not self._narrator.final:
            reason = self._loop.cancel_reason or "canceled"
            self._narrator.set_state(TaskState.TASK_STATE_CANCELED, f"Task canceled: {reason}")
        if self._start.assignment is not None:
            await report_end(self._start.assignment, self._log.task)
        return await self._close()

    async def _drive(self) -> None:
        """The loop: assemble, call the model, run its tool calls, until it answers."""
        if self._start.assignment is not None:
            await self._await_assignee()
            return
        if self._loop.llm_calls == 0:
            await workflow.wait_condition(lambda: bool(self._loop.mailbox))
        if self._log.task.status.state != TaskState.TASK_STATE_WORKING:
            self._narrator.set_state(TaskState.TASK_STATE_WORKING)
        self._take_mailbox()
        while True:
            if self._should_roll_over():
                await self._roll_over()
            self._take_notes()
            calls = metering.out_of_calls(self._loop.llm_calls, self._start.max_model_calls)
            if calls is not None:
                await self._stop(calls)
                return
            if await self._stopped_over_budget():
                return
            response = await self._call_llm()
            if await self._stopped_over_budget():
                return
            if not response.tool_calls and (unresolved(self._loop) or self._loop.notes):
                # The task cannot complete before its sub-tasks, nor before the model heard
                # the news of them that came while it answered: wait for (or take) it.
                if response.output_text:
                    self._narrator.say(response.output_text)
                await workflow.wait_condition(lambda: bool(self._loop.notes or self._loop.mailbox))
                self._writer.hold()
                self._take_mailbox()
                continue
            if not response.tool_calls:
                self._record(read_model.state_record(self._log.task, self._loop, workflow.now()))
                self._narrator.complete(response.output_text)
                return
            for call in response.tool_calls:
                await self._run_tool(call)
                self._set_usage(metering.after_tool_call(self._loop.usage))
            self._record(read_model.state_record(self._log.task, self._loop, workflow.now()))
            if self._loop.pending_question is not None:
                await self._wait_for_reply()
            elif self._loop.mailbox:
                self._take_mailbox()

    async def _call_llm(self) -> LLMResponse:
        """Prepare the turn (compacting first when compaction.trigger asks), call the model."""
        self._model.begin(self._loop.llm_calls + 1)  # told with the preparation's write
        prepared, assembled = await self._preparer.prepare(self._assemble_input())
        self._taken_in(prepared)
        if assembled.compact:
            await self._writer.flush()  # the compaction reads the whole conversation stored
            compacted = await self._compactor.compact(self._assemble_input())
            if compacted is not None:
                self._apply_compaction(compacted)
                prepared, assembled = await self._preparer.prepare(self._assemble_input())
                self._taken_in(prepared)
        request, toolset = assembled.request, assembled.toolset
        self._tools.offer(request, toolset)
        response = await self._model.call(request, toolset)
        self._change(llm_calls=self._loop.llm_calls + 1)
        self._set_usage(metering.after_model_call(self._loop.usage, response, self._start.prices))
        self._change(usage_mark=UsageMark.of(request, response.usage, assembled.tool_chars))
        self._log.add_items(
            AssistantItem(text=response.output_text, tool_calls=response.tool_calls)
        )
        if response.tool_calls and response.output_text:
            self._narrator.say(response.output_text)
        return response

    async def _stop(self, reason: str) -> None:
        """Fail the task with `reason`, cancelling its sub-tasks."""
        self._narrator.fail(reason)
        await self._delegation.cancel_all(self._loop)

    async def _stopped_over_budget(self) -> bool:
        """Stop the task when its tokens (its sub-tasks' included) passed its budget."""
        reason = metering.over_budget(self._loop.usage, self._start.max_task_tokens)
        if reason is not None:
            await self._stop(reason)
        return reason is not None

    def _assemble_input(self) -> AssembleInput:
        return AssembleInput(
            task_id=self._start.task_id,
            conversation_head=self._loop.conversation_head,
            conversation_start=self._loop.conversation_start,
            conversation_end=self._log.conversation_length,
            plan=self._loop.plan,
            loaded_skills=self._loop.loaded_skills,
            previous=self._loop.usage_mark,
        )

    def _take_notes(self) -> None:
        """Sub-task news goes into the conversation before the next model call."""
        if self._loop.notes:
            self._log.add_items(*self._loop.notes)
            self._change(notes=())

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
            self._log.open(self._brief)
        if self._log.task.status.state != TaskState.TASK_STATE_WORKING:
            self._narrator.set_state(TaskState.TASK_STATE_WORKING)
        if self._start.assignment is not None and self._loop.pending_question is None:
            self._change(pending_question=the_work(self._start.assignment))
        # The assignee may take long while others' messages queue up behind their answer:
        # the wait rolls over (the next run waits on, as the same assigned task).
        await self._wait_for_reply(roll_over=True)
        prepared = await self._preparer.take_in()
        self._taken_in(prepared)
        answer = next((item.text for _, item in prepared.taken if item.reply_to), "")
        self._narrator.complete(answer)

    async def _wait_for_reply(self, *, roll_over: bool = False) -> None:
        question = self._loop.pending_question
        if question is None:
            return
        if self._log.task.status.state != TaskState.TASK_STATE_INPUT_REQUIRED:
            self._narrator.ask(question)
            self._milestones.asked(question.call_id)
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
        self._loop, taken = drain(self._loop)
        for message, question in taken:
            reply_to = question.call_id if question else None
            intake = Intake(
                message=message, reply_to=reply_to, action_lines=self._inbox.lines_for(message)
            )
            self._change(intakes=(*self._loop.intakes, intake))
            if question is not None:
                self._milestones.answered(question.call_id)

    # ---- what changes the state: the workflow's alone -------------------------------------

    def _change(self, **fields: object) -> None:
        """Replace the loop's state by one with `fields` changed."""
        self._loop = self._loop.model_copy(update=fields)

    def _hand_over_intakes(self) -> tuple[Intake, ...]:
        intakes = self._loop.intakes
        self._change(intakes=())
        return intakes

    async def _run_tool(self, call: ToolCall) -> None:
        """Run `call`, apply its command if any, and add its result to the conversation."""
        outcome = await self._tools.invoke(call, self._loop, self._log.task)
        result: ToolResult | None = outcome.result
        command = outcome.command
        if command is not None and command.kind in Delegation.COMMANDS:
            result = await self._delegation.apply(
                command, self._loop, self._log.task, self._list_subtask
            )
        elif command is not None:
            result = self._apply_command(self._commands.apply(command, self._loop, self._log.task))
        if result is not None:
            item = ToolResultItem(
                call_id=result.call_id, name=result.name, text=result.text, is_error=result.is_error
            )
            self._log.add_items(item)

    def _apply_command(self, outcome: CommandOutcome) -> ToolResult | None:
        """A command's changes; the result the model reads (None: later)."""
        revised = outcome.loop.plan_revision != self._loop.plan_revision
        self._loop = outcome.loop
        if outcome.ext is not None:
            self._log.set_ext(outcome.ext)
        if outcome.said is not None:
            said = outcome.said
            self._narrator.say(said.text, plan=said.plan, extra=said.extra)
        if revised:
            self._record(read_model.plan_record(self._log.task, self._loop, workflow.now()))
        return outcome.result

    def _apply_arrival(self, arrival: Arrival, message: Message, *, first: bool) -> None:
        """A message taken: its envelopes' data merged, the task claimed by whoever started
        it, its turn in the mailbox, the message in the history."""
        for update in arrival.updates:
            self._log.merge_ext(update)
        if first:
            self._log.claim(message)
        if arrival.turn is not None:
            self._change(mailbox=(*self._loop.mailbox, arrival.turn))
        self._log.add_message(arrival.message)

    def _taken_in(self, prepared: Prepared) -> None:
        """The items the messages became join the conversation; each is audited."""
        if not prepared.taken:
            return
        self._log.add_items(*(item for _, item in prepared.taken))
        for message, item in prepared.taken:
            now = workflow.now()
            self._record(read_model.inbox_audit_record(self._log.task, message, item, now))

    def _apply_compaction(self, compacted: Compacted) -> None:
        """The conversation from now on: the summary (written after the rest), the items it
        kept and what comes next; the compaction's record written."""
        summary = self._log.conversation_length
        self._log.add_items(compacted.summary)
        self._change(
            conversation_head=(summary, *compacted.kept),
            conversation_start=summary + 1,
            compactions=self._loop.compactions + 1,
            summary=compacted.record.summary,
            usage_mark=None,
        )
        self._writer.add(compacted.record)

    def _list_subtask(self, row: SubtaskRow, link: TaskRef | None) -> None:
        """A new sub-task's row (and the task's reference to it), before it starts."""
        self._change(subtasks=(*self._loop.subtasks, row))
        if link is not None:
            self._log.link(link)

    def _set_usage(self, usage: TaskUsage) -> None:
        """The task's usage, also shown in its extension data."""
        self._change(usage=usage)
        self._log.show_usage(usage)

    # ---- events and state ------------------------------------------------------------------

    async def _close(self) -> TaskSnapshot:
        await self._writer.flush(final=True)  # before the hooks: the write tells their points
        await self._hooks.settle()
        self._closing = True
        await self._quiesce()
        return TaskSnapshot(task=self._log.task, version=self._log.next_seq)

    async def _quiesce(self) -> None:
        """Wait until every handler is done and all they recorded is written (no await after)."""
        while True:
            await workflow.wait_condition(workflow.all_handlers_finished)
            if not self._writer.due:
                return
            await self._writer.flush()

    # ---- continue-as-new ---------------------------------------------------------------------

    def _answered(self) -> bool:
        return answer_index(self._loop) is not None

    def _should_roll_over(self) -> bool:
        info = workflow.info()
        length = info.get_current_history_length()
        return length > self._start.history_event_bound or info.is_continue_as_new_suggested()

    async def _roll_over(self) -> None:
        await self._writer.flush()
        await self._hooks.settle()
        await self._quiesce()
        # The whole start carries on (its assignment too), with the run so far.
        carried = TaskRun(log=self._log.state, loop=self._loop)
        workflow.continue_as_new(self._start.model_copy(update={"carried": carried}))

    # ---- handlers ----------------------------------------------------------------------------

    @workflow.update
    async def inbox(self, message: Message) -> InboxReceipt:
        """Accept one message into the mailbox; a repeated `message_id` is not taken twice.

        Returns once the message and what the task recorded on taking it are in the store:
        when the message wakes the task (its first message, or the reply it waits for),
        that is the task going WORKING, so a streaming sender reads it from the store.
        """
        if message.message_id in self._loop.seen_message_ids:
            self._inbox.forget(message)
            return InboxReceipt(task=self._log.head(), cursor=self._log.next_seq, duplicate=True)
        seen = (*self._loop.seen_message_ids, message.message_id)
        self._change(seen_message_ids=seen[-SEEN_MESSAGE_IDS:])
        self._writer.start()
        first = self._log.empty
        arrival = self._inbox.take(message, self._loop, self._log.task, first=first)
        self._apply_arrival(arrival, message, first=first)
        await self._inbox.ring(arrival, self._loop)
        cursor = self._log.next_seq
        if self._log.empty:
            self._log.open(arrival.message)  # the task as its sender sees it first
        accepted = self._log.head()
        if arrival.wakes:
            await workflow.wait_condition(
                lambda: self._log.next_seq > max(cursor, 1) or self._cancel_requested
            )
        await self._writer.written()
        return InboxReceipt(task=accepted, cursor=cursor, queued=arrival.queued)

    @inbox.validator
    def _validate_inbox(self, message: Message) -> None:
        if self._narrator.final or self._cancel_requested or self._closing:
            # A run rolling over to continue-as-new still takes messages: they are
            # carried in the mailbox to the next run.
            state = TaskState.Name(self._log.task.status.state)
            raise ApplicationError(f"task is final ({state})", type=refusals.FINAL_TASK)
        if not message.parts:
            message_error = "a message needs at least one part"
            raise ApplicationError(message_error, type=refusals.EMPTY_MESSAGE)
        self._inbox.check(message, self._loop)

    @workflow.signal
    def cancel(self, reason: str) -> None:
        """End the task CANCELED; the activity in flight is cancelled."""
        if self._cancel_requested or self._narrator.final:
            return
        self._cancel_requested = True
        self._change(cancel_reason=reason or "canceled by request")
        if self._driver is not None:
            self._driver.cancel()

    @workflow.signal
    def subtask_changed(self, update: SubtaskUpdate) -> None:
        """A stand-in reports its sub-task's newest turn; a change of its state is told on
        this task too, with the extension data that lists it."""
        change = self._delegation.changed(update, self._loop)
        if change is None:
            return
        self._loop = change.loop
        if change.link is not None:
            self._log.link(change.link)
        noted = bool(change.listed) and self._log.note_sub_task_state(
            change.listed, change.state_name
        )
        reported = (row.usage for row in self._loop.subtasks if row.usage is not None)
        usage = metering.with_sub_tasks(self._loop.usage, reported)
        if usage is not self._loop.usage:
            self._set_usage(usage)
        ext = ext_of(self._log.task)
        if noted and ext is not None:
            self._narrator.note(change.line, extra=[ext_part(ext)])

    @workflow.query
    def task(self) -> TaskSnapshot:
        """The task as its events describe it now, without its history."""
        return TaskSnapshot(task=self._log.task, version=self._log.next_seq)

"""`TaskLog`: a task's event log and history as its workflow records them, until written.

Workflow-side code (deterministic, no I/O). Every event the task emits is recorded here:
numbered (gap-free from 0 across runs) and folded into the task the log keeps, whose
history stays out of it: a message an event brings, and each message the task takes in,
join the history in the store. What was recorded since the last write waits here until
`LogWriter` takes it (`take`) for the store; the log itself holds only the task and the
lengths of its log and history, whatever the conversation.

The log is the task's one owner: the task changes through its events, and its extension
data through the changes below, which the workflow makes with what its helpers decided.
"""

from __future__ import annotations

from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from a2a.types import Message, StreamResponse, Task

    from tiny_harness.harness.models.llm import InputItem
    from tiny_harness.harness.persistence.store import LogWrite
    from tiny_harness.harness.tasks import extension
    from tiny_harness.harness.tasks.extension import TaskExtensionData, TaskRef
    from tiny_harness.harness.tasks.plan import Plan
    from tiny_harness.harness.tasks.usage import TaskUsage
    from tiny_harness.service.durable.payloads import LogState
    from tiny_harness.service.durable.workflows import events


class TaskLog:
    """One task run's log: what it recorded, and what is not written yet."""

    def __init__(self, state: LogState) -> None:
        self._state = state
        self._events: list[StreamResponse] = []
        self._messages: list[Message] = []
        self._items: list[InputItem] = []

    @property
    def task(self) -> Task:
        """The task as its events describe it, without its history."""
        return self._state.task

    @property
    def next_seq(self) -> int:
        """The sequence number of the next event."""
        return self._state.log_length

    @property
    def history_length(self) -> int:
        """How many messages the task's history holds, written or not."""
        return self._state.history_length

    @property
    def conversation_length(self) -> int:
        """How many items the task's conversation holds, written or not."""
        return self._state.conversation_length

    @property
    def empty(self) -> bool:
        """True until the first event is recorded."""
        return self._state.log_length == 0

    @property
    def state(self) -> LogState:
        """The log's state, to carry across continue-as-new (not to change)."""
        return self._state

    # The task's extension data: each change is written with the next step.

    def set_ext(self, ext: TaskExtensionData) -> None:
        """Replace the task's extension data."""
        extension.with_ext(self._state.task, ext)

    def merge_ext(self, update: TaskExtensionData) -> None:
        """Merge what a task envelope sets (`extension.merge_ext`)."""
        extension.merge_ext(self._state.task, update)

    def claim(self, message: Message) -> None:
        """The task belongs to whoever sent `message` (`extension.claim`)."""
        extension.claim(self._state.task, message)

    def link(self, ref: TaskRef) -> None:
        """List a sub-task (`extension.link_sub_task`)."""
        extension.link_sub_task(self._state.task, ref)

    def note_sub_task_state(self, task_id: str, state: str) -> bool:
        """Note a listed sub-task's state; whether that changed the listing."""
        return extension.note_sub_task_state(self._state.task, task_id, state) is not None

    def show_plan(self, plan: Plan) -> None:
        """Show the task's plan as it stands in its extension data."""
        ext = extension.ext_of(self._state.task) or TaskExtensionData()
        self.set_ext(ext.model_copy(update={"plan": plan}))

    def show_usage(self, usage: TaskUsage) -> None:
        """Show the task's usage in its extension data."""
        ext = extension.ext_of(self._state.task) or TaskExtensionData()
        self.set_ext(ext.model_copy(update={"usage": usage}))

    @property
    def pending(self) -> bool:
        """Whether an event or a message was recorded since the last `take`: something a
        reader of the log waits for."""
        return bool(self._events or self._messages)

    @property
    def unwritten(self) -> bool:
        """Whether anything was recorded since the last `take`, conversation items too
        (which only the next turn's preparation reads, after it writes them)."""
        return self.pending or bool(self._items)

    def record(self, event: StreamResponse) -> None:
        """Append `event` and fold it into the task; a message it brings joins the history."""
        message = events.fold(self._state.task, event)
        self._events.append(event)
        self._state.log_length += 1
        if message is not None:
            self.add_message(message)

    def add_message(self, message: Message) -> None:
        """`message` joins the task's history (a message taken in, or the brief)."""
        self._messages.append(message)
        self._state.history_length += 1

    def add_items(self, *items: InputItem) -> None:
        """`items` join the task's conversation (the model's answers, tool results,
        messages taken in, notes, a compacted conversation)."""
        self._items.extend(items)
        self._state.conversation_length += len(items)

    def untake(self, write: LogWrite) -> None:
        """Put back a step that was taken and could not be written: it goes out with the
        next one, in order."""
        self._events[:0] = write.events
        self._messages[:0] = write.messages
        self._items[:0] = write.items

    def head(self) -> Task:
        """A copy of the task as it stands, without its history."""
        head = Task()
        head.CopyFrom(self._state.task)
        return head

    def open(self, first: Message | None) -> None:
        """Record the log's first event: the task, with its `first` message (if any) in
        history."""
        opening = events.task_event(self._state.task)
        if first is not None:
            opening.task.history.append(first)
        self.record(opening)

    def take(self, now: datetime) -> LogWrite:
        """What was recorded since the last take, with the task as it leaves it."""
        write = LogWrite(
            task=self.head(),
            first_seq=self._state.log_length - len(self._events),
            events=tuple(self._events),
            first_message=self._state.history_length - len(self._messages),
            messages=tuple(self._messages),
            first_item=self._state.conversation_length - len(self._items),
            items=tuple(self._items),
            updated_at=now,
        )
        self._events, self._messages, self._items = [], [], []
        return write

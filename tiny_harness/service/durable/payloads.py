"""The typed payloads that cross the Temporal boundary for a task.

Workflow inputs, update and query results, activity inputs: each is one pydantic model, so
a field can be added later without breaking a caller, and history holds readable JSON.
A2A types travel as `ProtoJson` fields, never as copies of their fields.
"""

from __future__ import annotations

from typing import Final

from a2a.types import Message, StreamResponse, Task
from pydantic import BaseModel, Field

from tiny_harness.harness.context.compaction import CompactionRecord
from tiny_harness.harness.context.window import UsageMark
from tiny_harness.harness.models.llm import LLMRequest, UserItem
from tiny_harness.harness.models.prices import ModelPrice
from tiny_harness.harness.persistence.records import Record
from tiny_harness.harness.persistence.store import LogWrite
from tiny_harness.harness.protocol.proto_fields import ProtoJson
from tiny_harness.harness.settings.retry import RetryPolicies
from tiny_harness.harness.tasks.extension import TaskExtensionData, TaskTrace
from tiny_harness.harness.tasks.plan import Plan
from tiny_harness.harness.tasks.usage import TaskUsage, UsageTotals
from tiny_harness.harness.tools.definition import (
    Idempotency,
    JsonObject,
    ToolCall,
    ToolDefinition,
)
from tiny_harness.service.durable.remote_payloads import Assignment


class LoggedEvent(BaseModel, frozen=True):
    """One entry of a task's durable event log; `seq` is gap-free from 0 across runs."""

    seq: int
    event: ProtoJson[StreamResponse]


class PendingQuestion(BaseModel, frozen=True):
    """The open `ask_participant` call the task is waiting on."""

    call_id: str
    question: str
    options: tuple[str, ...] = ()
    participant_id: str | None = None
    """The participant the question is addressed to: only their reply answers it."""

    def answered_by(self, sender: str) -> bool:
        """Whether a message from `sender` answers this question."""
        return self.participant_id is None or sender == self.participant_id


class LoadedSkill(BaseModel, frozen=True):
    """A skill the model loaded: its body and its MCP tools stay in context until unloaded."""

    name: str
    body: str
    tools: tuple[ToolDefinition, ...] = ()


class SubtaskRow(BaseModel, frozen=True):
    """One delegated sub-task as its parent knows it (an `a2a.types.TaskState` value):
    `id` is what the model calls it (sub-1, sub-2, ...), `local_id` its stand-in's workflow
    id."""

    id: str
    local_id: str
    agent: str
    name: str
    state: int = 1
    text: str = ""
    remote_task_id: str = ""
    told_state: int | None = None
    """The state the parent's model was last told of."""
    assignee: str | None = None
    """Set for a task assigned to a participant (`local_id` is then the task's id)."""
    usage: UsageTotals | None = None
    """What the sub-task used, once it reported it (only a sub-task on this harness does)."""


class Intake(BaseModel, frozen=True):
    """One message drained from the mailbox, to be taken in before the next model call;
    `reply_to` is the question (tool call id) it answers, if it answers one."""

    message: ProtoJson[Message]
    reply_to: str | None = None
    action_lines: tuple[str, ...] | None = None
    """The model's lines for the message's A2UI actions, as the workflow parsed them when
    it took the message (None: parse them at intake, for a message an earlier run took)."""


class LogState(BaseModel):
    """The task as its log describes it, and how far the log and history go: `TaskLog`'s
    alone (the task changes only through it). The log and the history are the store's."""

    task: ProtoJson[Task]
    log_length: int = Field(default=0, ge=0)
    """Events recorded so far: the sequence number of the next one, gap-free across runs."""
    history_length: int = Field(default=0, ge=0)
    """Messages in the task's history so far."""
    conversation_length: int = Field(default=0, ge=0)
    """Items in the task's conversation so far (the store's, like its log)."""


SEEN_MESSAGE_IDS: Final = 1_000
"""How many of the newest message ids a task remembers, to take a message sent again once."""


class LoopState(BaseModel, frozen=True):
    """What the loop knows besides the task: the workflow's, which replaces it whole with
    each change (`model_copy`); its helpers read it and return what changed. It is bounded
    whatever the conversation: the conversation is the store's, the state holds where the
    model's part of it begins."""

    conversation_head: tuple[int, ...] = ()
    """The items the newest compaction left at the head of the conversation the model
    reads (its summary, then what it kept), by their numbers in the store."""
    conversation_start: int = Field(default=0, ge=0)
    """Where the rest of the conversation the model reads begins: 0, or just after the
    newest compaction's summary."""
    plan: Plan | None = None
    plan_revision: int = 0
    """How many times the plan changed: the version of the store's plan record."""
    mailbox: tuple[ProtoJson[Message], ...] = ()
    intakes: tuple[Intake, ...] = ()
    """Messages drained from the mailbox, to be taken in by the next preparation."""
    seen_message_ids: tuple[str, ...] = ()
    """The newest `SEEN_MESSAGE_IDS` message ids taken."""
    pending_question: PendingQuestion | None = None
    cancel_reason: str | None = None
    loaded_skills: tuple[LoadedSkill, ...] = ()
    usage_mark: UsageMark | None = None
    llm_calls: int = 0
    compactions: int = 0
    summary: str | None = None
    """The newest compaction's summary (its records are the store's)."""
    subtasks: tuple[SubtaskRow, ...] = ()
    notes: tuple[UserItem, ...] = ()
    """What the model is to be told before its next call (sub-task news)."""
    surfaces: dict[str, list[str]] = Field(default_factory=dict)
    """The A2UI surfaces the task drew, with their components' ids (`a2ui.surfaces`);
    replaced whole, never changed in place."""
    principal: str = ""
    """The sender of the newest message taken in: whose request the model acts on, and
    whose role decides a role change it asks for ("" for anonymous)."""
    usage: TaskUsage = TaskUsage()
    """The task's calls, tokens and cost so far, its sub-tasks' apart."""


class TaskRun(BaseModel, frozen=True):
    """What a task workflow carries across continue-as-new: its log's state and its
    loop's, each from its one owner."""

    log: LogState
    loop: LoopState = LoopState()


class TaskStart(BaseModel, frozen=True):
    """The input of `TaskWorkflow.run`: a new task's ids, or a whole run to carry on."""

    task_id: str
    context_id: str
    history_event_bound: int = Field(default=10_000, ge=100)
    retries: RetryPolicies = RetryPolicies()
    max_model_calls: int = Field(default=100, ge=1)
    """The task fails once its model has been called this often without finishing."""
    max_task_tokens: int | None = Field(default=None, ge=1)
    """The task fails once it (with its sub-tasks on this harness) used more tokens."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Prices per model name, for the task's cost (none: no cost is counted)."""
    trace: TaskTrace | None = None
    """The trace the task's work is recorded in (the request that started it), when traced."""
    show_call_details: bool = True
    """Tool and model calls on the task's stream show their masked arguments and results;
    False: only names and outcomes."""
    assignment: Assignment | None = None
    """Set for a task assigned to a participant: they do the work, not the model."""
    carried: TaskRun | None = None


class InboxReceipt(BaseModel, frozen=True):
    """What the sender of a message learns once the workflow has it in history and the
    store has what it recorded on taking it.

    `task` is the task as the message was accepted, without its history (the store's);
    `cursor` is the first event of the log that came after the message (0 for a new task,
    whose log opens with the task itself). `queued`: the task waits for another
    participant's answer, so this message waits behind it and the task does not move now.
    """

    task: ProtoJson[Task]
    cursor: int
    duplicate: bool = False
    queued: bool = False


class TaskSnapshot(BaseModel, frozen=True):
    """The task as of event `version` of its log."""

    task: ProtoJson[Task]
    version: int


class AssembleInput(BaseModel, frozen=True):
    """What a turn's context is assembled from (`prepare_turn`, `compact`): the items
    numbered `conversation_head`, then `conversation_start` to `conversation_end`, of the
    task's conversation, which the store holds by the time the activity reads them
    (`prepare_turn` writes its step first; a compaction follows a flush), and what else the
    window shows."""

    task_id: str
    conversation_head: tuple[int, ...] = ()
    conversation_start: int = Field(ge=0)
    conversation_end: int = Field(ge=0)
    plan: Plan | None = None
    loaded_skills: tuple[LoadedSkill, ...] = ()
    previous: UsageMark | None = None
    """What the provider counted for the previous call: the base of this turn's estimate."""


class OfferedTool(BaseModel, frozen=True):
    """What the workflow needs of an offered tool: its name, and whether a retry is safe."""

    name: str
    idempotency: Idempotency


class ToolsetRef(BaseModel, frozen=True):
    """The tools a model call offers, by reference (`service/durable/toolsets.py`): the
    digest of their definitions in the store, each tool's name and idempotency, and the
    characters they add to the request's prefix (`prefix_chars`)."""

    digest: str
    offered: tuple[OfferedTool, ...]
    chars: int = Field(ge=0)


class AssembledContext(BaseModel, frozen=True):
    """A turn's assembled context: its request (its tools by reference in `toolset`), its
    estimate, and whether compaction.trigger asks for a compaction before the model sees
    it."""

    request: LLMRequest
    estimated_tokens: int = Field(ge=0)
    compact: bool = False
    toolset: ToolsetRef | None = None

    @property
    def tool_chars(self) -> int:
        """What the tools by reference add to the request's prefix (`UsageMark.of`)."""
        return self.toolset.chars if self.toolset is not None else 0


class CompactInput(BaseModel, frozen=True):
    """Input of the `compact` activity: what the turn's window is built from."""

    context: AssembleInput
    context_id: str
    attempt: int = Field(default=1, ge=1)


class CompactOutcome(BaseModel, frozen=True):
    """What a compaction folded: the summary item that opens the conversation from now on,
    the numbers of the stored items it keeps after it, and its record; or why nothing was
    folded (`skipped`)."""

    summary: UserItem | None = None
    kept: tuple[int, ...] = ()
    record: CompactionRecord | None = None
    skipped: str | None = None


class InvokeLLMInput(BaseModel, frozen=True):
    """Input of the `invoke_llm` activity: the request, its tools in `toolset` when given."""

    task_id: str
    request: LLMRequest
    attempt: int = Field(default=1, ge=1)
    toolset: ToolsetRef | None = None


class InvokeToolInput(BaseModel, frozen=True):
    """Input of the `invoke_tool` activity: one call, so a veto or retry touches it alone."""

    task_id: str
    call: ToolCall
    loaded_skills: tuple[str, ...] = ()
    attempt: int = Field(default=1, ge=1)
    iteration: int = Field(default=0, ge=0)
    """The loop iteration (the model call) the call came from: an MCP server's tools are
    listed again for drift at most once per iteration."""
    task: TaskExtensionData | None = None
    """The task's extension data, for a question the harness may have to route."""


class PersistInput(BaseModel, frozen=True):
    """Input of the `persist` local activity: the step of the task's log since the previous
    write, and the task-scoped records (plans, state, inbox audit, compactions) made since."""

    log: LogWrite
    records: tuple[Record, ...] = ()


class PersistOutcome(BaseModel, frozen=True):
    """What a write tells the workflow: the workflow-level hook points that have an
    executor on the worker (the workflow dispatches nothing else)."""

    points: tuple[str, ...] = ()


class TurnInput(BaseModel, frozen=True):
    """Input of the `prepare_turn` local activity: what the worker does before a model call,
    in order: write the log so far (`step`), take in the waiting `messages`
    (request.received), assemble the turn's `context` with them (compaction.trigger). A
    task without a model (an assigned one) only takes its messages in."""

    task_id: str
    step: PersistInput | None = None
    messages: tuple[Intake, ...] = ()
    context: AssembleInput | None = None


class PreparedTurn(BaseModel, frozen=True):
    """What `prepare_turn` did: the item each message became (in order), the assembled
    context if one was asked for, and the subscribed hook points (`PersistOutcome`)."""

    items: tuple[UserItem, ...] = ()
    assembled: AssembledContext | None = None
    points: tuple[str, ...] = ()


class DispatchInput(BaseModel, frozen=True):
    """Input of the `dispatch_hooks` activity: a point and its context, as JSON."""

    point: str
    context: JsonObject

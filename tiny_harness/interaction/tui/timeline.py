"""`Timeline`: the one reducer from a task's A2A events to what the terminal UI shows.

    StreamResponse ─► Timeline.apply ─► [Change, …] ─► the widgets (conversation, plan, list)

Pure: no widgets, no I/O, so it is tested on its own and replays are cheap. Every entry has
the id of the message or artifact it came from, and a message already seen is never added
again: a resubscribe opens with the whole task (its history and artifacts), so what was shown
before the break is recognised, and what came during it is added, each event once. An
artifact is replaced when an event sends it whole and extended when it appends a chunk.

What each part becomes (`PartView`): text as Markdown; a data part as a JSON tree; a file or
URL as its name, media type and link; A2UI messages update a surface (`surfaces`) and add
one surface entry where the surface first appears; the plan part (`PLAN_MEDIA_TYPE`)
updates `plan`, the task extension part (`TASK_MEDIA_TYPE`, as in `Task.metadata`) the plan
and `sub_tasks` with their states; a call part (`CALL_MEDIA_TYPE`) adds one "call" entry
per call where it starts, which its end then updates; our extensions' other parts (a
question's options, its help request) are read, not shown; anything else is a placeholder
naming its kind and media type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from a2a.types import Artifact, Message, Part, Role, StreamResponse, Task, TaskState
from google.protobuf.json_format import MessageToDict
from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from tiny_harness.harness.a2ui.messages import A2UI_MEDIA_TYPE
from tiny_harness.harness.channels.extension import CHANNEL_MEDIA_TYPE
from tiny_harness.harness.protocol.data_parts import media_essence
from tiny_harness.harness.tasks.calls import CALL_MEDIA_TYPE, CallEvent, CallState
from tiny_harness.harness.tasks.extension import (
    TASK_EXT_KEY,
    TASK_MEDIA_TYPE,
    TaskRef,
    TaskTrace,
)
from tiny_harness.harness.tasks.plan import PLAN_MEDIA_TYPE, PLAN_TEXT_PREFIX, Plan
from tiny_harness.harness.tasks.states import FINAL
from tiny_harness.interaction.tui.surface_model import SurfaceModel, items_of

__all__ = ["PLAN_MEDIA_TYPE", "Change", "Entry", "PartView", "StepView", "Timeline"]

_MARKDOWN: Final = {"", "text/plain", "text/markdown"}
_READ_NOT_SHOWN: Final = {CHANNEL_MEDIA_TYPE}

_FROZEN = ConfigDict(frozen=True)


class PartView(BaseModel):
    """One part as the UI draws it."""

    model_config = _FROZEN
    kind: Literal["markdown", "json", "file", "placeholder", "action"]
    text: str = ""
    data: JsonValue = None
    name: str = ""
    media_type: str = ""
    url: str = ""
    size: int | None = None


class Entry(BaseModel):
    """One block of the conversation."""

    model_config = _FROZEN
    id: str
    kind: Literal["user", "agent", "question", "auth", "final", "artifact", "surface", "call"]
    parts: tuple[PartView, ...] = ()
    options: tuple[str, ...] = ()
    name: str = ""
    surface_id: str = ""
    state: str = ""
    complete: bool = True
    """For an artifact: whether its last chunk has come."""
    call: CallEvent | None = None
    """For a call: the call as last told."""


class StepView(BaseModel):
    """One plan step and where it stands: pending, in_progress, done, failed or skipped."""

    model_config = _FROZEN
    id: str
    name: str
    status: Literal["pending", "in_progress", "done", "failed", "skipped"]


@dataclass(frozen=True)
class Change:
    """What one event changed: entries added or updated, and which panels to redraw."""

    added: tuple[Entry, ...] = ()
    updated: tuple[Entry, ...] = ()
    surfaces: tuple[str, ...] = ()
    plan: bool = False
    state: bool = False

    @property
    def empty(self) -> bool:
        return not (self.added or self.updated or self.surfaces or self.plan or self.state)


@dataclass
class _Draft:
    """What one event changes, gathered before it becomes a `Change`."""

    added: list[Entry] = field(default_factory=list)
    updated: list[Entry] = field(default_factory=list)
    surfaces: list[str] = field(default_factory=list)
    plan: bool = False
    state: bool = False

    def done(self) -> Change:
        return Change(
            tuple(self.added),
            tuple(self.updated),
            tuple(dict.fromkeys(self.surfaces)),
            self.plan,
            self.state,
        )


class Timeline:
    """One task as the UI shows it, built from its events."""

    def __init__(self, task_id: str = "") -> None:
        self.task_id = task_id
        self.context_id = ""
        self.state: TaskState = TaskState.TASK_STATE_UNSPECIFIED
        self.entries: list[Entry] = []
        self.plan: Plan | None = None
        self.sub_tasks: tuple[TaskRef, ...] = ()
        self.trace: TaskTrace | None = None
        """The trace of the task's work, when the server traces."""
        self.surfaces: dict[str, SurfaceModel] = {}
        self._index: dict[str, int] = {}
        self._seen: set[str] = set()

    @property
    def state_name(self) -> str:
        """The task's state as A2A names it (TASK_STATE_WORKING, ...)."""
        return TaskState.Name(self.state)

    @property
    def final(self) -> bool:
        """Whether the task is in a state it never leaves."""
        return self.state in FINAL

    @property
    def question(self) -> Entry | None:
        """The open question, when the task waits for input."""
        if self.state != TaskState.TASK_STATE_INPUT_REQUIRED:
            return None
        return next((e for e in reversed(self.entries) if e.kind == "question"), None)

    def steps(self) -> list[StepView]:
        """The plan's steps: done, failed (the task failed without them), skipped (it ended
        otherwise without them), in progress (the first step whose dependencies are done),
        or pending."""
        if self.plan is None:
            return []
        done = {s.id for s in self.plan.steps if s.state == "done"}
        views: list[StepView] = []
        running = False
        for step in self.plan.steps:
            if step.id in done:
                status = "done"
            elif self.final:
                status = "failed" if self.state == TaskState.TASK_STATE_FAILED else "skipped"
            elif not running and all(d in done for d in step.depends_on):
                status, running = "in_progress", True
            else:
                status = "pending"
            views.append(StepView(id=step.id, name=step.name, status=status))
        return views

    def add_user(self, message: Message) -> Change:
        """A message this client sent, shown before the agent echoes it."""
        draft = _Draft()
        self._message(message, TaskState.TASK_STATE_UNSPECIFIED, draft)
        return draft.done()

    def apply(self, event: StreamResponse) -> Change:
        """Fold one event in; what it changed."""
        draft = _Draft()
        kind = event.WhichOneof("payload")
        if kind == "task":
            self._task(event.task, draft)
        elif kind == "status_update":
            update = event.status_update
            self._ids(update.task_id, update.context_id)
            self._set_state(update.status.state, draft)
            if update.status.HasField("message"):
                self._message(update.status.message, update.status.state, draft)
        elif kind == "artifact_update":
            update_a = event.artifact_update
            self._ids(update_a.task_id, update_a.context_id)
            self._artifact(
                update_a.artifact, draft, append=update_a.append, last=update_a.last_chunk
            )
        elif kind == "message":
            self._message(event.message, self.state, draft)
        return draft.done()

    # ---- folding ------------------------------------------------------------------------

    def _ids(self, task_id: str, context_id: str) -> None:
        self.task_id = self.task_id or task_id
        self.context_id = self.context_id or context_id

    def _set_state(self, state: TaskState, draft: _Draft) -> None:
        if state != self.state:
            self.state = state
            draft.state = True
            draft.plan = draft.plan or self.plan is not None

    def _task(self, task: Task, draft: _Draft) -> None:
        self._ids(task.id, task.context_id)
        self._set_state(task.status.state, draft)
        status_id = task.status.message.message_id if task.status.HasField("message") else None
        for message in task.history:
            # The status message is in the history too: drawn as what it is (the question,
            # the final word), whichever comes first, the task or the stream's event.
            mid = message.message_id
            state = task.status.state if mid == status_id else TaskState.TASK_STATE_UNSPECIFIED
            self._message(message, state, draft)
        if task.status.HasField("message"):
            self._message(task.status.message, task.status.state, draft)
        for artifact in task.artifacts:
            self._artifact(artifact, draft, append=False, last=task.status.state in FINAL)
        self._extension(MessageToDict(task.metadata).get(TASK_EXT_KEY), draft)

    def _extension(self, ext: JsonValue, draft: _Draft) -> None:
        if not isinstance(ext, dict):
            return
        try:
            refs = tuple(TaskRef.model_validate(r) for r in items_of(ext.get("subTasks")))
            plan = Plan.model_validate(ext["plan"]) if ext.get("plan") else None
            trace = TaskTrace.model_validate(ext["trace"]) if ext.get("trace") else None
        except (ValidationError, TypeError):
            return
        self.trace = trace or self.trace
        if refs != self.sub_tasks:
            self.sub_tasks, draft.plan = refs, True
        if plan is not None and plan != self.plan:
            self.plan, draft.plan = plan, True

    def _message(self, message: Message, state: TaskState, draft: _Draft) -> None:
        if message.message_id in self._seen:
            return
        self._seen.add(message.message_id)
        parts: list[PartView] = []
        options: tuple[str, ...] = ()
        drawn: list[JsonValue] = []
        plan_shown = False
        for part in message.parts:
            essence = media_essence(part.media_type)
            if part.WhichOneof("content") == "data":
                value: JsonValue = MessageToDict(part.data) if part.data.ListFields() else None
                if essence == A2UI_MEDIA_TYPE and message.role == Role.ROLE_AGENT:
                    drawn.append(value)
                    continue
                if essence == A2UI_MEDIA_TYPE:  # a person's action goes to the agent: said
                    if (action := _action(value)) is not None:
                        parts.append(action)
                    continue
                if essence == PLAN_MEDIA_TYPE:
                    plan_shown = self._plan(value, draft) or plan_shown
                    continue
                if essence == TASK_MEDIA_TYPE:
                    self._extension(value, draft)
                    continue
                if essence == CALL_MEDIA_TYPE and self._call(value, draft):
                    continue
                if essence in _READ_NOT_SHOWN:
                    continue
                if message.role == Role.ROLE_AGENT and (listed := _options(value)) is not None:
                    options = listed
                    continue
            parts.append(_view(part))
        if plan_shown:  # a new plan said as text too: the plan panel shows it
            parts = [p for p in parts if not _says_the_plan(p)]
        if parts or options:
            kind = _message_kind(message, state)
            shown = TaskState.Name(state) if state else ""
            entry = Entry(id=message.message_id, kind=kind, parts=tuple(parts), options=options)
            self._add(entry.model_copy(update={"state": shown}), draft)
        for ui in drawn:  # after the message's own text, which introduces the surface
            self._a2ui(ui, draft)

    def _a2ui(self, value: JsonValue, draft: _Draft) -> None:
        if not isinstance(value, dict):
            return
        body = next((value[k] for k in value if k != "version"), None)
        surface_id = body.get("surfaceId") if isinstance(body, dict) else None
        if not isinstance(surface_id, str):
            return
        model = self.surfaces.get(surface_id)
        if model is None:
            model = self.surfaces[surface_id] = SurfaceModel(surface_id)
            self._add(Entry(id=f"a2ui:{surface_id}", kind="surface", surface_id=surface_id), draft)
        model.apply(value)
        draft.surfaces.append(surface_id)

    def _call(self, value: JsonValue, draft: _Draft) -> bool:
        """Take a call part in; whether it held a call (its entry shows it)."""
        try:
            call = CallEvent.model_validate(value)
        except ValidationError:
            return False
        key = f"call:{call.call_id}"
        known = self._index.get(key)
        if known is None:
            self._add(Entry(id=key, kind="call", name=call.name, call=call), draft)
            return True
        old = self.entries[known]
        ended = old.call is not None and old.call.state is not CallState.STARTED
        if old.call == call or (ended and call.state is CallState.STARTED):
            return True  # told before (a replay), or a start after its end
        entry = old.model_copy(update={"name": call.name, "call": call})
        self.entries[known] = entry
        draft.updated.append(entry)
        return True

    def _plan(self, value: JsonValue, draft: _Draft) -> bool:
        """Take a plan part in; whether it held a plan (the panel shows it)."""
        try:
            plan = Plan.model_validate(value)
        except ValidationError:
            return False
        if plan != self.plan:
            self.plan, draft.plan = plan, True
        return True

    def _artifact(self, artifact: Artifact, draft: _Draft, *, append: bool, last: bool) -> None:
        key = f"artifact:{artifact.artifact_id}"
        parts = tuple(_view(p) for p in artifact.parts)
        known = self._index.get(key)
        if known is None:
            entry = Entry(id=key, kind="artifact", parts=parts, name=artifact.name, complete=last)
            self._add(entry, draft)
            return
        old = self.entries[known]
        new_parts = (*old.parts, *parts) if append else parts
        if not append and new_parts == old.parts and old.complete >= last:
            return  # the same artifact again (a replay after a resubscribe)
        update = {"parts": new_parts, "name": artifact.name or old.name, "complete": last}
        entry = old.model_copy(update=update)
        self.entries[known] = entry
        draft.updated.append(entry)

    def _add(self, entry: Entry, draft: _Draft) -> None:
        self._index[entry.id] = len(self.entries)
        self.entries.append(entry)
        draft.added.append(entry)


def _options(value: JsonValue) -> tuple[str, ...] | None:
    """A question's options, when `value` is the `{"options": [...]}` part that carries them."""
    if isinstance(value, dict) and list(value) == ["options"]:
        listed = value["options"]
        if isinstance(listed, list):
            return tuple(str(o) for o in listed)
    return None


def _action(value: JsonValue) -> PartView | None:
    """A person's A2UI action (a button pressed), as the agent receives it: its name, and
    its context as `data`."""
    body = value.get("action") if isinstance(value, dict) else None
    if not isinstance(body, dict) or not isinstance(name := body.get("name"), str):
        return None
    context = body.get("context")
    return PartView(kind="action", name=name, data=context if isinstance(context, dict) else {})


def _message_kind(
    message: Message, state: TaskState
) -> Literal["user", "agent", "question", "auth", "final"]:
    if message.role == Role.ROLE_USER:
        return "user"
    if state == TaskState.TASK_STATE_INPUT_REQUIRED:
        return "question"
    if state == TaskState.TASK_STATE_AUTH_REQUIRED:
        return "auth"
    if state in FINAL:
        return "final"
    return "agent"


def _view(part: Part) -> PartView:
    """How one part is drawn."""
    content = part.WhichOneof("content")
    media = media_essence(part.media_type)
    if content == "text":
        if media in _MARKDOWN:
            return PartView(kind="markdown", text=part.text)
        return PartView(kind="placeholder", text="text", media_type=media)
    if content == "data":
        return PartView(kind="json", data=MessageToDict(part.data), media_type=media)
    if content == "url":
        return PartView(kind="file", name=part.filename or part.url, media_type=media, url=part.url)
    if content == "raw":
        return PartView(kind="file", name=part.filename, media_type=media, size=len(part.raw))
    return PartView(kind="placeholder", text=content or "empty", media_type=media)


def _says_the_plan(part: PartView) -> bool:
    return part.kind == "markdown" and part.text.startswith(PLAN_TEXT_PREFIX)

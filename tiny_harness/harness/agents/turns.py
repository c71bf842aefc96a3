"""`RemoteTurn`: where a remote task stands, read the same way from every source.

The turn that sends a message, a GetTask and a follow stream all report a remote task's
state through `turn_of_task` / `turn_of_event`, so the stand-in compares like with like
and a change is a change whichever reader saw it.

A turn's text is the newest thing the remote task said: its status message, or, when an
agent answers with an artifact (as a harness does) rather than in the status, the
artifact's text, so a parent hears a finished sub-task's result and not only its state.
"""

from __future__ import annotations

from a2a.helpers import get_artifact_text, get_message_text
from a2a.types import StreamResponse, Task, TaskState, TaskStatus
from pydantic import BaseModel

from tiny_harness.errors import TaskExtensionError
from tiny_harness.harness.tasks import states as task_states
from tiny_harness.harness.tasks.extension import ext_of
from tiny_harness.harness.tasks.usage import UsageTotals


class RemoteTurn(BaseModel, frozen=True):
    """A remote task's id, state (an `a2a.types.TaskState` value) and status text."""

    remote_task_id: str
    state: int
    text: str = ""
    usage: UsageTotals | None = None
    """What the task used, as its harness reported it: only set for a task that ended on
    this harness (the stand-in reads it), so it counts toward the parent's usage."""

    @property
    def final(self) -> bool:
        """The remote task ended."""
        return self.state in task_states.FINAL

    @property
    def parked(self) -> bool:
        """The remote task waits for input (or for authorisation)."""
        return self.state in task_states.PAUSED

    @property
    def state_name(self) -> str:
        """The state's enum name, e.g. TASK_STATE_COMPLETED."""
        return TaskState.Name(self.state)

    def differs(self, other: RemoteTurn | None) -> bool:
        """Whether this is news compared with `other` (state or text changed)."""
        return other is None or (self.state, self.text) != (other.state, other.text)


def _status_text(status: TaskStatus) -> str:
    return get_message_text(status.message) if status.HasField("message") else ""


def turn_of_task(task: Task, *, known_text: str = "") -> RemoteTurn:
    """The turn a Task snapshot shows; a status without a message says what the final
    task's artifacts say, else keeps `known_text`."""
    text = _status_text(task.status)
    if not text and task.status.state in task_states.FINAL:
        text = "\n".join(filter(None, (get_artifact_text(a) for a in task.artifacts)))
    return RemoteTurn(remote_task_id=task.id, state=task.status.state, text=text or known_text)


def usage_of(task: Task) -> UsageTotals | None:
    """The totals a harness's task reports in its extension (its sub-tasks' included);
    None when it reports none."""
    try:
        ext = ext_of(task)
    except TaskExtensionError:
        return None
    return None if ext is None or ext.usage is None else ext.usage.total


def turn_of_event(event: StreamResponse, known: RemoteTurn | None) -> RemoteTurn | None:
    """The turn one streamed event shows, or None when the event says nothing of state."""
    kind = event.WhichOneof("payload")
    known_text = known.text if known is not None else ""
    if kind == "task":
        return turn_of_task(event.task, known_text=known_text)
    if kind == "status_update":
        update = event.status_update
        text = _status_text(update.status) or known_text
        return RemoteTurn(remote_task_id=update.task_id, state=update.status.state, text=text)
    if kind == "artifact_update" and known is not None:
        text = get_artifact_text(event.artifact_update.artifact)
        return known.model_copy(update={"text": text}) if text else None
    return None

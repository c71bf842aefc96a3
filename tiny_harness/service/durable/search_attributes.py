"""The search attributes a task's workflow carries, so an operator finds tasks by their A2A
fields in Temporal (`temporal workflow list --query "A2ATaskState='TASK_STATE_INPUT_REQUIRED'"`,
the Temporal UI):

    A2AContextId      the task's context id
    A2ATaskState      its state, by its A2A name (TASK_STATE_WORKING, ...)
    TinyHarnessAgent  the harness it runs on, by its task queue (harnesses that share a
                      namespace each have their own)

All three are keywords, registered on the namespace when a process connects
(`client/searchable.py`) where the namespace allows it. A task started while they are
registered carries them from its start; its workflow then keeps `A2ATaskState` current,
one upsert (one history event) per change of state. A task started without them (a
namespace that refuses to register them) never upserts: an unregistered attribute would
fail its workflow task. Pure code: the workflow and the client side both use it.
"""

from __future__ import annotations

from typing import Final

from a2a.types import TaskState
from temporalio import workflow
from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

CONTEXT_ID: Final = SearchAttributeKey.for_keyword("A2AContextId")
TASK_STATE: Final = SearchAttributeKey.for_keyword("A2ATaskState")
AGENT: Final = SearchAttributeKey.for_keyword("TinyHarnessAgent")
KEYS: Final = (CONTEXT_ID, TASK_STATE, AGENT)

FIRST_STATE: Final = TaskState.Name(TaskState.TASK_STATE_WORKING)
"""What a task's start says: its first message sets it working within its first workflow
task, so saying so at the start spares that change an upsert."""


def at_start(context_id: str, agent: str) -> TypedSearchAttributes:
    """A new task's attributes."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(CONTEXT_ID, context_id),
            SearchAttributePair(TASK_STATE, FIRST_STATE),
            SearchAttributePair(AGENT, agent),
        ]
    )


def for_sub_task(context_id: str) -> TypedSearchAttributes | None:
    """The attributes of a task this workflow starts (a participant's task): its own
    context, this harness; None when this workflow was started without them."""
    agent = workflow.info().typed_search_attributes.get(AGENT)
    return None if agent is None else at_start(context_id, agent)


def note_state(state: TaskState) -> None:
    """Keep `A2ATaskState` current (workflow code); nothing for a task started without it."""
    current = workflow.info().typed_search_attributes.get(TASK_STATE)
    name = TaskState.Name(state)
    if current is not None and current != name:
        workflow.upsert_search_attributes([TASK_STATE.value_set(name)])

"""`Figures`: what the run's Temporal history, exported spans and store files say ran.

Three witnesses, each counting on its own:

- the task's **Temporal history**: each model call and tool call is one scheduled activity
  (`invoke_llm`, `invoke_tool`) that completed; one whose worker died times out (its
  heartbeat stops), and the workflow schedules the call again as its next attempt;
- the **exported spans**: one `chat` span per model call and one `execute_tool` span per
  tool call, each with its correlation id (the activity id, the tool call's id) and attempt;
- the **store** the MCP server writes: `calls.log` (each call as it starts and ends) and
  `orders.jsonl` (each order placed).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from otlp import ReceivedSpan
from temporalio.client import WorkflowHistory

LOOKUP = "shop.store.find_items"


@dataclass
class Figures:
    """The counts of the run (see the module docstring)."""

    scheduled: Counter[str] = field(default_factory=Counter)
    completed: Counter[str] = field(default_factory=Counter)
    lost: Counter[str] = field(default_factory=Counter)
    """Activities that timed out or failed: their worker was killed under them."""
    chat_spans: int = 0
    chat_ids: int = 0
    tool_spans: Counter[str] = field(default_factory=Counter)
    tool_retries: list[str] = field(default_factory=list)
    tool_repeats: list[str] = field(default_factory=list)
    store_calls: Counter[str] = field(default_factory=Counter)
    orders: list[dict[str, object]] = field(default_factory=list)

    def nothing_ran_twice(self) -> bool:
        """Every model call once; every tool call finished once, the only retry the lookup
        killed mid-call (read-only); one order, of 10."""
        models_once = (
            self.scheduled["invoke_llm"]
            == self.completed["invoke_llm"]
            == self.chat_spans
            == self.chat_ids
            and self.lost["invoke_llm"] == 0
        )
        tools = (
            self.scheduled["invoke_tool"]
            == self.completed["invoke_tool"] + self.lost["invoke_tool"]
        )
        tools_once = tools and not self.tool_repeats
        only_the_lookup = self.lost["invoke_tool"] == len(self.tool_retries) and set(
            self.tool_retries
        ) <= {LOOKUP}
        one_order = [o.get("quantity") for o in self.orders] == [10] and self.store_calls[
            "end place_order"
        ] == 1
        return models_once and tools_once and only_the_lookup and one_order

    def report(self) -> str:
        """The figures as lines a person reads."""
        llm, tool = "invoke_llm", "invoke_tool"
        tools = ", ".join(f"{name} {n}" for name, n in sorted(self.tool_spans.items()))
        again = ", ".join(self.tool_retries) or "none"
        calls = self.store_calls
        verdict = "no model call and no tool call ran twice"
        lines = [
            f"model calls  history: {self.scheduled[llm]} scheduled, "
            f"{self.completed[llm]} completed, {self.lost[llm]} lost in a crash",
            f"             trace:   {self.chat_spans} chat spans, {self.chat_ids} distinct",
            f"tool calls   history: {self.scheduled[tool]} scheduled, "
            f"{self.completed[tool]} completed, {self.lost[tool]} lost in a crash",
            f"             trace:   {sum(self.tool_spans.values())} execute_tool spans "
            f"({tools}); a vetoed call has none",
            f"             run again after a crash: {again}; "
            f"finished twice: {len(self.tool_repeats)}",
            f"store        lookups started {calls['start find_items']}, "
            f"finished {calls['end find_items']}; orders placed {len(self.orders)}: "
            f"{json.dumps(self.orders)}",
            "verdict      " + (verdict if self.nothing_ran_twice() else "SOMETHING RAN TWICE"),
        ]
        return "\n".join(lines)


def count_activities(history: WorkflowHistory, figures: Figures) -> Figures:
    """`figures` with the activities of `history` counted in: scheduled, completed, lost
    (timed out or failed), by activity type."""
    kinds: dict[int, str] = {}
    for event in history.events:
        if event.HasField("activity_task_scheduled_event_attributes"):
            kind = event.activity_task_scheduled_event_attributes.activity_type.name
            kinds[event.event_id] = kind
            figures.scheduled[kind] += 1
        elif event.HasField("activity_task_timed_out_event_attributes"):
            lost = event.activity_task_timed_out_event_attributes
            figures.lost[kinds.get(lost.scheduled_event_id, "?")] += 1
        elif event.HasField("activity_task_failed_event_attributes"):
            failed = event.activity_task_failed_event_attributes
            figures.lost[kinds.get(failed.scheduled_event_id, "?")] += 1
        elif event.HasField("activity_task_completed_event_attributes"):
            done = event.activity_task_completed_event_attributes
            figures.completed[kinds.get(done.scheduled_event_id, "?")] += 1
    return figures


def figures_of(history: WorkflowHistory, spans: list[ReceivedSpan], shop: Path) -> Figures:
    """The figures of one task from its three witnesses."""
    figures = count_activities(history, Figures())
    chats = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    figures.chat_spans = len(chats)
    figures.chat_ids = len({s.attributes.get("tiny_harness.correlation_id") for s in chats})
    tools = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    seen: Counter[str] = Counter()
    for span in tools:
        name = str(span.attributes.get("gen_ai.tool.name"))
        figures.tool_spans[name] += 1
        seen[str(span.attributes.get("tiny_harness.correlation_id"))] += 1
        if int(span.attributes.get("tiny_harness.attempt", 1)) > 1:
            figures.tool_retries.append(name)
    figures.tool_repeats = [call for call, n in seen.items() if n > 1]
    calls = shop / "calls.log"
    for line in calls.read_text().splitlines() if calls.exists() else []:
        figures.store_calls[" ".join(line.split()[:2])] += 1
    orders = shop / "orders.jsonl"
    figures.orders = (
        [json.loads(line) for line in orders.read_text().splitlines()] if orders.exists() else []
    )
    return figures

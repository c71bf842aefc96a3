"""The terminal UI as a person uses it: Textual's headless pilot drives the real app, which
talks A2A through the a2a-sdk client to a real harness on 127.0.0.1 (the shared dev server,
the scripted model) or to a plain a2a-sdk agent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from a2a.types import GetTaskRequest, ListTasksRequest, TaskState
from temporalio.client import Client
from textual.pilot import Pilot
from textual.widgets import Button, Collapsible, Static, Tree
from textual.widgets.collapsible import CollapsibleTitle

from tests.harness.agents.plain_agent import plain_agent
from tests.interaction.tui.pilot import (
    blocks,
    final_state,
    first_row,
    running_tui,
    statics,
    texts,
    type_and_send,
    until,
)
from tests.support import (
    HeldLLM,
    as_participant,
    collect,
    delegating_to,
    llm_requests,
    running_harness,
    send_request,
)
from tiny_harness.harness.models.llm import UserItem
from tiny_harness.harness.tasks.calls import CallState, calls_in
from tiny_harness.harness.tasks.extension import ext_of
from tiny_harness.harness.tasks.plan import PLAN_TEXT_PREFIX as PLAN
from tiny_harness.interaction.tui.app import TinyHarnessApp
from tiny_harness.interaction.tui.connection import AgentConnection
from tiny_harness.interaction.tui.screens.calls import CallsScreen
from tiny_harness.interaction.tui.screens.confirm import ConfirmScreen
from tiny_harness.interaction.tui.widgets.banner import ConnectionBanner
from tiny_harness.interaction.tui.widgets.blocks import QuestionBlock, action_text
from tiny_harness.interaction.tui.widgets.call_block import CallBlock, ModelLine
from tiny_harness.interaction.tui.widgets.plan_panel import PlanPanel
from tiny_harness.interaction.tui.widgets.task_list import TaskList
from tiny_harness.service.a2a.authentication import ApiKeys, key_digest, new_key

PLAN_THEN_ANSWER = """
turns:
  - text: "Planning."
    tool_calls:
      - name: create_plan
        arguments: {steps: [{id: a, name: look}, {id: b, name: answer, depends_on: [a]}]}
  - tool_calls:
      - {name: complete_step, arguments: {step_id: a, output: looked}}
      - {name: complete_step, arguments: {step_id: b, output: answered}}
  - text: "The answer is **42**."
"""

ASK_COLOUR = """
turns:
  - tool_calls:
      - name: ask_participant
        arguments: {question: "Which colour?", options: [red, blue]}
  - when: "(?i)blue"
    text: "Blue it is."
  - text: "Not blue, then."
"""

HELD = """
turns:
  - text: "Working on it."
    tool_calls:
      - name: create_plan
        arguments: {steps: [{id: a, name: wait}]}
  - tool_calls: [{name: complete_step, arguments: {step_id: a, output: waited}}]
  - text: "Done after the wait."
"""

PICK_A_SIZE = """
turns:
  - tool_calls:
      - name: emit_ui
        arguments:
          text: "Pick a size"
          messages:
            - {version: v0.9.1, createSurface: {surfaceId: sizes,
               catalogId: "https://a2ui.org/specification/v0_9/basic_catalog.json"}}
            - {version: v0.9.1, updateComponents: {surfaceId: sizes, components: [
                {id: root, component: Column, children: [title, pick]},
                {id: title, component: Text, text: "Shirt size", variant: h2},
                {id: pick, component: Button, child: label,
                 action: {event: {name: choose, context: {size: "M"}}}},
                {id: label, component: Text, text: "Medium"}]}}
      - {name: ask_participant, arguments: {question: "Which size?"}}
  - when: "UI action 'choose'"
    text: "Size chosen."
  - text: "No size chosen."
"""


@asynccontextmanager
async def released(llm: HeldLLM) -> AsyncIterator[None]:
    """The held call is let go on the way out, however the test ends (the worker waits for
    it before it stops)."""
    try:
        yield
    finally:
        llm.release.set()


def held_after_progress(llm: HeldLLM, app: TinyHarnessApp) -> bool:
    """The task said it is working and its model now holds the next call: mid-task."""
    return llm.holding.is_set() and "Working on it." in texts(app, "agent")


@asynccontextmanager
async def answered(
    temporal_client: Client, tmp_path: Path
) -> AsyncIterator[tuple[TinyHarnessApp, Pilot[None]]]:
    """The app once the task "What is the answer?" (`PLAN_THEN_ANSWER`) has ended."""
    async with (
        running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as h,
        running_tui(h.url, "alice") as (app, pilot),
    ):
        await type_and_send(pilot, "What is the answer?")
        await until(pilot, lambda: final_state(app) != "", "the task to end")
        yield app, pilot


async def test_a_message_streams_in_as_progress_plan_and_answer(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with answered(temporal_client, tmp_path) as (app, pilot):
        # The list is read on a timer (ListTasks), so it may first show the task working.
        await until(pilot, lambda: "done" in first_row(app), "the list to show the task done")

        assert len(app.query_one(TaskList).options) == 1
        assert final_state(app) == "TASK_STATE_COMPLETED"
        assert texts(app, "user") == ["What is the answer?"]
        assert texts(app, "agent")[0] == "Planning."
        assert texts(app, "artifact") == ["The answer is **42**."]
        assert app.timeline is not None
        assert [(s.name, s.status) for s in app.timeline.steps()] == [
            ("look", "done"),
            ("answer", "done"),
        ]
        plan = str(app.query_one(PlanPanel).render())
        assert "✓ look" in plan
        assert "✓ answer" in plan
        assert "What is the answer?" in first_row(app)


async def test_each_tool_call_is_a_block_that_opens_to_its_result_and_f3_shows_the_timeline(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with answered(temporal_client, tmp_path) as (app, pilot):
        calls = list(app.query(CallBlock))
        assert [(b.entry.name, b.entry.call and b.entry.call.state) for b in calls] == [
            ("create_plan", CallState.COMPLETED),
            ("complete_step", CallState.COMPLETED),
            ("complete_step", CallState.COMPLETED),
        ]
        plan = calls[0].query_one(Collapsible)
        title = str(plan.query_one(CollapsibleTitle).render())
        assert "create_plan" in title
        assert "completed" in title
        assert plan.collapsed
        await pilot.click(CollapsibleTitle, offset=(2, 0))  # the first block's title
        await until(pilot, lambda: not plan.collapsed, "the block to open")
        shown = [str(w.render()) for w in plan.query(Static)]
        assert any(text.startswith("Plan created with 2 steps") for text in shown)
        arguments = plan.query_one(Tree)
        assert str(arguments.root.label) == "arguments"
        lines = list(app.query(ModelLine))
        assert len(lines) == 3
        assert all(" in · " in str(line.query_one(Static).render()) for line in lines)
        await pilot.press("f3")
        await until(pilot, lambda: isinstance(app.screen, CallsScreen), "the timeline")
        rows = [str(row.render()) for row in app.screen.query(".call-row")]
        assert [row.split()[1] for row in rows] == [
            "test",
            "create_plan",
            "test",
            "complete_step",
            "complete_step",
            "test",
        ]
        totals = str(app.screen.query_one("#call-totals").render())
        assert totals.startswith("model calls 3 · tool calls 3 · tokens ")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, CallsScreen), "the timeline to close")


@pytest.mark.parametrize("how", ["click", "key"])
async def test_a_question_is_answered_by_its_option_and_the_task_completes(
    temporal_client: Client, tmp_path: Path, how: str
) -> None:
    async with (
        running_harness(temporal_client, tmp_path, ASK_COLOUR) as h,
        running_tui(h.url, "alice") as (app, pilot),
    ):
        await type_and_send(pilot, "Paint the fence")
        await until(pilot, lambda: bool(app.query(QuestionBlock)), "the question")
        question = app.query_one(QuestionBlock)
        labels = [str(b.label) for b in question.query(Button)]
        assert labels == ["1 red", "2 blue"]
        if how == "click":
            await pilot.click(question.query(Button)[1])
        else:
            await pilot.press("2")  # the message box is empty: the digit picks
        await until(pilot, lambda: final_state(app) != "", "the task to end")

        assert final_state(app) == "TASK_STATE_COMPLETED"
        assert texts(app, "user") == ["Paint the fence", "blue"]
        assert texts(app, "artifact") == ["Blue it is."]
        assert question.has_class("answered")
        task = await (await h.client()).get_task(
            GetTaskRequest(id=app.timeline.task_id if app.timeline else ""),
            context=as_participant("alice"),
        )
        assert task.status.state == TaskState.TASK_STATE_COMPLETED


@pytest.mark.parametrize(("answer", "ending"), [("y", "CANCELED"), ("n", "COMPLETED")])
async def test_cancel_asks_first_and_only_a_yes_cancels(
    temporal_client: Client, tmp_path: Path, answer: str, ending: str
) -> None:
    llm = HeldLLM(HELD, hold_call=2)  # the model is thinking after the plan: mid-task
    async with (
        running_harness(temporal_client, tmp_path, "", llm=llm) as h,
        running_tui(h.url, "alice") as (app, pilot),
        released(llm),
    ):
        await type_and_send(pilot, "take your time")
        await until(pilot, lambda: held_after_progress(llm, app), "the task mid-work")
        await pilot.press("ctrl+x")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press(answer)
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "the answer")
        if answer == "n":
            assert final_state(app) == "", "the task ended while its model was held"
            llm.release.set()
        await until(pilot, lambda: final_state(app) != "", "the task to end")

        assert final_state(app) == f"TASK_STATE_{ending}"
        assert app.timeline is not None
        if ending == "CANCELED":
            # The cancel's answer and the stream's status event reach the app apart: the
            # reason comes with the event.
            await until(pilot, lambda: bool(texts(app, "final")), "the reason")
            assert texts(app, "final") == ["Task canceled: canceled by request"]
            assert [s.status for s in app.timeline.steps()] == ["skipped"]
        else:
            assert texts(app, "artifact") == ["Done after the wait."]


async def test_the_list_shows_only_the_callers_tasks_and_reopens_one(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as h:
        client = await h.client()
        for who, text in (("alice", "alice's question"), ("bob", "bob's question")):
            await collect(client.send_message(send_request(text), context=as_participant(who)))
        async with running_tui(h.url, "alice") as (app, pilot):
            tasks = app.query_one(TaskList)
            await until(pilot, lambda: tasks.option_count > 0, "the list")
            rows = [str(tasks.get_option_at_index(i).prompt) for i in range(tasks.option_count)]
            assert len(rows) == 1
            assert "alice's question" in rows[0]

            tasks.focus()
            tasks.highlighted = 0
            await pilot.press("enter")  # GetTask, then the whole conversation
            await until(pilot, lambda: bool(texts(app, "artifact")), "the reopened task")
            assert texts(app, "user") == ["alice's question"]
            assert texts(app, "artifact") == ["The answer is **42**."]
            assert final_state(app) == "TASK_STATE_COMPLETED"
        bobs = await client.list_tasks(ListTasksRequest(), context=as_participant("bob"))
        assert len(bobs.tasks) == 1


async def test_with_its_key_the_tui_works_on_an_agent_that_requires_one(
    temporal_client: Client, tmp_path: Path
) -> None:
    key = new_key()
    keys = ApiKeys([(key_digest(key), "alice")])
    async with (
        running_harness(
            temporal_client, tmp_path, PLAN_THEN_ANSWER, auth=keys, auth_mode="api_key"
        ) as h,
        running_tui(h.url, token=key) as (app, pilot),
    ):
        await type_and_send(pilot, "What is the answer?")
        await until(pilot, lambda: final_state(app) != "", "the task to end")
        await until(pilot, lambda: "done" in first_row(app), "the list to show the task done")
        listed = await app_connection(app).list_tasks()

        assert final_state(app) == "TASK_STATE_COMPLETED"
        assert texts(app, "artifact") == ["The answer is **42**."]
        ext = ext_of(listed[0])
        assert ext is not None
        assert [p.id for p in ext.participants] == ["alice"]  # the key's, not asserted


def app_connection(app: TinyHarnessApp) -> AgentConnection:
    assert app.connection is not None
    return app.connection


async def test_a_server_restart_mid_task_shows_a_banner_and_every_event_once(
    temporal_client: Client, tmp_path: Path
) -> None:
    llm = HeldLLM(HELD, hold_call=2)
    async with (
        running_harness(temporal_client, tmp_path, "", llm=llm) as h,
        running_tui(h.url, "alice") as (app, pilot),
        released(llm),
    ):
        await type_and_send(pilot, "survive a restart")
        await until(pilot, lambda: held_after_progress(llm, app), "the task mid-work")
        banner = app.query_one(ConnectionBanner)
        async with h.outage():
            await until(pilot, lambda: banner.display, "the banner", within=15)
            assert "Cannot reach the agent" in str(banner.render())
            llm.release.set()  # the task goes on while the server is down
        await until(pilot, lambda: final_state(app) != "", "the task to end")
        await until(pilot, lambda: not banner.display, "the banner to go")

        assert final_state(app) == "TASK_STATE_COMPLETED"
        shown = blocks(app)
        assert len({e.id for e in shown}) == len(shown)
        task = await (await h.client()).get_task(
            GetTaskRequest(id=app.timeline.task_id if app.timeline else ""),
            context=as_participant("alice"),
        )
        # Exactly what the task holds: every message once (the one saying a new plan is in
        # the plan panel; a call's start and end are one block), the answer once.
        held: list[str] = []
        for message in task.history:
            told = [f"call:{c.call_id}" for c in calls_in(message)]
            if not told and not message.parts[0].text.startswith(PLAN):
                held.append(message.message_id)
            held.extend(c for c in told if c not in held)
        assert [e.id for e in shown if e.kind != "artifact"] == held
        assert texts(app, "artifact") == ["Done after the wait."]


async def test_an_a2ui_button_press_reaches_the_model(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        running_harness(temporal_client, tmp_path, PICK_A_SIZE) as h,
        running_tui(h.url, "alice") as (app, pilot),
    ):
        await type_and_send(pilot, "order a shirt")
        await until(pilot, lambda: bool(app.query("#a2ui--sizes--pick")), "the surface")
        assert "Shirt size" in statics(app, ".a2ui-h2")
        button = app.query_one("#a2ui--sizes--pick", Button)
        assert str(button.label) == "Medium"
        await pilot.click(button)
        await until(pilot, lambda: final_state(app) != "", "the task to end")

        assert texts(app, "artifact") == ["Size chosen."]
        # The press is shown as the person's own message, the way the web UI shows it.
        pressed = [e for e in blocks(app) if e.kind == "user" and e.parts[0].kind == "action"]
        assert [action_text(e.parts[0]) for e in pressed] == ["▶ choose  size: M"]
        task_id = app.timeline.task_id if app.timeline else ""
    requests = await llm_requests(temporal_client, task_id)
    seen = [i.text for i in requests[-1].input if isinstance(i, UserItem)]
    assert any("UI action 'choose' on surface 'sizes', component 'pick'" in t for t in seen)
    assert any('"size": "M"' in t for t in seen)


async def test_any_a2a_agent_works_and_parts_it_cannot_show_are_placeholders() -> None:
    async with plain_agent() as agent, running_tui(agent.url) as (app, pilot):
        await type_and_send(pilot, "odd")
        await until(pilot, lambda: final_state(app) != "", "the task to end")

        assert final_state(app) == "TASK_STATE_COMPLETED"
        assert statics(app, ".part-placeholder") == ["[text part (text/html) — not shown here]"]
        files = statics(app, ".part-file")
        assert any("report.pdf" in f and "application/pdf" in f for f in files)
        assert any("plan.png" in f and "https://files.example/plan.png" in f for f in files)
        assert len(app.query(Tree)) == 1  # the JSON data
        assert not app.query_one(PlanPanel).display  # no plan: the extension is not there
        assert agent.rpc_calls("SendStreamingMessage")


async def test_auth_required_shows_the_agents_message_and_sends_nothing_itself() -> None:
    async with plain_agent() as agent, running_tui(agent.url) as (app, pilot):
        await type_and_send(pilot, "auth")
        await until(pilot, lambda: bool(texts(app, "auth")), "the auth request")
        assert texts(app, "auth") == ["sign in"]
        await pilot.pause(0.5)
        sent = agent.rpc_calls("SendStreamingMessage") + agent.rpc_calls("SendMessage")
        assert len(sent) == 1  # only the person's own message


async def test_a_refused_call_shows_the_a2a_error_and_keeps_the_app_running(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as h,
        running_tui(h.url, "alice", notifications=True) as (app, pilot),
    ):
        app.open_task("no-such-task")
        await until(pilot, lambda: bool(app.query("Toast")), "the error")
        toast = " ".join(str(t.render()) for t in app.query("Toast"))
        assert "TaskNotFoundError" in toast
        assert "-32001" in toast
        await type_and_send(pilot, "still works")
        await until(pilot, lambda: final_state(app) != "", "the next task")
        assert final_state(app) == "TASK_STATE_COMPLETED"


DELEGATES = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: plain, name: echo, goal: hello}}]
  - text: "Waiting for the sub-task."
  - when: "COMPLETED"
    text: "The sub-task finished."
"""


async def test_a_sub_task_is_a_row_with_its_agent_and_its_reported_state(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        plain_agent() as agent,
        running_harness(temporal_client, tmp_path, DELEGATES) as h,
        delegating_to(h, "plain", agent.url, updates="follow"),
    ):
        async with running_tui(h.url, "alice") as (app, pilot):
            await type_and_send(pilot, "delegate it")
            await until(pilot, lambda: final_state(app) != "", "the task to end")

            assert final_state(app) == "TASK_STATE_COMPLETED"
            assert app.timeline is not None
            [row] = app.timeline.sub_tasks
            assert (row.agent, row.state) == ("plain", "TASK_STATE_COMPLETED")
            panel = str(app.query_one(PlanPanel).render())
            assert "↳ plain" in panel
            assert "completed" in panel
            assert any("is now TASK_STATE_COMPLETED" in t for t in texts(app, "agent"))
            task = await (await h.client()).get_task(
                GetTaskRequest(id=app.timeline.task_id), context=as_participant("alice")
            )
        # The same state is what GetTask's task extension lists.
        ext = ext_of(task)
        assert ext is not None
        assert [(r.agent, r.state) for r in ext.sub_tasks] == [("plain", "TASK_STATE_COMPLETED")]


async def test_a_follow_up_on_a_finished_task_starts_a_new_task_in_the_same_context(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with (
        running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as h,
        running_tui(h.url, "alice") as (app, pilot),
    ):
        await type_and_send(pilot, "first question")
        await until(pilot, lambda: final_state(app) != "", "the first task")
        first = app.timeline
        assert first is not None
        await type_and_send(pilot, "and a follow-up")
        await until(
            pilot,
            lambda: app.timeline is not first and final_state(app) != "",
            "the follow-up task",
        )
        second = app.timeline
        assert second is not None
        assert second.task_id != first.task_id
        assert second.context_id == first.context_id
        assert texts(app, "user") == ["and a follow-up"]
        tasks = app.query_one(TaskList)
        await until(pilot, lambda: tasks.option_count == 2, "both tasks in the list")

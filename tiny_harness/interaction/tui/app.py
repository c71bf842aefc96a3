"""`TinyHarnessApp`: the terminal UI, a plain A2A client in which a person lives with tasks.

    ┌ header: the agent's name, who you are ────────────────────────────────────┐
    │ banner (only while the agent cannot be reached)                           │
    │ tasks (ListTasks,   │ the open task: blocks streamed in   │ plan and      │
    │ a badge each)       │ composer                            │ sub-tasks     │
    └ footer: the keys ─────────────────────────────────────────────────────────┘

What is said to the agent is `TaskSession`'s (session.py); the app draws what it hears.
One stream per open task: a message is sent with SendStreamingMessage and, when that
stream pauses (INPUT_REQUIRED) or breaks, the task is followed with SubscribeToTask, which
opens with the whole task, so the `Timeline` shows every event exactly once however often
the connection drops. While the agent cannot be reached a banner says so and the session
tries again with backoff (0.5 s doubling to 8 s). A failed call never shows a traceback: a refusal
is a notification with the A2A error's name and code; a message that was not sent goes back
into the composer.

Run with: tiny-harness tui [--url URL] [--as NAME]
"""

from __future__ import annotations

import gc
import logging
import uuid
from collections.abc import Awaitable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar, Final

from a2a.helpers import new_text_message
from a2a.types import Message, Role, Task
from rich.text import Text
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Header, OptionList, Static
from textual.worker import Worker, WorkerState

from tiny_harness.errors import AgentCallError, AgentRefusalError, AgentUnreachableError
from tiny_harness.harness.a2ui.messages import Action, action_part
from tiny_harness.interaction.tui import DEFAULT_URL
from tiny_harness.interaction.tui.a2ui import A2uiSurface
from tiny_harness.interaction.tui.connection import AgentConnection
from tiny_harness.interaction.tui.keys import KEYS, OPTION_KEYS
from tiny_harness.interaction.tui.screens.calls import CallsScreen
from tiny_harness.interaction.tui.screens.card import CardScreen
from tiny_harness.interaction.tui.screens.confirm import ConfirmScreen
from tiny_harness.interaction.tui.session import ConnectionFactory, TaskSession, opener
from tiny_harness.interaction.tui.timeline import Change, Timeline
from tiny_harness.interaction.tui.widgets.banner import ConnectionBanner
from tiny_harness.interaction.tui.widgets.blocks import QuestionBlock
from tiny_harness.interaction.tui.widgets.composer import Composer
from tiny_harness.interaction.tui.widgets.conversation import Conversation
from tiny_harness.interaction.tui.widgets.plan_panel import PlanPanel
from tiny_harness.interaction.tui.widgets.task_list import TaskList, badge, task_title

__all__ = ["TinyHarnessApp"]

logger = logging.getLogger(__name__)

LIST_REFRESH_SECONDS: Final = 5.0
TITLES_PER_REFRESH: Final = 20
"""How many tasks new to the list get their title read (GetTask) in one refresh."""


class TinyHarnessApp(App[None]):
    """The terminal UI of one agent, as one participant."""

    CSS_PATH = str(Path(__file__).with_name("app.tcss"))
    TITLE = "tiny-harness"
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, action, label, priority=key == "ctrl+x") for key, action, label in KEYS),
        *(Binding(k, f"choose({k})", f"Option {k}", show=False) for k in OPTION_KEYS),
    ]

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        participant: str = "",
        token: str = "",
        connect: ConnectionFactory | None = None,
    ) -> None:
        """`token`: the API key the agent asks for (`[auth] mode = "api_key"`), if any."""
        super().__init__()
        self.url = url
        self.participant = participant
        self.session = TaskSession(url, participant, connect or opener(token), self)
        self._titles: dict[str, str] = {}
        self._typed: tuple[Timeline, str] | None = None
        """A new task's first words, its title until the list has one."""
        self._header = Text()
        # With a key the agent knows who this is (the key names the participant).
        self.sub_title = f"as {participant}" if participant else "by key" if token else "anonymous"

    def compose(self) -> Iterator[Widget]:
        """The header, the banner, three panes and the footer."""
        yield Header()
        yield ConnectionBanner(id="banner")
        with Horizontal(id="main"):
            yield TaskList(id="tasks")
            with Vertical(id="center"):
                yield Static("", id="task-header")
                yield Conversation(id="conversation")
                yield Composer(id="composer")
            yield PlanPanel(id="plan")
        yield Footer()

    def on_mount(self) -> None:
        """Called when the app starts: reach the agent, then keep the list current."""
        self.query_one(TaskList).border_title = "Tasks"
        self.query_one(PlanPanel).display = False
        self._set_mode()
        self.query_one(Composer).focus()
        self._start()
        self.set_interval(LIST_REFRESH_SECONDS, self._list_tick)

    async def on_unmount(self) -> None:
        """Called when the app ends: close the connection."""
        await self.session.close()

    @property
    def connection(self) -> AgentConnection | None:
        """The connection to the agent, once it has answered."""
        return self.session.connection

    @property
    def timeline(self) -> Timeline | None:
        """The open task (None: the next message starts one)."""
        return self.session.timeline

    @timeline.setter
    def timeline(self, timeline: Timeline | None) -> None:
        self.session.timeline = timeline

    # ---- what the session tells the screen (`SessionScreen`) ----------------------------

    def link_down(self, reason: str, retry_in: float) -> None:
        """The agent cannot be reached: the banner says so, and when the next try is."""
        self.query_one(ConnectionBanner).down(reason, retry_in)

    def link_up(self) -> None:
        """The agent answers again: the banner goes."""
        self.query_one(ConnectionBanner).up()

    async def show(self, timeline: Timeline, change: Change) -> None:
        """Draw `change` if `timeline` is the open task; a new state refreshes the list."""
        if self._typed is not None and self._typed[0] is timeline and timeline.task_id:
            self._titles.setdefault(timeline.task_id, self._typed[1])
            self._typed = None
        if timeline is not self.timeline:
            return
        await self.query_one(Conversation).show(change, timeline)
        self._show_panels(timeline)
        if change.state:
            self.refresh_tasks()

    def refused(self, error: AgentCallError, *, prefix: str = "") -> None:
        """A refusal as a notification: the A2A error's message, name and code."""
        where = ""
        if isinstance(error, AgentRefusalError):
            where = f" [{error.reason}{f' {error.a2a_code}' if error.a2a_code else ''}]"
        head = f"{prefix}: " if prefix else ""
        self.notify(f"{head}{error.message}{where}", severity="error", timeout=8)

    # ---- reaching the agent ------------------------------------------------------------

    @work(exclusive=True, group="connect", exit_on_error=False)
    async def _start(self) -> None:
        connection = await self.session.connect()
        self.title = connection.card.name or "agent"
        # Everything made so far (modules, widgets, the client) lives as long as the app:
        # kept out of the collector's full passes, which otherwise stall a frame for
        # 100-200 ms every few seconds of a long stream (bench/tui_stream.py).
        gc.freeze()
        self.refresh_tasks()

    def _list_tick(self) -> None:
        if self.connection is not None:
            self.refresh_tasks()

    @work(exclusive=True, group="list", exit_on_error=False)
    async def refresh_tasks(self) -> None:
        """Read the caller's tasks (ListTasks) and redraw the list."""
        if self.connection is None:
            return
        tasks = await self.session.list_tasks()
        if tasks is None:
            return  # unreachable (the open task's stream shows the banner) or refused (said)
        try:
            await self._learn_titles(tasks)
        except AgentUnreachableError:
            return  # the next tick tries again
        except AgentCallError as error:
            self.refused(error)
            return
        self.query_one(TaskList).show(tasks, titles=self._titles)

    async def _learn_titles(self, tasks: list[Task]) -> None:
        """A title for each listed task that has none yet: its extension name, else its
        first message (read once, with GetTask, since the list carries no history)."""
        unknown = [t for t in tasks if t.id not in self._titles]
        for task in unknown[:TITLES_PER_REFRESH]:
            named = task_title(task) or task_title(await self.session.require().get_task(task.id))
            self._titles[task.id] = named

    # ---- the open task -----------------------------------------------------------------

    def open_task(self, task_id: str) -> None:
        """Show a task from the list: GetTask, then follow it while it is not final."""
        if self.timeline is not None and self.timeline.task_id == task_id:
            return
        self.timeline = Timeline(task_id)
        self._stream(self._reopen(self.timeline))

    async def _reopen(self, timeline: Timeline) -> None:
        await self.query_one(Conversation).clear()
        self._show_panels(timeline)
        if not await self.session.reopen(timeline) and self.timeline is timeline:
            await self._close_task()  # nothing is open: the next message starts a task

    def _show_panels(self, timeline: Timeline) -> None:
        header = badge(timeline.state) if timeline.task_id else Text()
        header.append(self._titles.get(timeline.task_id, "") or timeline.task_id)
        # Only a real change is drawn: every update of a widget costs the screen a layout.
        if header != self._header:
            self._header = header
            self.query_one("#task-header", Static).update(header)
        self.query_one(PlanPanel).show(timeline)
        self._set_mode()

    def _set_mode(self) -> None:
        timeline = self.timeline
        composer = self.query_one(Composer)
        question = timeline.question if timeline else None
        composer.options_open = bool(question and question.options)
        if timeline is None:
            composer.mode = "new"
        elif timeline.final:
            composer.mode = "follow-up"
        elif question is not None:
            composer.mode = "reply"
        else:
            composer.mode = "busy" if timeline.task_id else "new"

    # ---- sending ------------------------------------------------------------------------

    def send_text(self, text: str) -> None:
        """Send what the person typed: a new task, a reply, or a follow-up."""
        self.send(new_text_message(text, role=Role.ROLE_USER), typed=text)

    def send(self, message: Message, *, typed: str = "") -> None:
        """Send `message` on the open task (or start one); `typed` goes back into the
        composer if the message cannot be sent."""
        timeline = self.timeline
        if timeline is None or not timeline.task_id or timeline.final:
            context = timeline.context_id if timeline is not None else ""
            timeline = self.timeline = Timeline()
            if context:
                message.context_id = context
        else:
            message.task_id = timeline.task_id
            message.context_id = timeline.context_id
        self._stream(self._send(timeline, message, typed))

    async def _send(self, timeline: Timeline, message: Message, typed: str) -> None:
        conversation = self.query_one(Conversation)
        if not timeline.task_id:
            await conversation.clear()
            self._typed = (timeline, typed) if typed else None
        await conversation.show(timeline.add_user(message), timeline)
        error = await self.session.send(timeline, message)
        if error is not None:
            self._not_sent(error, typed)
        if not timeline.task_id:
            return
        self.refresh_tasks()
        await self.session.follow(timeline)

    def _not_sent(self, error: AgentCallError, typed: str) -> None:
        self.refused(error, prefix="Not sent")
        composer = self.query_one(Composer)
        if typed and not composer.value:
            composer.value = typed

    def _stream(self, job: Awaitable[None]) -> None:
        """Run `job` as the one stream of the open task (any earlier one is cancelled)."""
        self.run_worker(job, group="stream", exclusive=True, exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Called when a worker changes state: a failure the app did not expect is said
        and logged (never a traceback on screen; every worker runs with exit_on_error
        off), and the task can be reopened from the list."""
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            if not self.is_running:  # the app is closing: its widgets are going away
                logger.debug("worker %s ended with the app: %r", event.worker.name, error)
                return
            logger.error("worker %s failed", event.worker.name, exc_info=error)
            self.notify(
                f"Something went wrong showing the task ({type(error).__name__}); "
                "reopen it from the list.",
                severity="error",
                timeout=10,
            )

    # ---- what the person does ------------------------------------------------------------

    def on_input_submitted(self, event: Composer.Submitted) -> None:
        """Called when Enter is pressed in the composer."""
        text = event.value.strip()
        if not text:
            return
        if self.connection is None:
            self.notify("Not connected yet: the message stays in the box.", severity="warning")
            return
        event.input.value = ""
        self.send_text(text)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Called when a task in the list is chosen."""
        if event.option.id is not None and self.connection is not None:
            self.open_task(event.option.id)
            self.query_one(Composer).focus()

    def on_question_block_chosen(self, event: QuestionBlock.Chosen) -> None:
        """Called when an option of the open question is pressed."""
        self.send_text(event.option)

    def on_composer_option_key(self, event: Composer.OptionKey) -> None:
        """Called when a digit is typed into the empty composer."""
        self.action_choose(event.number)

    def on_a2ui_surface_action_taken(self, event: A2uiSurface.ActionTaken) -> None:
        """Called when a person presses a button of an A2UI surface: send the action."""
        action = Action(
            name=event.name,
            surfaceId=event.surface_id,
            sourceComponentId=event.component_id,
            timestamp=_now_iso(),
            context=event.context,
        )
        message = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER)
        message.parts.append(action_part(action))
        self.send(message)

    # ---- actions (keys and the palette) ------------------------------------------------------

    async def action_new_task(self) -> None:
        """Leave the open task; the next message starts a new one."""
        self.workers.cancel_group(self, "stream")
        await self._close_task()
        self.query_one(Composer).focus()

    async def _close_task(self) -> None:
        self.timeline = None
        self._header = Text()
        self.query_one("#task-header", Static).update("")
        self.query_one(PlanPanel).display = False
        await self.query_one(Conversation).clear()
        self._set_mode()

    def action_cancel_task(self) -> None:
        """Cancel the open task, after asking."""
        timeline = self.timeline
        if timeline is None or not timeline.task_id or timeline.final:
            self.notify("No running task is open.", severity="warning")
            return
        question = f"Cancel the task {self._titles.get(timeline.task_id) or timeline.task_id}?"
        self.push_screen(ConfirmScreen(question, yes="Cancel task", no="Keep"), self._cancel_if)

    def _cancel_if(self, yes: bool | None) -> None:
        if yes and self.timeline is not None:
            self._cancel(self.timeline)

    @work(group="cancel", exit_on_error=False)
    async def _cancel(self, timeline: Timeline) -> None:
        await self.session.cancel(timeline)

    def action_refresh(self) -> None:
        """Read the task list again."""
        self.refresh_tasks()

    def action_show_card(self) -> None:
        """Show the agent's card."""
        if self.connection is None:
            self.notify("Not connected yet.", severity="warning")
            return
        self.push_screen(CardScreen(self.connection.card))

    def action_show_calls(self) -> None:
        """Show the open task's model and tool calls on a timeline, with their totals."""
        timeline = self.timeline
        entries = timeline.entries if timeline else []
        calls = [e.call for e in entries if e.call is not None]
        self.push_screen(CallsScreen(calls, timeline.trace if timeline else None))

    def action_focus_tasks(self) -> None:
        """Move to the task list."""
        self.query_one(TaskList).focus()

    def action_focus_composer(self) -> None:
        """Move to the message box."""
        self.query_one(Composer).focus()

    def action_focus_conversation(self) -> None:
        """Move to the conversation ([ and ] step through its blocks)."""
        self.query_one(Conversation).focus()

    def action_choose(self, number: int) -> None:
        """Answer the open question with its option `number` (1-9)."""
        question = self.timeline.question if self.timeline else None
        if question is None or not 0 < number <= len(question.options):
            return
        self.send_text(question.options[number - 1])

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette (ctrl+p): every action with its key, then Textual's own."""
        for key, action, label in KEYS:
            method = getattr(self, f"action_{action}")
            yield SystemCommand(label, f"{method.__doc__ or label} ({key})", method)
        yield from super().get_system_commands(screen)


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")

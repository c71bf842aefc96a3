"""`TaskSession`: the terminal UI's conversation with the agent, without a widget in it.

    connect ─► list ─► open (GetTask) or send (SendStreamingMessage) ─► follow
                        (SubscribeToTask until the task is final) ─► Timeline ─► the screen
    every try again (reaching the agent, following a task) waits on one `Backoff`

The TUI's counterpart of the web UI's `useTaskSession`. It reaches the agent (trying again
until it answers), lists the caller's tasks, opens a task, sends a message on the open task
(or starts one), follows the open task's stream until the task is final, and cancels. Each
event is folded into the task's `Timeline`, and the change goes to the screen
(`SessionScreen.show`); so do the link going down and up, and every refusal. The app holds
the widgets and decides what a change looks like; this holds what is said to the agent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Final, Protocol

from a2a.types import Message, StreamResponse, Task

from tiny_harness.errors import AgentCallError, AgentRefusalError, AgentUnreachableError
from tiny_harness.interaction.tui.connection import AgentConnection
from tiny_harness.interaction.tui.timeline import Change, Timeline

__all__ = ["Backoff", "ConnectionFactory", "SessionScreen", "TaskSession", "opener"]

BACKOFF_FIRST: Final = 0.5
BACKOFF_MAX: Final = 8.0

type ConnectionFactory = Callable[[str, str], Awaitable[AgentConnection]]


def opener(token: str = "") -> ConnectionFactory:
    """Opens a connection to an agent (its URL, as a participant), presenting `token` (an
    API key) when given."""

    async def open_connection(url: str, participant: str) -> AgentConnection:
        return await AgentConnection.open(url, participant=participant, token=token)

    return open_connection


class Backoff:
    """How long to wait before the next try: 0.5 s, doubling to 8 s, back to 0.5 s once a
    try gets through."""

    def __init__(self, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.delay = BACKOFF_FIRST
        self._sleep = sleep

    def reset(self) -> None:
        """A try got through: the next wait is the shortest again."""
        self.delay = BACKOFF_FIRST

    async def pause(self) -> None:
        """Wait `delay`, and make the next wait longer."""
        await self._sleep(self.delay)
        self.delay = min(self.delay * 2, BACKOFF_MAX)


class SessionScreen(Protocol):
    """What the session tells the screen."""

    def link_down(self, reason: str, retry_in: float) -> None:
        """The agent cannot be reached; the session tries again in `retry_in` seconds."""

    def link_up(self) -> None:
        """The agent answers again."""

    async def show(self, timeline: Timeline, change: Change) -> None:
        """`change`, an event folded into `timeline`, is to be drawn (if it is open)."""

    def refused(self, error: AgentCallError, *, prefix: str = "") -> None:
        """The agent refused a call (or it failed): say so."""


class TaskSession:
    """One participant's session with one agent."""

    def __init__(
        self, url: str, participant: str, connect: ConnectionFactory, screen: SessionScreen
    ) -> None:
        self.url = url
        self.participant = participant
        self._connect = connect
        self._screen = screen
        self.connection: AgentConnection | None = None
        self.timeline: Timeline | None = None
        """The open task (a new one has no id until the agent answers)."""

    async def connect(self) -> AgentConnection:
        """Reach the agent (read its card), trying again with backoff until it answers."""
        backoff = Backoff()
        while self.connection is None:
            try:
                self.connection = await self._connect(self.url, self.participant)
            except AgentCallError as error:
                self._screen.link_down(f"{self.url}: {error.message}", backoff.delay)
                await backoff.pause()
        self._screen.link_up()
        return self.connection

    def require(self) -> AgentConnection:
        """The connection; `AgentUnreachableError` before the agent first answered."""
        if self.connection is None:
            raise AgentUnreachableError(f"not connected to {self.url} yet")
        return self.connection

    async def close(self) -> None:
        """Close the connection."""
        if self.connection is not None:
            await self.connection.aclose()

    async def list_tasks(self) -> list[Task] | None:
        """The caller's tasks; None when the agent cannot be reached (the open task's stream
        shows that) or refused (said)."""
        try:
            return await self.require().list_tasks()
        except AgentUnreachableError:
            return None
        except AgentCallError as error:
            self._screen.refused(error)
            return None

    async def apply(self, timeline: Timeline, event: StreamResponse) -> None:
        """Fold `event` into `timeline` and hand the change to the screen."""
        change = timeline.apply(event)
        if not change.empty:
            await self._screen.show(timeline, change)

    async def reopen(self, timeline: Timeline) -> bool:
        """Read the task (GetTask) into `timeline`, then follow it; False when the agent
        refused it (said), so nothing is open."""
        try:
            task = await self.require().get_task(timeline.task_id)
        except AgentUnreachableError:
            pass  # following tries again until the agent answers
        except AgentCallError as error:
            self._screen.refused(error, prefix="Cannot open the task")
            return False
        else:
            await self.apply(timeline, StreamResponse(task=task))
        await self.follow(timeline)
        return True

    async def send(self, timeline: Timeline, message: Message) -> AgentCallError | None:
        """Send `message`, folding what the agent streams back into `timeline`; the error
        that kept it from being sent or refused it. A stream the network cut once the task
        began is not one: the caller follows the task."""
        try:
            async for event in self.require().send(message):
                await self.apply(timeline, event)
        except AgentUnreachableError as error:
            return None if timeline.task_id else error
        except AgentCallError as error:
            return error
        return None

    async def follow(self, timeline: Timeline) -> None:
        """SubscribeToTask until the task is final (or no longer open), reconnecting with
        backoff; a refused subscription reads the task once more (it may have ended)."""
        connection = self.require()
        backoff = Backoff()
        while not timeline.final and self.timeline is timeline:
            try:
                async for event in connection.subscribe(timeline.task_id):
                    self._screen.link_up()
                    backoff.reset()
                    await self.apply(timeline, event)
            except AgentUnreachableError as error:
                self._screen.link_down(error.message, backoff.delay)
                await backoff.pause()
            except AgentRefusalError as error:
                self._screen.link_up()
                await self._settle(timeline, error)
                return

    async def _settle(self, timeline: Timeline, refusal: AgentRefusalError) -> None:
        try:
            task = await self.require().get_task(timeline.task_id)
        except AgentCallError:
            self._screen.refused(refusal)
            return
        await self.apply(timeline, StreamResponse(task=task))
        if not timeline.final:
            self._screen.refused(refusal)

    async def cancel(self, timeline: Timeline) -> None:
        """Cancel the task; the task as the agent answers goes into `timeline`."""
        try:
            task = await self.require().cancel(timeline.task_id)
        except AgentCallError as error:
            self._screen.refused(error, prefix="Not canceled")
            return
        await self.apply(timeline, StreamResponse(task=task))

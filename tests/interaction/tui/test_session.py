"""The TUI's session with an agent, without widgets: a real harness on 127.0.0.1 and a
screen that writes down what it is told."""

from __future__ import annotations

from pathlib import Path

import pytest
from a2a.helpers import new_text_message
from a2a.types import Role
from temporalio.client import Client

from tests.interaction.tui.test_app import PLAN_THEN_ANSWER
from tests.support import running_harness
from tiny_harness.errors import AgentCallError, AgentUnreachableError
from tiny_harness.interaction.tui.session import BACKOFF_MAX, Backoff, TaskSession, opener
from tiny_harness.interaction.tui.timeline import Change, Timeline
from tiny_harness.service.http import free_port


class NotedScreen:
    """Writes down what the session tells the screen."""

    def __init__(self) -> None:
        self.told: list[str] = []
        self.waits: list[float] = []
        self.changes = 0

    def link_down(self, reason: str, retry_in: float) -> None:
        self.told.append("down")
        self.waits.append(retry_in)

    def link_up(self) -> None:
        self.told.append("up")

    async def show(self, timeline: Timeline, change: Change) -> None:
        self.changes += 1

    def refused(self, error: AgentCallError, *, prefix: str = "") -> None:
        self.told.append(f"refused {prefix}")


async def test_backoff_doubles_to_its_cap_and_starts_again_once_a_try_gets_through() -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    backoff = Backoff(sleep)
    for _ in range(7):
        await backoff.pause()
    assert slept == [0.5, 1.0, 2.0, 4.0, 8.0, BACKOFF_MAX, BACKOFF_MAX]
    backoff.reset()
    await backoff.pause()
    assert slept[-1] == 0.5


@pytest.mark.timeout(60)
async def test_a_session_sends_follows_the_task_to_its_end_and_lists_it(
    temporal_client: Client, tmp_path: Path
) -> None:
    screen = NotedScreen()
    async with running_harness(temporal_client, tmp_path, PLAN_THEN_ANSWER) as h:
        session = TaskSession(h.url, "alice", opener(), screen)
        await session.connect()
        timeline = session.timeline = Timeline()
        message = new_text_message("What is the answer?", role=Role.ROLE_USER)
        assert await session.send(timeline, message) is None
        await session.follow(timeline)
        listed = await session.list_tasks()
        await session.close()
    assert timeline.state_name == "TASK_STATE_COMPLETED"
    assert screen.told[0] == "up"
    assert "down" not in screen.told
    assert screen.changes > 3
    assert listed is not None
    assert [t.id for t in listed] == [timeline.task_id]


async def test_a_message_to_an_agent_that_cannot_be_reached_comes_back_unsent() -> None:
    screen = NotedScreen()
    url = f"http://127.0.0.1:{free_port()}"
    session = TaskSession(url, "", opener(), screen)
    with pytest.raises(AgentUnreachableError):
        session.require()
    assert await session.list_tasks() is None
    error = await session.send(Timeline(), new_text_message("hello", role=Role.ROLE_USER))
    assert isinstance(error, AgentUnreachableError)
    assert screen.told == []

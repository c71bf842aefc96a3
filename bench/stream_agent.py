"""A plain a2a-sdk agent that answers any message with one long streamed task.

The renderers' benchmarks (`tui_stream.py`, `web_stream.py`) run it in a child process on
127.0.0.1: `--events` events at `--rate` a second, a progress message and an answer chunk
(appended to one artifact, the way a model's answer streams) in turn, then COMPLETED. Each
event carries the wall-clock time it was emitted (`emitted_ns` in its metadata). With
`--ui DIR` it also serves that web UI build at /ui, as `tiny-harness serve` does.

    .venv/bin/python bench/stream_agent.py PORT [--events N] [--rate R] [--ui DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    TaskState,
)
from starlette.applications import Starlette
from starlette.routing import BaseRoute

from tiny_harness.service.http import HttpServer
from tiny_harness.service.web_ui import WebUi


class Streamer(AgentExecutor):
    """Streams `events` events, `rate` a second, for every message."""

    def __init__(self, events: int, rate: float) -> None:
        self.events = events
        self.gap = 1.0 / rate

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        task = new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        for i in range(self.events // 2):
            message = updater.new_agent_message([new_text_part(f"step {i} done")])
            message.metadata.update({"emitted_ns": time.time_ns()})
            await updater.update_status(TaskState.TASK_STATE_WORKING, message)
            await asyncio.sleep(self.gap)
            chunk = Part(text=f"word{i} " + ("\n\n" if i % 40 == 39 else ""))
            await updater.add_artifact(
                [chunk],
                artifact_id="answer",
                name="answer",
                append=i > 0,
                metadata={"emitted_ns": time.time_ns()},
            )
            await asyncio.sleep(self.gap)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def routes(port: int, events: int, rate: float, ui: Path | None) -> list[BaseRoute]:
    """The agent's routes (the web UI's first, as in `create_app`)."""
    url = f"http://127.0.0.1:{port}"
    card = AgentCard(
        name="streamer",
        description="Streams a long answer.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url + "/", protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="stream", name="Stream", description="Streams a long answer.", tags=["bench"]
            )
        ],
    )
    handler = DefaultRequestHandler(
        agent_executor=Streamer(events, rate), task_store=InMemoryTaskStore(), agent_card=card
    )
    web = [] if ui is None else WebUi(ui).routes()
    return [*web, *create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/")]


async def serve(port: int, events: int, rate: float, ui: Path | None) -> None:
    """Serve until killed."""
    app = Starlette(routes=routes(port, events, rate, ui))
    async with HttpServer(app, host="127.0.0.1", port=port) as server:
        await server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("port", type=int)
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=100.0, help="events a second")
    parser.add_argument("--ui", type=Path, help="a web UI build to serve at /ui")
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.events, args.rate, args.ui))


if __name__ == "__main__":
    main()

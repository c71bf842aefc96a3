"""A short A2A client on the official `a2a-sdk`: send a task, follow its stream, answer its
questions.

    python examples/client/client.py "Order team shirts for the offsite, 40 people."
    python examples/client/client.py --url http://127.0.0.1:8080 --as alice "pick a colour"

It reads the agent card, picks the transport the card offers, and sends a streaming
message. Each event is one line: the task's state as it changes, the agent's progress
text, the answer. When the task waits for input (a question), it prints the question and
reads your answer from the terminal, or takes the next `--reply` given on the command line,
and continues the same task. It works against any A2A 1.0 agent, not only tiny-harness.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator

import httpx
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.client.service_parameters import ServiceParametersFactory
from a2a.helpers import new_text_message
from a2a.types import Part, Role, SendMessageRequest, StreamResponse, TaskState


def texts(parts: list[Part]) -> Iterator[str]:
    """The text of each text part."""
    for part in parts:
        if part.HasField("text"):
            yield part.text


def show(event: StreamResponse, last: TaskState | None) -> TaskState | None:
    """Print one event (a state only when it changes from `last`); the task's state if
    the event says it."""
    if event.HasField("task"):
        state = event.task.status.state
        print(f"task {event.task.id}: {TaskState.Name(state)}")
        return state
    if event.HasField("artifact_update"):
        for text in texts(list(event.artifact_update.artifact.parts)):
            print(f"answer: {text}")
        return None
    if event.HasField("status_update"):
        status = event.status_update.status
        for text in texts(list(status.message.parts)):
            print(f"  {text}")
        if status.state != last:
            print(f"state: {TaskState.Name(status.state)}")
        return status.state
    return None


async def converse(url: str, text: str, participant: str, replies: list[str]) -> TaskState:
    """Send `text` to the agent at `url`, follow the task to its end or to a question no
    reply is left for; its last state."""
    parameters = ServiceParametersFactory.create_from({"A2A-Version": "1.0"}, [])
    if participant:
        parameters["X-Participant-Id"] = participant
    context = ClientCallContext(service_parameters=parameters)
    async with httpx.AsyncClient(timeout=httpx.Timeout(30, read=None)) as http:
        config = ClientConfig(streaming=True, httpx_client=http)
        client = await ClientFactory(config).create_from_url(url)
        message = new_text_message(text, role=Role.ROLE_USER)
        while True:
            state: TaskState | None = None
            task_id = ""
            async for event in client.send_message(
                SendMessageRequest(message=message), context=context
            ):
                task_id = event.task.id if event.HasField("task") else task_id
                state = show(event, state) or state
            if state != TaskState.TASK_STATE_INPUT_REQUIRED:
                return state or TaskState.TASK_STATE_UNSPECIFIED
            answer = replies.pop(0) if replies else await asyncio.to_thread(input, "your answer> ")
            print(f"you: {answer}")
            message = new_text_message(answer, task_id=task_id, role=Role.ROLE_USER)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("text", help="the message that starts the task")
    parser.add_argument("--url", default="http://127.0.0.1:8080", help="the agent's base URL")
    parser.add_argument("--as", dest="participant", default="", help="your participant id")
    parser.add_argument(
        "--reply", action="append", default=[], help="an answer to the next question (repeat)"
    )
    args = parser.parse_args()
    state = asyncio.run(converse(args.url, args.text, args.participant, args.reply))
    raise SystemExit(0 if state == TaskState.TASK_STATE_COMPLETED else 1)


if __name__ == "__main__":
    main()

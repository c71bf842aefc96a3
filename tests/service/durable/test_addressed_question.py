"""A question addressed to one participant (`ask_participant` with `participant_id`): it
goes out as a help request on the task's channel, only that participant's reply answers
it, and another participant's message waits behind the answer instead of taking its place."""

from __future__ import annotations

from pathlib import Path

from a2a.types import GetTaskRequest, SendMessageRequest, TaskState
from temporalio.client import Client

from tests.support import (
    as_participant,
    collect,
    llm_requests,
    running_harness,
    send_request,
    states,
    watchers,
    with_task_envelope,
)
from tiny_harness.harness.channels.extension import (
    AGENT_SENDER,
    ChannelMessageData,
    channel_messages_in,
)
from tiny_harness.harness.models.llm import ToolResultItem, UserItem
from tiny_harness.harness.tasks.extension import (
    TaskExtensionData,
)

ASK_BOB = """
turns:
  - tool_calls: [{name: ask_participant,
                  arguments: {question: "Bob, which size?", participant_id: bob}}]
  - when: "^M$"
    text: "Bob says M."
  - text: "Noted."
"""

ALICE = as_participant("alice")
BOB = as_participant("bob")


def started_with_bob(text: str) -> SendMessageRequest:
    """Alice's first message, making Bob a participant (a watcher) of the new task."""
    return with_task_envelope(send_request(text), TaskExtensionData(participants=watchers("bob")))


async def test_only_the_addressee_answers_and_others_wait_behind_the_answer(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ASK_BOB) as h:
        client = await h.client()
        first = await collect(client.send_message(started_with_bob("order a shirt"), context=ALICE))
        task_id = first[0].task.id
        asked = first[-1].status_update.status.message
        # Alice's own answer does not take Bob's question: the task still waits for him.
        alice_says = await collect(
            client.send_message(send_request("L", task_id=task_id), context=ALICE)
        )
        waiting = await client.get_task(GetTaskRequest(id=task_id), context=ALICE)
        bob_says = await collect(
            client.send_message(send_request("M", task_id=task_id), context=BOB)
        )
        await temporal_client.get_workflow_handle(task_id).result()
        requests = await llm_requests(temporal_client, task_id)

    assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert channel_messages_in(asked) == [
        ChannelMessageData(
            channel_id=task_id,
            sender=AGENT_SENDER,
            text="Bob, which size?",
            kind="help_request",
            to="bob",
        )
    ]
    assert [e.task.status.state for e in alice_says] == [TaskState.TASK_STATE_INPUT_REQUIRED]
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert states(bob_says)[-1] == "TASK_STATE_COMPLETED"
    # The question's answer is Bob's; Alice's message came in after it, as a message.
    second = requests[1].input
    answers = [i for i in second if isinstance(i, UserItem) and i.reply_to]
    assert [a.text for a in answers] == ["M"]
    assert [i.text for i in second if isinstance(i, UserItem)][-2:] == ["M", "L"]
    assert not any(isinstance(i, ToolResultItem) and i.is_error for i in second)


async def test_a_question_for_someone_not_on_the_task_is_an_error_result(
    temporal_client: Client, tmp_path: Path
) -> None:
    script = """
turns:
  - tool_calls: [{name: ask_participant, arguments: {question: "Carol?", participant_id: carol}}]
  - text: "I will ask someone else."
"""
    async with running_harness(temporal_client, tmp_path, script) as h:
        client = await h.client()
        events = await collect(client.send_message(send_request("go"), context=ALICE))
        task_id = events[0].task.id
        await temporal_client.get_workflow_handle(task_id).result()
        requests = await llm_requests(temporal_client, task_id)

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    refusal = [i for i in requests[1].input if isinstance(i, ToolResultItem)]
    assert refusal[0].is_error
    assert "carol is not a participant of this task (participants: alice)" in refusal[0].text

"""A task's workflow state is bounded whatever its conversation.

The conversation is the store's: a run that rolls over (continue-as-new) carries the task
without its history, how far its log, history and conversation go, and where the model's
part of the conversation begins, so its carried input stays small and inline however long
the conversation grew, and the model still reads every turn of it after the roll-over (from
the store), the reply taken just before a roll-over included (it waited, drained from the
mailbox, for the next model call, and a roll-over then lost it). A conversation of 20 MB,
compacted as it grows, is `test_large_payloads`'s. Real Temporal, a real harness on
127.0.0.1, the real a2a-sdk client.
"""

from __future__ import annotations

from pathlib import Path

from temporalio.api.common.v1 import Payload
from temporalio.client import Client

from tests.support import collect, llm_requests, running_harness, send_request, states
from tiny_harness.harness.models.llm import UserItem

REPLIES = 12
REPLY_CHARS = 1_000
"""Small enough that the compaction trigger folds none of it: the model reads every part."""

ASKS_TWELVE_TIMES = (
    "turns:\n"
    + "".join(
        f'  - tool_calls: [{{name: ask_participant, arguments: {{question: "Part {n}?"}}}}]\n'
        for n in range(REPLIES)
    )
    + '  - text: "All parts read."\n'
)

CARRIED_MAX_BYTES = 8 * 1024
"""What a run may carry into the next, whatever the conversation."""


async def carried_input(temporal: Client, task_id: str) -> Payload:
    """The input its newest run started with: the start and the run carried into it."""
    history = await temporal.get_workflow_handle(task_id).fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    assert started.continued_execution_run_id, "the task never rolled over"
    (payload,) = started.input.payloads
    return payload


async def test_a_rolled_over_run_carries_no_conversation_and_the_model_reads_every_reply(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(
        temporal_client, tmp_path, ASKS_TWELVE_TIMES, history_event_bound=100
    ) as harness:
        client = await harness.client()
        first = await collect(client.send_message(send_request("Read twelve parts")))
        task_id = first[0].task.id
        for n in range(REPLIES):
            request = send_request(f"part {n}: " + "y" * REPLY_CHARS, task_id=task_id)
            request.configuration.history_length = 1
            reply = await collect(client.send_message(request))
        assert states(reply)[-1] == "TASK_STATE_COMPLETED"
        await harness.temporal.get_workflow_handle(task_id).result()

        carried = await carried_input(harness.temporal, task_id)
        requests = await llm_requests(harness.temporal, task_id)

    assert not carried.external_payloads, "the carried run went to the store by reference"
    assert carried.ByteSize() < CARRIED_MAX_BYTES, f"carried {carried.ByteSize()} bytes"
    read = [i.text.split(":")[0] for i in requests[-1].input if isinstance(i, UserItem)]
    assert [f"part {n}" for n in range(REPLIES)] == [r for r in read if r.startswith("part ")]

"""The recorded streams the renderers' reducers replay are what a real harness streams.

Each conversation of `streams.CONVERSATIONS` runs against a real harness (the SDK client,
JSON-RPC, 127.0.0.1); its events, normalised, must equal the committed file's. When the
server's stream changes on purpose, `TINY_HARNESS_RECORD_STREAMS=1` rewrites the events
(the expected `view` stays as written: both renderers' tests then say what changed).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from google.protobuf.json_format import MessageToDict
from temporalio.client import Client

from tests.interaction.streams import CONVERSATIONS, STREAMS, Json, load, normalised, save
from tests.support import collect, running_harness, send_request, states

RECORD = os.environ.get("TINY_HARNESS_RECORD_STREAMS") == "1"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
async def test_the_recorded_stream_is_what_the_harness_streams(
    temporal_client: Client, tmp_path: Path, name: str
) -> None:
    conversation = CONVERSATIONS[name]
    events: list[Json] = []
    async with running_harness(temporal_client, tmp_path, conversation.script) as h:
        client = await h.client()
        first, *replies = conversation.sent
        sent = await collect(client.send_message(send_request(first)))
        task = sent[0].task
        events.extend(MessageToDict(e) for e in sent)
        for text in replies:
            assert states(sent)[-1] == "TASK_STATE_INPUT_REQUIRED"
            request = send_request(text, task_id=task.id, context_id=task.context_id)
            sent = await collect(client.send_message(request))
            events.extend(MessageToDict(e) for e in sent)
    streamed = normalised(events)
    if RECORD:
        known = (STREAMS / f"{name}.json").exists()
        save(name, streamed, load(name)["view"] if known else None)
    assert streamed == load(name)["events"]

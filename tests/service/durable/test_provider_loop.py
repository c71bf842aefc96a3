"""The loop on a provider adapter: a real Chat Completions client against the local stub
that replays a recorded answer, on the real Temporal dev server."""

from __future__ import annotations

from pathlib import Path

from a2a.helpers import get_artifact_text
from temporalio.client import Client

from tests.harness.models.provider_stub import ProviderStub
from tests.support import collect, running_harness, send_request, states
from tiny_harness.harness.models.openai_chat import OpenAIChatLLM


async def test_task_completes_with_the_providers_recorded_answer(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with ProviderStub() as stub:
        llm = OpenAIChatLLM(model="llama3", base_url=stub.base_url("chat_text") + "/v1")
        try:
            async with running_harness(temporal_client, tmp_path, "turns: []", llm=llm) as h:
                events = await collect((await h.client()).send_message(send_request("2+3?")))
        finally:
            await llm.aclose()
        sent = stub.last
    assert states(events)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    answer = next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
    assert get_artifact_text(answer) == "Two plus three is five."
    messages = sent.body["messages"]
    assert isinstance(messages, list)
    first = messages[0]
    assert isinstance(first, dict)
    assert first["role"] == "system"
    assert str(first["content"]).startswith("## role\nYou are tiny-harness")

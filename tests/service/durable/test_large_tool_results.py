"""A tool result of any size: the tool runs once, the model is shown a bounded beginning with
a note saying how to read on, the whole result stays in the store, and Temporal's history
never carries it.

Real Temporal, a real harness on 127.0.0.1, a real MCP server (the `library` fixture
plugin's `shelf`, over stdio) answering with a 3 MB book.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from a2a.helpers import get_artifact_text
from temporalio.client import Client

from tests.fixtures.plugins.library.shelf import book
from tests.support import (
    collect,
    history_payloads,
    llm_requests,
    running_harness,
    send_request,
    states,
    tool_output,
)
from tiny_harness.harness.models.llm import ToolResultItem
from tiny_harness.harness.persistence.records import (
    RecordKind,
    ToolResultRecord,
    tool_result_key,
)

LIBRARY = Path(__file__).parents[2] / "fixtures" / "plugins" / "library"
BOOK_CHARS = 3_000_000
LIMIT = 16_000

READS_A_BOOK = f"""
turns:
  - tool_calls: [{{name: library.shelf.read_book, arguments: {{chars: {BOOK_CHARS}}}}}]
  - tool_calls: [{{name: read_tool_result, arguments: {{call_id: call-0-0, offset: 15800}}}}]
  - tool_calls: [{{name: read_tool_result, arguments: {{call_id: call-0-0, offset: 4000000}}}}]
  - text: "Read the book."
"""


def _results(request_input: tuple[object, ...]) -> dict[str, ToolResultItem]:
    return {i.call_id: i for i in request_input if isinstance(i, ToolResultItem)}


async def test_a_3_mb_tool_result_completes_its_task_and_the_model_reads_it_in_ranges(
    temporal_client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The plugin starts its server with `python`: this interpreter, which has the MCP SDK.
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    async with running_harness(
        temporal_client, tmp_path, READS_A_BOOK, plugins=[LIBRARY]
    ) as harness:
        events = await collect((await harness.client()).send_message(send_request("read")))
        task_id = events[0].task.id
        requests = await llm_requests(harness.temporal, task_id)
        stored = await harness.store.record(
            RecordKind.TOOL_RESULT, tool_result_key(task_id, "call-0-0")
        )
        payloads = await history_payloads(harness.temporal, task_id)
    calls = (tmp_path / "data" / "plugins" / "library" / "calls.log").read_text()

    assert states(events)[-2:] == ["artifact", "TASK_STATE_COMPLETED"]
    answer = next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
    assert get_artifact_text(answer) == "Read the book."
    assert calls == f"read {BOOK_CHARS}\n", "the tool ran more than once"

    # The whole result is in the store, as the tool gave it.
    assert isinstance(stored, ToolResultRecord)
    assert json.loads(stored.text) == {"result": book(BOOK_CHARS)}

    # The model was shown its beginning, then each range it asked for, each bounded.
    shown = _results(requests[1].input)["call-0-0"].text
    assert len(shown) <= LIMIT + 200  # the limit, and the untrusted-data wrapper
    output = tool_output(shown)
    assert stored.text.startswith(output.split("\n[cut: ")[0])
    total = len(stored.text)
    assert output.endswith(
        f"[cut: 15,800 of {total:,} characters shown, {total - 15_800:,} left out. The whole "
        "result is stored: call read_tool_result with call_id 'call-0-0' and offset 15800 to "
        "read on.]"
    )
    read = tool_output(_results(requests[2].input)["call-1-0"].text)
    assert read == (
        stored.text[15_800:31_600]
        + f"\n[characters 15,800..31,600 of {total:,}; call again with offset 31600 to read on.]"
    )
    past = _results(requests[3].input)["call-2-0"]
    assert past.is_error
    assert f"offset 4000000 is past the end ({total} characters)" in past.text

    # Temporal never carried the book, not even by reference.
    assert max(p.ByteSize() for p in payloads) < LIMIT * 3
    assert not any(p.external_payloads for p in payloads)

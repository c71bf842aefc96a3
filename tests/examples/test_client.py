"""The clients of `examples/client/`, run as their README says against a real harness on
the folder's own script: the a2a-sdk Python client answers a question from `--reply`, and
the curl walk-through goes step by step from the agent card to ListTasks."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from temporalio.client import Client

from tests.support import running_harness

pytestmark = pytest.mark.timeout(90)

EXAMPLE = Path(__file__).parents[2] / "examples" / "client"
SCRIPT = (EXAMPLE / "script.yaml").read_text()


async def run(*command: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run `command`; its exit status and what it printed (stdout and stderr)."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    output, _ = await process.communicate()
    return await process.wait(), output.decode()


async def test_the_python_client_follows_a_task_and_answers_its_question(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, SCRIPT) as h:
        client = (sys.executable, str(EXAMPLE / "client.py"), "--url", h.url, "--as", "alice")
        status, asked = await run(*client, "pick a colour", "--reply", "blue")
        hello_status, hello = await run(*client, "say hello")

    assert status == 0, asked
    lines = asked.splitlines()
    assert "  Which colour?" in lines
    assert "state: TASK_STATE_INPUT_REQUIRED" in lines
    assert lines.index("you: blue") > lines.index("state: TASK_STATE_INPUT_REQUIRED")
    assert lines[-2:] == ["answer: Noted, thank you.", "state: TASK_STATE_COMPLETED"]
    assert hello_status == 0, hello
    assert "answer: Hello from the **scripted** model." in hello.splitlines()


async def test_the_curl_walk_through_runs_from_the_card_to_the_task_list(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, SCRIPT) as h:
        status, output = await run("sh", str(EXAMPLE / "curl.sh"), env={"BASE": h.url})

    assert status == 0, output
    lines = output.splitlines()
    assert lines[1] == "tiny-harness"
    assert lines[3].endswith("is TASK_STATE_INPUT_REQUIRED")
    assert lines[4] == "it asks: Which colour?"
    assert lines[6] == "TASK_STATE_INPUT_REQUIRED"
    assert "answer: Noted, thank you." in lines
    assert lines[-3:-1] == [
        "statusUpdate TASK_STATE_COMPLETED",
        "== 5. ListTasks: the tasks you may see, newest first",
    ]
    assert lines[-1] == "TASK_STATE_COMPLETED"

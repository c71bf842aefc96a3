"""The quickstart page's shell commands, run as it shows them on a fresh data directory:
`make serve` (with the port, the data directory and the embedded Temporal's port moved
aside, and the web build left out), the curl call against it, and `tasks list` on what it
stored. The page's other commands are named here with where they are tested; a command
the page gains that this test does not know fails it."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

import httpx
import pytest

from tiny_harness.service.http import free_port

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).parents[2]
PAGE = ROOT / "docs" / "quickstart.md"
ELSEWHERE = {
    ".venv/bin/tiny-harness tui": "interactive; the TUI's tests drive it (tests/interaction/tui)",
    "make demo": "the same variables as tests/examples/test_demo_plugin.py",
    "make test": "the command that runs this test",
}
STARTUP_SECONDS = 90


def commands() -> list[str]:
    """Each command of the page's `sh` blocks, continuation lines joined."""
    blocks = re.findall(r"```sh\n(.*?)```", PAGE.read_text(), flags=re.DOTALL)
    return [c.strip() for block in blocks for c in re.split(r"\n(?=\S)", block) if c.strip()]


async def run(command: str, env: dict[str, str]) -> str:
    shell = await asyncio.create_subprocess_shell(
        command, cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    output, _ = await shell.communicate()
    assert shell.returncode == 0, output.decode()
    return output.decode()


async def healthy(url: str, serve: asyncio.subprocess.Process) -> None:
    async with httpx.AsyncClient(timeout=2) as http:
        for _ in range(STARTUP_SECONDS * 10):
            assert serve.returncode is None, "make serve exited"
            try:
                if (await http.get(f"{url}/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError("make serve did not come up")


async def test_every_command_of_the_quickstart_runs_on_a_fresh_data_directory(
    tmp_path: Path,
) -> None:
    shown = commands()
    unknown = [
        c
        for c in shown
        if not c.startswith(("make serve", "curl ", ".venv/bin/tiny-harness tasks list"))
        and not c.startswith(tuple(ELSEWHERE))
    ]
    assert unknown == []
    (serve_line,) = [c for c in shown if c.startswith("make serve")]
    (curl,) = [c for c in shown if c.startswith("curl ")]
    (tasks_list,) = [c for c in shown if c.startswith(".venv/bin/tiny-harness tasks list")]

    port, data = free_port(), tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINY_HARNESS_")}
    env["TINY_HARNESS_TEMPORAL__EMBEDDED_PORT"] = str(free_port())
    # NPM= leaves the web build out (the browser tests build and check it).
    serve = await asyncio.create_subprocess_shell(
        f'{serve_line} NPM= ARGS="--port {port} --data-dir {data}"',
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        await healthy(url, serve)
        streamed = await run(curl.replace("http://127.0.0.1:8080", url), env)
        listed = await run(f"{tasks_list} --data-dir {data}", env)
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        await asyncio.wait_for(serve.wait(), timeout=60)

    events = [line for line in streamed.splitlines() if line.startswith("data:")]
    assert '"TASK_STATE_SUBMITTED"' in events[0]
    assert '"TASK_STATE_COMPLETED"' in events[-1]
    assert "built-in demo script" in streamed
    assert "completed" in listed.lower()
    assert "1 task" in listed

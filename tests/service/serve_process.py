"""Running `tiny-harness serve`, `server` or `worker` as a real subprocess, as users run it."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import httpx

STARTUP_SECONDS = 30

STARTED_LINE = "web ui:"
"""The last line `serve` logs while starting (after "a2a: listening on ...")."""

TEST_PUSH_KEY = "dGVzdC1wdXNoLWtleS0zMi1ieXRlcy1sb25nLW9rLi4="
"""One push key (32 bytes, base64) for every process a test starts against an external
Temporal, where each process must be given the same key, as in a real deployment (with
embedded Temporal the process generates its own, as `make serve` on a fresh machine does)."""


class ServeProcess:
    """One `python -m tiny_harness serve|server|worker` child, its log lines, and a clean stop."""

    def __init__(
        self,
        data_dir: Path,
        port: int,
        env: dict[str, str],
        *,
        command: str = "serve",
        args: tuple[str, ...] = (),
    ) -> None:
        """`args`: more of the command's flags (`--config FILE`)."""
        self.command = command
        self.args = args
        self.data_dir = data_dir
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.env = env
        self._env = {k: v for k, v in os.environ.items() if not k.startswith("TINY_HARNESS_")}
        if "TINY_HARNESS_TEMPORAL__ADDRESS" in env:
            self._env["TINY_HARNESS_PUSH_KEY"] = TEST_PUSH_KEY
        self._env |= env
        self.lines: list[str] = []
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tiny_harness",
            self.command,
            "--data-dir",
            str(self.data_dir),
            *(["--port", str(self.port)] if self.command in ("serve", "server") else []),
            *self.args,
            env=self._env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.create_task(self._read())
        async with httpx.AsyncClient(timeout=2) as http:
            for _ in range(STARTUP_SECONDS * 10):
                if self._proc.returncode is not None:
                    raise RuntimeError("serve exited early:\n" + "\n".join(self.lines))
                if await self._ready(http):
                    return
                await asyncio.sleep(0.1)
        raise RuntimeError("serve did not come up:\n" + "\n".join(self.lines))

    @property
    def pid(self) -> int:
        """The child's process id (once started)."""
        if self._proc is None:
            raise RuntimeError(f"{self.command} is not started")
        return self._proc.pid

    async def kill(self) -> None:
        """SIGKILL: the process gets no chance to clean up, as when a machine dies."""
        if self._proc is None or self._proc.returncode is not None:
            return
        self._proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(self._proc.wait(), timeout=30)
        if self._reader is not None:
            await self._reader

    async def _ready(self, http: httpx.AsyncClient) -> bool:
        """Whether the process finished starting: a worker once it says so; `serve` once it
        answers /healthz and has logged its last startup line ("web ui: ..."), so a test
        that stops it at once still finds every startup line in its log (a stop that lands
        between the port opening and that line would cut it off)."""
        if self.command == "worker":
            return any("worker: task queue" in line for line in self.lines)
        if not any(STARTED_LINE in line for line in self.lines):
            return False
        try:
            return (await http.get(self.url + "/healthz")).status_code == 200
        except httpx.TransportError:
            return False

    async def stop(self) -> int:
        """SIGTERM, then the exit status."""
        if self._proc is None:
            return 0
        if self._proc.returncode is not None:
            return self._proc.returncode
        self._proc.send_signal(signal.SIGTERM)
        status = await asyncio.wait_for(self._proc.wait(), timeout=30)
        if self._reader is not None:
            await self._reader
        return status

    async def _read(self) -> None:
        if self._proc is None or self._proc.stderr is None:
            return
        async for raw in self._proc.stderr:
            self.lines.append(raw.decode(errors="replace").rstrip())

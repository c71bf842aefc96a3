"""`DevServer`: the embedded `temporal server start-dev` process, which never outlives us.

`serve` killed with SIGKILL (an OOM kill, a closed terminal) cannot stop its child, so the
child is started with a parent-death signal (Linux `PR_SET_PDEATHSIG`): the kernel sends it
SIGTERM when `serve` dies, however it dies. A dev server an earlier process left running on
the same database file (one started before this, or on a system without the signal) is
found by its command line and stopped before a new one starts: two servers on one file
would corrupt it, and a second one fails to bind the port the first one holds. A port that
something else holds is a configuration error naming the port.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from tiny_harness.errors import ConfigError, TemporalUnavailableError

logger = logging.getLogger(__name__)

PORT_VARIABLE = "TINY_HARNESS_TEMPORAL__EMBEDDED_PORT"
STARTUP_SECONDS = 30
STOP_SECONDS = 10
_PR_SET_PDEATHSIG = 1
# Looked up before any fork: the child may only make the one system call.
_prctl: Callable[..., int] | None = (
    ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None
)


def _dies_with(parent: int) -> Callable[[], None]:
    """What the child runs between fork and exec: ask for SIGTERM when the parent dies,
    then leave at once if it already has (the signal would never come)."""

    def arm() -> None:
        if _prctl is not None:
            _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:
            os._exit(1)

    return arm


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether nothing listens on `host:port` (a probe bind)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return False
            raise
    return True


def servers_on(database: Path) -> list[int]:
    """The pids of the dev servers whose database is `database` (from /proc)."""
    wanted = database.resolve()
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if entry.name.isdigit() and _uses(entry, wanted):
            found.append(int(entry.name))
    return found


def _uses(process: Path, database: Path) -> bool:
    try:
        args = (process / "cmdline").read_bytes().split(b"\0")
        cwd = Path(os.readlink(process / "cwd"))
    except OSError:  # gone, or not ours to read
        return False
    words = [a.decode(errors="replace") for a in args]
    if "start-dev" not in words or "--db-filename" not in words[:-1]:
        return False
    given = Path(words[words.index("--db-filename") + 1])
    return (given if given.is_absolute() else cwd / given).resolve() == database


async def stop_pid(pid: int) -> None:
    """SIGTERM `pid`, then SIGKILL if it is still there after `STOP_SECONDS`."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        for _ in range(STOP_SECONDS * 10):
            await asyncio.sleep(0.1)
            os.kill(pid, 0)
        os.kill(pid, signal.SIGKILL)


class DevServer:
    """One `temporal server start-dev` child; build it with `start`, end it with `stop`."""

    def __init__(self, process: asyncio.subprocess.Process, port: int, log: Path) -> None:
        self.process = process
        self.port = port
        self.log = log
        """Where the server writes what it says (errors only, at the log level we give)."""

    @classmethod
    async def start(cls, cli: Path, database: Path, port: int, args: Sequence[str]) -> DevServer:
        """Stop any dev server left on `database`, check `port` is free, start a new one
        (`args`: the rest of its command line) and wait until it takes connections. What
        it says goes to `temporal.log` beside the database."""
        database = await asyncio.to_thread(database.resolve)
        for stale in await asyncio.to_thread(servers_on, database):
            logger.warning(
                "temporal: stopping a dev server left running on %s (pid %d)", database, stale
            )
            await stop_pid(stale)
        if not port_is_free(port):
            raise ConfigError(
                f"port {port} of the embedded Temporal server is in use by another program: "
                f"stop it, or set {PORT_VARIABLE} to another port (0 picks a free one)",
                variable=PORT_VARIABLE,
            )
        command = [str(cli), "server", "start-dev", "--port", str(port)]
        command += ["--db-filename", str(database), *args]
        log = database.with_suffix(".log")
        with log.open("ab") as output:
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                preexec_fn=_dies_with(os.getpid()),
            )
        server = cls(process, port, log)
        await server._listening()
        return server

    async def _listening(self) -> None:
        for _ in range(STARTUP_SECONDS * 10):
            if self.process.returncode is not None:
                said = await asyncio.to_thread(self.log.read_bytes)
                text = " ".join(said.decode(errors="replace").split())[-400:]
                raise TemporalUnavailableError(
                    f"the embedded Temporal server exited ({self.process.returncode}): {text}"
                )
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                return
            await asyncio.sleep(0.1)
        await self.stop()
        raise TemporalUnavailableError(
            f"the embedded Temporal server did not listen on port {self.port} "
            f"in {STARTUP_SECONDS} s"
        )

    async def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after `STOP_SECONDS`) and reap it."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), STOP_SECONDS)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()

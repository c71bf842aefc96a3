"""The `tiny-harness` command.

Run with: `tiny-harness serve [--config FILE] [--host H] [--port P] [--data-dir D]`
      or: `tiny-harness worker [--config FILE] [--data-dir D]` (worker only, remote Temporal)
      or: `tiny-harness server [--config FILE] [--host H] [--port P] [--data-dir D]` (A2A
          server only, remote Temporal: its tasks run on `worker` processes)
      or: `tiny-harness tui [--url URL] [--as NAME]` (the terminal UI of a running server)
      or: `tiny-harness tasks list|show|purge ...` (the store's tasks, for an operator)

Exit status: 0 after a clean shutdown, 2 for a configuration error (the message names the
variable or key), 1 when a component cannot start.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Coroutine, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tiny_harness import __version__
from tiny_harness.errors import ConfigError, ScriptError, TinyHarnessError
from tiny_harness.interaction.tui import DEFAULT_URL
from tiny_harness.interaction.tui.keys import keys_help

if TYPE_CHECKING:
    from tiny_harness.config import Settings

TOKEN_VARIABLE = "A2A_TOKEN"  # noqa: S105 - the name of a variable
"""The `tui`'s API key when `--token` is not given (not a TINY_HARNESS_ variable: those are
the server's settings)."""

A2A_SDK_TRACING = "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"
"""The A2A SDK's switch for its own spans (a2a.utils.telemetry)."""
EXIT_CONFIG = 2
EXIT_FAILURE = 1

logger = logging.getLogger("tiny_harness")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tiny-harness", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tiny-harness {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_cmd = commands.add_parser("serve", help="A2A server + worker (+ embedded Temporal)")
    worker_cmd = commands.add_parser("worker", help="worker only, against a Temporal address")
    server_cmd = commands.add_parser(
        "server", help="A2A server only, against a Temporal address (tasks run on workers)"
    )
    for command in (serve_cmd, worker_cmd, server_cmd):
        command.add_argument("--config", type=Path, help="TOML configuration file")
        command.add_argument("--data-dir", type=Path, help="where state lives (.tiny-harness)")
    _tasks_parser(commands)
    keys_cmd = commands.add_parser("keys", help="API keys for [auth] mode api_key")
    key_actions = keys_cmd.add_subparsers(dest="action", required=True)
    new_key_cmd = key_actions.add_parser(
        "new", help="print a fresh key once, and the configuration that accepts it"
    )
    new_key_cmd.add_argument("--participant", required=True, help="who the key authenticates")
    for command in (serve_cmd, server_cmd):
        command.add_argument("--host", help="address to bind (127.0.0.1)")
        command.add_argument("--port", type=int, help="port to bind (8080)")
    tui_cmd = commands.add_parser(
        "tui",
        help="the terminal UI of a running server (or of any A2A agent)",
        description="A full-screen client of an A2A agent: your tasks, their conversations.",
        epilog=keys_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    tui_cmd.add_argument("--url", default=DEFAULT_URL, help=f"the agent's URL ({DEFAULT_URL})")
    tui_cmd.add_argument(
        "--as",
        dest="participant",
        default="",
        metavar="NAME",
        help="your participant id, sent as X-Participant-Id",
    )
    tui_cmd.add_argument(
        "--token",
        default=os.environ.get(TOKEN_VARIABLE, ""),
        metavar="KEY",
        help=f"the agent's API key for you, sent as a bearer token (or ${TOKEN_VARIABLE})",
    )
    return parser


def _tasks_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tasks_cmd = commands.add_parser("tasks", help="the store's tasks: list, show, purge")
    actions = tasks_cmd.add_subparsers(dest="action", required=True)
    list_cmd = actions.add_parser("list", help="one line a task, newest change first")
    list_cmd.add_argument("--state", help="only tasks in this state (input-required, ...)")
    list_cmd.add_argument("--context", help="only tasks of this context id")
    list_cmd.add_argument("--limit", type=int, default=20, help="how many to list (20)")
    show_cmd = actions.add_parser("show", help="one task with its history, as JSON")
    show_cmd.add_argument("task_id", metavar="TASK_ID")
    purge_cmd = actions.add_parser(
        "purge", help="end and delete the task's workflows, then delete it from the store"
    )
    purge_cmd.add_argument("task_id", metavar="TASK_ID")
    for command in (list_cmd, show_cmd, purge_cmd):
        command.add_argument("--config", type=Path, help="TOML configuration file")
        command.add_argument("--data-dir", type=Path, help="where state lives (.tiny-harness)")


def _tasks(settings: Settings, args: argparse.Namespace) -> None:
    """Print what `tiny-harness tasks list` or `show` reads, or what `purge` deleted."""
    from tiny_harness.service import task_admin

    if args.action == "purge":
        purged = asyncio.run(task_admin.purge(settings, args.task_id))
        sys.stdout.write("".join(f"{line}\n" for line in purged))
        return
    if args.action == "show":
        sys.stdout.write(asyncio.run(task_admin.show_json(settings, args.task_id)) + "\n")
        return
    state = task_admin.parse_state(args.state) if args.state else None
    lines = task_admin.list_lines(settings, state=state, context_id=args.context, limit=args.limit)
    sys.stdout.write("".join(f"{line}\n" for line in asyncio.run(lines)))


def _tui(args: argparse.Namespace) -> int:
    """The terminal UI; its log lines go to Textual's devtools, never over the screen."""
    from textual.logging import TextualHandler

    from tiny_harness.interaction.tui.app import TinyHarnessApp

    logging.basicConfig(level=logging.WARNING, handlers=[TextualHandler()], force=True)
    TinyHarnessApp(args.url, participant=args.participant, token=args.token).run()
    return 0


def _settings(args: argparse.Namespace) -> Settings:
    # Imported here, as every subcommand's own modules are: `--help` and `tui` need none.
    from tiny_harness.config import load_settings

    overrides: dict[str, object] = {"data_dir": args.data_dir}
    if args.command in ("serve", "server"):
        overrides |= {"server.host": args.host, "server.port": args.port}
    return load_settings(args.config, overrides)


_NOISY = ("a2a", "temporalio.activity", "temporalio.workflow")


@contextlib.contextmanager
def _logging(settings: Settings) -> Iterator[None]:
    """Log at the configured level and format to stderr for the command's run, every line
    masked; then put back the levels it set: run in-process (a test, an embedding
    program), the command leaves no logger changed."""
    from tiny_harness.harness.security import Redactor
    from tiny_harness.service.o11y.logs import LogFormatter

    level = settings.log_level
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LogFormatter(Redactor(settings.secrets()), form=settings.log_format))
    logging.basicConfig(level=level, handlers=[handler])
    saved = {name: logging.getLogger(name).level for name in _NOISY}
    # The SDK logs whole request bodies at DEBUG; message text must not reach the logs.
    for name in _NOISY:
        logging.getLogger(name).setLevel(max(logging.INFO, logging.getLevelName(level)))
    try:
        yield
    finally:
        for name, old in saved.items():
            logging.getLogger(name).setLevel(old)


async def _until_signalled(main: Coroutine[None, None, None]) -> None:
    """Run `main`; SIGINT/SIGTERM cancel it, so its `finally` blocks stop every component."""
    task = asyncio.ensure_future(main)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        logger.info("shutdown complete")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    # Each request is one SERVER span, ours (service/o11y/server.py); the A2A SDK's own
    # tracing would add a SERVER span per handler method under it. Read at its import, so
    # set before the SDK is first imported; an operator's own setting wins.
    os.environ.setdefault(A2A_SDK_TRACING, "false")
    args = _parser().parse_args(argv)
    if args.command == "tui":
        return _tui(args)
    if args.command == "keys":
        return _new_key(args.participant)
    try:
        settings = _settings(args)
        if args.command == "tasks":
            _tasks(settings, args)
            return 0
        with _logging(settings):
            # Imported here: the server's imports are heavy, and `tui` needs none of them.
            from tiny_harness.service.runtime import run_server, run_worker, serve

            runners = {"serve": serve, "worker": run_worker, "server": run_server}
            runner = runners[args.command](settings)
            asyncio.run(_until_signalled(runner))
    except (ConfigError, ScriptError) as error:
        return _exit(EXIT_CONFIG, f"configuration error: {error.message}")
    except TinyHarnessError as error:
        return _exit(EXIT_FAILURE, f"{error.code}: {error.message}")
    return 0


def _new_key(participant: str) -> int:
    """Print a fresh API key for `participant` and the `[auth]` lines that accept it: the
    key is shown this once and kept nowhere."""
    from tiny_harness.config import ApiKeyDigest
    from tiny_harness.service.a2a.authentication import key_digest, new_key

    key = new_key()
    try:
        entry = ApiKeyDigest(participant=participant, sha256=key_digest(key))
    except ValueError:
        return _exit(EXIT_CONFIG, "--participant must be one printable line")
    as_json = json.dumps([entry.model_dump()])
    sys.stdout.write(
        f"key for {participant} (shown once, give it to them): {key}\n\n"
        "# the TOML file:\n"
        f'[auth]\nmode = "api_key"\n\n[[auth.api_keys]]\n'
        f'participant = {json.dumps(participant)}\nsha256 = "{entry.sha256}"\n\n'
        "# or the environment (every key in one array):\n"
        f"TINY_HARNESS_AUTH__MODE=api_key\nTINY_HARNESS_AUTH__API_KEYS='{as_json}'\n"
    )
    return 0


def _exit(status: int, text: str) -> int:
    # Straight to stderr: logging may not be set up yet, and this line must be seen.
    sys.stderr.write(f"tiny-harness: {text}\n")
    return status


if __name__ == "__main__":
    sys.exit(main())

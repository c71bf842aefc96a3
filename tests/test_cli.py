"""The `tiny-harness` command's exits: configuration errors are status 2 and name the key."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.requests import HTTPConnection

from tiny_harness.cli import EXIT_CONFIG, main
from tiny_harness.config import load_settings
from tiny_harness.interaction.tui.keys import KEYS
from tiny_harness.service.a2a.authentication import ApiKeys


def test_worker_without_temporal_address_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TINY_HARNESS_TEMPORAL__ADDRESS", raising=False)
    assert main(["worker", "--data-dir", str(tmp_path)]) == EXIT_CONFIG
    assert "TINY_HARNESS_TEMPORAL__ADDRESS" in capsys.readouterr().err


def test_server_without_temporal_address_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TINY_HARNESS_TEMPORAL__ADDRESS", raising=False)
    assert main(["server", "--data-dir", str(tmp_path)]) == EXIT_CONFIG
    said = capsys.readouterr().err
    assert "tiny-harness server needs a Temporal address" in said
    assert "TINY_HARNESS_TEMPORAL__ADDRESS" in said


def test_unknown_key_in_config_file_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "harness.toml"
    config.write_text("[server]\nprot = 9000\n")
    assert main(["serve", "--config", str(config)]) == EXIT_CONFIG
    assert "server.prot" in capsys.readouterr().err


def test_missing_script_file_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TINY_HARNESS_TEMPORAL__ADDRESS", "127.0.0.1:1")
    monkeypatch.setenv("TINY_HARNESS_MODEL__SCRIPT", str(tmp_path / "absent.yaml"))
    assert main(["worker", "--data-dir", str(tmp_path)]) == EXIT_CONFIG
    assert "absent.yaml" in capsys.readouterr().err


def test_tui_help_lists_every_key(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["tui", "--help"])
    assert exit_info.value.code == 0
    shown = capsys.readouterr().out
    assert "--url URL" in shown
    assert "--as NAME" in shown
    for key, _, label in KEYS:
        assert f"{key}" in shown
        assert label.lower() in shown
    assert "1-9" in shown
    assert "ctrl+p" in shown


def test_a_command_run_in_process_leaves_every_logger_level_as_it_found_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI quiets the SDKs' DEBUG loggers while it runs; a test (or a program) that calls
    `main` must not find them quieted afterwards, or a later "not in the DEBUG log" check
    would pass without looking."""
    names = ("a2a", "temporalio.activity", "temporalio.workflow")
    before = {name: logging.getLogger(name).level for name in names}
    monkeypatch.setenv("TINY_HARNESS_TEMPORAL__ADDRESS", "127.0.0.1:1")
    monkeypatch.setenv("TINY_HARNESS_MODEL__SCRIPT", str(tmp_path / "absent.yaml"))
    assert main(["worker", "--data-dir", str(tmp_path)]) == EXIT_CONFIG
    assert {name: logging.getLogger(name).level for name in names} == before


def test_the_command_imports_no_subcommand_module_until_one_runs() -> None:
    """`tiny-harness --help` (and `tui`) open at once: importing the CLI loads neither
    Textual, nor the A2A and Temporal SDKs, nor the server's configuration."""
    heavy = ("textual", "a2a", "temporalio", "httpx", "tiny_harness.config")
    probe = (
        f"import sys, tiny_harness.cli; print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()
    assert loaded == ""


async def test_keys_new_prints_a_key_once_and_the_configuration_that_accepts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keys", "new", "--participant", "alice"]) == 0
    printed = capsys.readouterr().out
    key = printed.splitlines()[0].rsplit(" ", 1)[1]
    toml = printed.split("# the TOML file:\n", 1)[1].split("\n# ", 1)[0]
    env_line = next(line for line in printed.splitlines() if "AUTH__API_KEYS=" in line)
    config = tmp_path / "auth.toml"
    config.write_text(toml, encoding="utf-8")
    from_file = load_settings(config, environ={})
    from_env = load_settings(
        environ={
            "TINY_HARNESS_AUTH__MODE": "api_key",
            "TINY_HARNESS_AUTH__API_KEYS": env_line.split("=", 1)[1].strip("'"),
        }
    )

    assert key.startswith("th_")
    assert len(key) == 46
    assert from_file.auth == from_env.auth
    keys = ApiKeys([(k.sha256, k.participant) for k in from_file.auth.api_keys])
    user = await keys.authenticate(connection({"authorization": f"Bearer {key}"}))
    assert user is not None
    assert user[1].display_name == "alice"
    assert key not in config.read_text(encoding="utf-8")


def connection(headers: dict[str, str]) -> HTTPConnection:
    """A request to an A2A route with `headers`, as Starlette hands it to a backend."""
    raw = [(name.encode(), value.encode()) for name, value in headers.items()]
    scope = {"type": "http", "path": "/rest/tasks", "headers": raw, "query_string": b""}
    return HTTPConnection(scope | {"scheme": "http", "server": ("127.0.0.1", 80)})

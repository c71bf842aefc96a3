"""The `tiny-harness` command's exits: configuration errors are status 2 and name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiny_harness.cli import EXIT_CONFIG, main
from tiny_harness.interaction.tui.keys import KEYS


def test_worker_without_temporal_address_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TINY_HARNESS_TEMPORAL__ADDRESS", raising=False)
    assert main(["worker", "--data-dir", str(tmp_path)]) == EXIT_CONFIG
    assert "TINY_HARNESS_TEMPORAL__ADDRESS" in capsys.readouterr().err


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

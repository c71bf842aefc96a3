"""Configured agents (`[[agents]]`, `TINY_HARNESS_AGENTS`) and `server.base_url`.

These test `tiny_harness.config`, kept beside the agents they configure.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import AnyHttpUrl, ValidationError

from tiny_harness.cli import EXIT_CONFIG, main
from tiny_harness.config import RemoteAgentSpec, Settings, load_settings
from tiny_harness.errors import ConfigError
from tiny_harness.harness.agents.agent import SELF_AGENT_ID


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tiny-harness.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_agents_and_no_base_url_by_default() -> None:
    settings = load_settings(environ={})

    assert settings.agents == ()
    assert settings.server.base_url is None


def test_agents_are_read_from_toml_tables(tmp_path: Path) -> None:
    config = write_toml(
        tmp_path,
        """
        [server]
        base_url = "https://harness.example.org"

        [[agents]]
        id = "search"
        url = "http://127.0.0.1:9000"

        [[agents]]
        id = "coder"
        url = "http://127.0.0.1:9001/a2a"
        version = "1.2.0"
        updates = "follow"
        follow_interval = "PT2S"
        """,
    )

    settings = load_settings(config, environ={})

    search, coder = settings.agents
    assert search == RemoteAgentSpec(id="search", url=AnyHttpUrl("http://127.0.0.1:9000"))
    assert search.updates == "auto"
    assert search.follow_interval == timedelta(seconds=5)
    assert coder.version == "1.2.0"
    assert str(coder.url) == "http://127.0.0.1:9001/a2a"
    assert coder.updates == "follow"
    assert coder.follow_interval == timedelta(seconds=2)
    assert str(settings.server.base_url) == "https://harness.example.org/"


def test_agents_are_read_from_a_json_array_in_the_environment(tmp_path: Path) -> None:
    config = write_toml(tmp_path, '[[agents]]\nid = "from-file"\nurl = "http://127.0.0.1:1"\n')
    agents = [{"id": "search", "url": "http://127.0.0.1:9000", "follow_interval": 3}]

    settings = load_settings(config, environ={"TINY_HARNESS_AGENTS": json.dumps(agents)})

    [search] = settings.agents  # the environment replaces the file's agents
    assert search.id == "search"
    assert search.follow_interval == timedelta(seconds=3)


def test_base_url_is_read_from_the_environment() -> None:
    settings = load_settings(environ={"TINY_HARNESS_SERVER__BASE_URL": "http://10.0.0.5:8080"})

    assert str(settings.server.base_url) == "http://10.0.0.5:8080/"


@pytest.mark.parametrize("value", ["[{", '{"id": "a"}', "search"])
def test_agents_in_the_environment_must_be_a_json_array(value: str) -> None:
    with pytest.raises(ConfigError, match="JSON array") as refused:
        load_settings(environ={"TINY_HARNESS_AGENTS": value})

    assert refused.value.variable == "TINY_HARNESS_AGENTS"


@pytest.mark.parametrize("interval", ["0.5", "PT0S", "0"])
def test_a_follow_interval_under_a_second_is_refused(tmp_path: Path, interval: str) -> None:
    config = write_toml(
        tmp_path,
        f'[[agents]]\nid = "search"\nurl = "http://127.0.0.1:1"\nfollow_interval = "{interval}"\n',
    )

    with pytest.raises(ConfigError, match="'search': follow_interval must be at least 1 second"):
        load_settings(config, environ={})


def test_a_follow_interval_of_one_second_is_accepted() -> None:
    spec = RemoteAgentSpec(id="a", url=AnyHttpUrl("http://127.0.0.1:1"), follow_interval="1")

    assert spec.follow_interval == timedelta(seconds=1)


def test_the_id_self_is_refused_for_a_configured_agent() -> None:
    agents = json.dumps([{"id": SELF_AGENT_ID, "url": "http://127.0.0.1:1"}])

    with pytest.raises(ConfigError, match="'self' is reserved for the harness itself"):
        load_settings(environ={"TINY_HARNESS_AGENTS": agents})


@pytest.mark.parametrize("agent_id", ["", "  "])
def test_a_blank_id_is_refused(agent_id: str) -> None:
    with pytest.raises(ValidationError):
        RemoteAgentSpec(id=agent_id, url=AnyHttpUrl("http://127.0.0.1:1"))


def test_duplicate_ids_are_refused_naming_the_id() -> None:
    agents = json.dumps(
        [{"id": "search", "url": "http://127.0.0.1:1"}, {"id": "search", "url": "http://x.org"}]
    )

    with pytest.raises(ConfigError, match="'search' is configured twice"):
        load_settings(environ={"TINY_HARNESS_AGENTS": agents})


@pytest.mark.parametrize(
    ("field", "value"),
    [("updates", "sometimes"), ("url", "ftp://127.0.0.1"), ("version", ">=1"), ("colour", "red")],
)
def test_a_bad_agent_field_is_refused(field: str, value: str) -> None:
    agents = json.dumps([{"id": "a", "url": "http://127.0.0.1:1", field: value}])

    with pytest.raises(ConfigError) as refused:
        load_settings(environ={"TINY_HARNESS_AGENTS": agents})

    assert refused.value.variable == "TINY_HARNESS_AGENTS"


def test_the_spec_of_the_harness_itself_may_use_the_id_self() -> None:
    spec = RemoteAgentSpec.for_self("http://127.0.0.1:8080")

    assert spec.id == SELF_AGENT_ID
    assert str(spec.url) == "http://127.0.0.1:8080/"
    assert spec.updates == "auto"
    assert spec.follow_interval == timedelta(seconds=5)


def test_settings_built_directly_refuse_self_too() -> None:
    with pytest.raises(ValidationError):
        Settings(agents=({"id": SELF_AGENT_ID, "url": "http://127.0.0.1:1"},))


def test_serve_with_a_bad_follow_interval_exits_2_naming_the_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_toml(
        tmp_path,
        '[[agents]]\nid = "search"\nurl = "http://127.0.0.1:1"\nfollow_interval = 0.2\n',
    )

    assert main(["serve", "--config", str(config), "--data-dir", str(tmp_path)]) == EXIT_CONFIG

    err = capsys.readouterr().err
    assert "agents" in err
    assert "follow_interval must be at least 1 second" in err

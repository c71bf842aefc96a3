"""Tests for tiny_harness.config: sources, precedence, error attribution and secret handling."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from pathlib import Path

import pytest

from tiny_harness.config import (
    SECRET_FIELDS,
    PushSettings,
    ServerConfig,
    Settings,
    StoreConfig,
    env_var_name,
    load_settings,
)
from tiny_harness.config.o11y import otlp_headers
from tiny_harness.errors import ConfigError
from tiny_harness.harness.models.prices import ModelPrice

SECRET_VALUE = "sk-do-not-print-me-4242"


def write_toml(tmp_path: Path, text: str, name: str = "tiny-harness.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- defaults and precedence ------------------------------------------------------------------


def test_defaults_apply_without_file_env_or_overrides() -> None:
    settings = load_settings(environ={})

    assert settings == Settings()
    assert settings.data_dir == Path(".tiny-harness")
    assert settings.log_level == "INFO"
    assert settings.temporal.address is None
    assert settings.temporal.namespace == "default"
    assert settings.temporal.task_queue == "tiny-harness"
    assert settings.temporal.tls is None  # the SDK decides: TLS when an API key is set
    assert settings.temporal.api_key is None
    assert settings.temporal.embedded_port == 7233
    assert settings.temporal.ui is False
    assert settings.temporal.ui_port is None
    assert settings.server.host == "127.0.0.1"
    assert settings.server.port == 8080
    assert settings.server.public_url is None
    assert settings.server.max_request_bytes == 1_048_576
    assert settings.model.provider is None
    assert settings.model.script is None
    assert settings.model.api_key is None
    assert settings.store.path is None


def test_toml_file_values_are_loaded(tmp_path: Path) -> None:
    config = write_toml(
        tmp_path,
        """
        data_dir = "/var/lib/th"
        log_level = "DEBUG"

        [temporal]
        address = "temporal.example:7233"
        tls = true

        [server]
        host = "0.0.0.0"
        port = 9001

        [model]
        provider = "scripted"

        [store]
        path = "/var/lib/th/db.sqlite3"
        """,
    )

    settings = load_settings(config, environ={})

    assert settings.data_dir == Path("/var/lib/th")
    assert settings.log_level == "DEBUG"
    assert settings.temporal.address == "temporal.example:7233"
    assert settings.temporal.tls is True
    assert settings.server.host == "0.0.0.0"
    assert settings.server.port == 9001
    assert settings.model.provider == "scripted"
    assert settings.store.path == Path("/var/lib/th/db.sqlite3")


def test_env_overrides_file(tmp_path: Path) -> None:
    config = write_toml(tmp_path, '[server]\nport = 9001\nhost = "0.0.0.0"\n')

    settings = load_settings(
        config,
        environ={"TINY_HARNESS_SERVER__PORT": "9002", "TINY_HARNESS_TEMPORAL__UI": "true"},
    )

    assert settings.server.port == 9002
    assert settings.server.host == "0.0.0.0"  # untouched file value survives
    assert settings.temporal.ui is True


def test_overrides_beat_env_and_file(tmp_path: Path) -> None:
    config = write_toml(tmp_path, 'data_dir = "from-file"\n[server]\nport = 9001\n')

    settings = load_settings(
        config,
        overrides={"server.port": 9003, "data_dir": Path("from-flag")},
        environ={"TINY_HARNESS_SERVER__PORT": "9002", "TINY_HARNESS_DATA_DIR": "from-env"},
    )

    assert settings.server.port == 9003
    assert settings.data_dir == Path("from-flag")


def test_none_override_counts_as_not_given() -> None:
    settings = load_settings(
        overrides={"server.port": None}, environ={"TINY_HARNESS_SERVER__PORT": "9002"}
    )

    assert settings.server.port == 9002


def test_nested_mapping_override_sets_fields() -> None:
    settings = load_settings(overrides={"server": {"port": 9004}}, environ={})

    assert settings.server == ServerConfig(port=9004)


def test_empty_env_value_counts_as_unset(tmp_path: Path) -> None:
    config = write_toml(tmp_path, '[temporal]\naddress = "temporal.example:7233"\n')

    settings = load_settings(config, environ={"TINY_HARNESS_TEMPORAL__ADDRESS": ""})

    assert settings.temporal.address == "temporal.example:7233"


def test_log_level_is_case_insensitive() -> None:
    settings = load_settings(environ={"TINY_HARNESS_LOG_LEVEL": "warning"})

    assert settings.log_level == "WARNING"


def test_unrelated_env_vars_are_ignored() -> None:
    settings = load_settings(
        environ={"PATH": "/usr/bin", "TINY_HARNESSX": "1", "OTHER__SERVER__PORT": "1"}
    )

    assert settings == Settings()


def test_explicit_environ_ignores_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINY_HARNESS_SERVER__PORT", "9005")

    assert load_settings(environ={}).server.port == 8080


def test_process_environment_is_read_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINY_HARNESS_SERVER__PORT", "9005")

    assert load_settings().server.port == 9005


def test_settings_constructor_does_not_read_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINY_HARNESS_SERVER__PORT", "9005")

    assert Settings().server.port == 8080


# --- unknown keys --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[server]\nprot = 9000\n", "server.prot"),
        ("datadir = 'x'\n", "datadir"),
        ("[srever]\nport = 9000\n", "srever"),
        ("[bogus]\n", "bogus"),
    ],
)
def test_unknown_toml_key_is_rejected_and_named(tmp_path: Path, text: str, key: str) -> None:
    config = write_toml(tmp_path, text)

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={})

    assert caught.value.variable == key
    assert key in str(caught.value)


@pytest.mark.parametrize(
    "name",
    [
        "TINY_HARNESS_SERVER__PROT",
        "TINY_HARNESS_DATADIR",
        "TINY_HARNESS_SERVER__PORT__EXTRA",
        "TINY_HARNESS_SERVER",
    ],
)
def test_unknown_env_var_is_rejected_and_named(name: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={name: "9000"})

    assert caught.value.variable == name
    assert name in str(caught.value)


def test_unknown_env_var_is_rejected_even_when_empty() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={"TINY_HARNESS_SERVER__PROT": ""})

    assert caught.value.variable == "TINY_HARNESS_SERVER__PROT"


def test_unknown_override_key_is_rejected_and_named() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides={"server.prot": 9000}, environ={})

    assert caught.value.variable == "server.prot"


# --- bad values ----------------------------------------------------------------------------


def test_bad_int_in_env_names_the_variable(tmp_path: Path) -> None:
    config = write_toml(tmp_path, "[server]\nport = 9001\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={"TINY_HARNESS_SERVER__PORT": "eighty"})

    assert caught.value.variable == "TINY_HARNESS_SERVER__PORT"
    assert "integer" in str(caught.value)


def test_bad_value_in_toml_names_the_dotted_key(tmp_path: Path) -> None:
    config = write_toml(tmp_path, '[temporal]\nembedded_port = "seven"\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={})

    assert caught.value.variable == "temporal.embedded_port"
    assert "integer" in str(caught.value)
    assert str(config) in str(caught.value)


def test_table_where_a_value_belongs_names_the_dotted_key(tmp_path: Path) -> None:
    config = write_toml(tmp_path, "[server.port]\nnumber = 1\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={})

    assert caught.value.variable == "server.port"


def test_bad_override_names_the_dotted_key() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides={"server.max_request_bytes": 10}, environ={})

    assert caught.value.variable == "server.max_request_bytes"
    assert "1024" in str(caught.value)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TINY_HARNESS_SERVER__PORT", "65536"),
        ("TINY_HARNESS_TEMPORAL__EMBEDDED_PORT", "-1"),
        ("TINY_HARNESS_TEMPORAL__UI_PORT", "100000"),
        ("TINY_HARNESS_TEMPORAL__MAX_CACHED_WORKFLOWS", "-1"),
        ("TINY_HARNESS_SERVER__PUBLIC_URL", "not a url"),
        ("TINY_HARNESS_MODEL__PROVIDER", "gpt"),
        ("TINY_HARNESS_LOG_LEVEL", "TRACE"),
        ("TINY_HARNESS_TEMPORAL__TLS", "maybe"),
    ],
)
def test_out_of_range_or_malformed_env_value_is_rejected(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={name: value})

    assert caught.value.variable == name


def test_first_of_several_bad_values_is_named_and_all_are_listed() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(
            environ={"TINY_HARNESS_SERVER__PORT": "x", "TINY_HARNESS_TEMPORAL__TLS": "maybe"}
        )

    message = str(caught.value)
    assert caught.value.variable in {"TINY_HARNESS_SERVER__PORT", "TINY_HARNESS_TEMPORAL__TLS"}
    assert "TINY_HARNESS_SERVER__PORT" in message
    assert "TINY_HARNESS_TEMPORAL__TLS" in message


# --- secrets -------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(SECRET_FIELDS))
def test_secret_in_toml_is_refused_without_echoing_the_value(tmp_path: Path, key: str) -> None:
    *section, field = key.split(".")
    table = f"[{section[0]}]\n" if section else ""
    config = write_toml(tmp_path, f'{table}{field} = "{SECRET_VALUE}"\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={})

    error = caught.value
    assert error.variable == key
    assert env_var_name(key) in str(error)
    assert SECRET_VALUE not in str(error)
    assert SECRET_VALUE not in repr(error)
    assert error.__cause__ is None


def test_secret_in_inline_toml_table_is_refused(tmp_path: Path) -> None:
    config = write_toml(tmp_path, f'model = {{ api_key = "{SECRET_VALUE}" }}\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={})

    assert caught.value.variable == "model.api_key"
    assert SECRET_VALUE not in str(caught.value)


def test_secret_in_override_is_refused_without_echoing_the_value() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides={"temporal.api_key": SECRET_VALUE}, environ={})

    assert caught.value.variable == "temporal.api_key"
    assert SECRET_VALUE not in str(caught.value)


def test_secret_from_env_is_accepted_and_hidden_from_repr() -> None:
    settings = load_settings(
        environ={
            "TINY_HARNESS_MODEL__API_KEY": SECRET_VALUE,
            "TINY_HARNESS_TEMPORAL__API_KEY": SECRET_VALUE + "-t",
        }
    )

    assert settings.model.api_key is not None
    assert settings.model.api_key.get_secret_value() == SECRET_VALUE
    assert settings.temporal.api_key is not None
    assert settings.temporal.api_key.get_secret_value() == SECRET_VALUE + "-t"
    assert SECRET_VALUE not in repr(settings)
    assert SECRET_VALUE not in str(settings)
    assert SECRET_VALUE not in settings.model_dump_json()


def test_store_url_selects_postgres_and_its_password_is_masked_alone_too() -> None:
    url = f"postgresql://harness:{SECRET_VALUE}@db.internal:5432/tasks"
    settings = load_settings(environ={"TINY_HARNESS_STORE__URL": url})

    assert settings.store.url is not None
    assert settings.store.url.get_secret_value() == url
    assert {url, SECRET_VALUE} <= set(settings.secrets())
    assert SECRET_VALUE not in repr(settings)


def test_a_store_url_that_is_not_postgres_is_refused_without_echoing_it() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={"TINY_HARNESS_STORE__URL": f"mysql://u:{SECRET_VALUE}@h/db"})

    assert caught.value.variable == "TINY_HARNESS_STORE__URL"
    assert "postgresql://" in str(caught.value)
    assert SECRET_VALUE not in str(caught.value)


DIGEST = "ab" * 32


@pytest.mark.parametrize(
    ("environ", "says"),
    [
        ({"TINY_HARNESS_AUTH__MODE": "api_key"}, "needs at least one of api_keys"),
        (
            {"TINY_HARNESS_AUTH__API_KEYS": f'[{{"participant": "a", "sha256": "{DIGEST}"}}]'},
            'only read in mode "api_key"',
        ),
        (
            {
                "TINY_HARNESS_AUTH__MODE": "api_key",
                "TINY_HARNESS_AUTH__API_KEYS": (
                    f'[{{"participant": "a", "sha256": "{DIGEST[:-1]}"}}]'
                ),
            },
            "should match pattern",
        ),
        (
            {
                "TINY_HARNESS_AUTH__MODE": "api_key",
                "TINY_HARNESS_AUTH__API_KEYS": (
                    f'[{{"participant": "a", "sha256": "{DIGEST}"}}, '
                    f'{{"participant": "b", "sha256": "{DIGEST}"}}]'
                ),
            },
            "one digest twice",
        ),
        ({"TINY_HARNESS_AUTH__MODE": "jwt"}, "mode jwt needs jwks_url, issuer, audience"),
        ({"TINY_HARNESS_AUTH__ALGORITHMS": "RS256,HS256"}, "Input should be 'RS256'"),
        ({"TINY_HARNESS_AUTH__ALGORITHMS": "none"}, "Input should be 'RS256'"),
        ({"TINY_HARNESS_AUTH__LEEWAY": "600"}, "less than or equal to"),
    ],
    ids=[
        "no keys",
        "keys without the mode",
        "short digest",
        "a digest twice",
        "jwt without its issuer",
        "an hmac algorithm",
        "alg none",
        "a leeway of ten minutes",
    ],
)
def test_auth_settings_that_cannot_work_are_refused(environ: dict[str, str], says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ=environ)

    assert caught.value.variable is not None
    assert caught.value.variable.startswith("TINY_HARNESS_AUTH__")
    assert says in str(caught.value)


def test_the_secrets_include_what_agents_and_plugins_mcp_servers_are_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin = tmp_path / "shop-tools"
    (plugin / "skills" / "orders").mkdir(parents=True)
    server = {"type": "http", "url": "https://mcp.example.com/mcp"}
    (plugin / "mcp.json").write_text(
        json.dumps({"mcpServers": {"s": server | {"headers_env": {"Authorization": "MCP_T"}}}})
    )
    (plugin / "skills" / "orders" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"o": server | {"headers_env": {"X-Key": "ORDERS_KEY"}}}})
    )
    monkeypatch.setenv("MCP_T", "Bearer mcp-token-one")
    monkeypatch.setenv("ORDERS_KEY", "orders-key-two")
    monkeypatch.setenv("SHOP_TOKEN", "shop-token-three")
    agents = [
        {
            "id": "shop",
            "url": "https://shop.example",
            "auth": {"scheme": "bearer", "token_env": "SHOP_TOKEN"},
        }
    ]
    settings = load_settings(
        environ={"TINY_HARNESS_PLUGINS": str(plugin), "TINY_HARNESS_AGENTS": json.dumps(agents)}
    )

    held = settings.secrets()

    assert {"Bearer mcp-token-one", "orders-key-two", "shop-token-three"} <= set(held)


def test_env_var_name_maps_dotted_keys() -> None:
    assert env_var_name("model.api_key") == "TINY_HARNESS_MODEL__API_KEY"
    assert env_var_name("data_dir") == "TINY_HARNESS_DATA_DIR"


# --- the config file itself ----------------------------------------------------------------


def test_missing_config_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"

    with pytest.raises(ConfigError) as caught:
        load_settings(missing, environ={})

    assert str(missing) in str(caught.value)
    assert caught.value.variable == str(missing)


def test_unreadable_config_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, environ={})  # a directory cannot be read as a file

    assert str(tmp_path) in str(caught.value)


def test_invalid_toml_is_named(tmp_path: Path) -> None:
    config = write_toml(tmp_path, "[server\nport = 9000\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={})

    assert str(config) in str(caught.value)
    assert "TOML" in str(caught.value)


def test_non_utf8_config_file_is_named(tmp_path: Path) -> None:
    config = tmp_path / "latin1.toml"
    config.write_bytes(b'[server]\nhost = "caf\xe9"\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={})

    assert str(config) in str(caught.value)


# --- derived values ------------------------------------------------------------------------


def test_store_path_defaults_under_data_dir() -> None:
    settings = load_settings(environ={"TINY_HARNESS_DATA_DIR": "/srv/th"})

    assert settings.store_path == Path("/srv/th/tiny-harness.sqlite3")


def test_store_path_uses_explicit_store_path() -> None:
    settings = Settings(store=StoreConfig(path=Path("/tmp/custom.sqlite3")))

    assert settings.store_path == Path("/tmp/custom.sqlite3")


def test_advertised_url_defaults_to_host_and_port() -> None:
    settings = load_settings(overrides={"server.host": "10.0.0.5", "server.port": 9100}, environ={})

    assert settings.advertised_url == "http://10.0.0.5:9100"


def test_advertised_url_brackets_ipv6_host() -> None:
    settings = load_settings(overrides={"server.host": "::1"}, environ={})

    assert settings.advertised_url == "http://[::1]:8080"


@pytest.mark.parametrize(
    ("public_url", "expected"),
    [
        ("https://agent.example.com", "https://agent.example.com"),
        ("https://agent.example.com/", "https://agent.example.com"),
        ("https://agent.example.com/a2a/", "https://agent.example.com/a2a"),
    ],
)
def test_advertised_url_uses_public_url_without_trailing_slash(
    public_url: str, expected: str
) -> None:
    settings = load_settings(environ={"TINY_HARNESS_SERVER__PUBLIC_URL": public_url})

    assert settings.advertised_url == expected


def test_relative_script_path_is_resolved_against_config_file_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf_dir = tmp_path / "etc"
    conf_dir.mkdir()
    config = write_toml(conf_dir, '[model]\nscript = "scripts/demo.yaml"\n')
    monkeypatch.chdir(tmp_path)

    settings = load_settings(Path("etc") / config.name, environ={})

    assert settings.model.script == conf_dir / "scripts" / "demo.yaml"


def test_absolute_script_path_in_file_is_kept(tmp_path: Path) -> None:
    script = tmp_path / "elsewhere" / "demo.yaml"
    config = write_toml(tmp_path, f'[model]\nscript = "{script.as_posix()}"\n')

    settings = load_settings(config, environ={})

    assert settings.model.script == script


def test_script_path_from_env_is_kept_as_given(tmp_path: Path) -> None:
    config = write_toml(tmp_path, "")

    settings = load_settings(config, environ={"TINY_HARNESS_MODEL__SCRIPT": "scripts/demo.yaml"})

    assert settings.model.script == Path("scripts/demo.yaml")


def test_other_relative_paths_in_file_are_kept_as_given(tmp_path: Path) -> None:
    config = write_toml(tmp_path, 'data_dir = "state"\n[store]\npath = "db.sqlite3"\n')

    settings = load_settings(config, environ={})

    assert settings.data_dir == Path("state")
    assert settings.store.path == Path("db.sqlite3")


def test_sections_are_frozen() -> None:
    settings = load_settings(environ={})

    with pytest.raises(ValueError, match="frozen"):
        settings.server.port = 1  # type: ignore[misc]


def test_plugins_come_from_the_file_relative_to_it_or_from_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "harness.toml"
    config.write_text('plugins = ["one", "/abs/two"]\n')
    from_file = load_settings(config, environ={})
    assert from_file.plugins == (tmp_path / "one", Path("/abs/two"))
    from_env = load_settings(environ={"TINY_HARNESS_PLUGINS": "a:b"})
    assert from_env.plugins == (Path("a"), Path("b"))


def test_a_duration_in_the_environment_may_be_plain_seconds() -> None:
    settings = load_settings(
        environ={
            "TINY_HARNESS_RETRIES__HEARTBEAT_TIMEOUT": "2",
            "TINY_HARNESS_HEARTBEAT__INTERVAL": "PT5S",
            "TINY_HARNESS_RETENTION__PLAN": "1.5",
        }
    )

    assert settings.retries.heartbeat_timeout == timedelta(seconds=2)
    assert settings.heartbeat.interval == timedelta(seconds=5)
    assert settings.retention.plan == timedelta(seconds=1.5)


def test_a_duration_that_is_no_duration_is_refused_naming_the_variable() -> None:
    with pytest.raises(ConfigError, match="TINY_HARNESS_RETRIES__HEARTBEAT_TIMEOUT"):
        load_settings(environ={"TINY_HARNESS_RETRIES__HEARTBEAT_TIMEOUT": "soon"})


# --- push notifications ----------------------------------------------------------------------

PUSH_KEY_TEXT = base64.b64encode(b"k" * 32).decode()


def test_push_defaults_are_no_allow_list_an_hour_and_ten_configs() -> None:
    settings = load_settings(environ={})

    assert settings.push == PushSettings()
    assert settings.push.allow == ()
    assert settings.push.delivery_window == timedelta(hours=1)
    assert settings.push.max_configs_per_task == 10
    assert settings.push_key is None


def test_push_settings_come_from_the_environment() -> None:
    settings = load_settings(
        environ={
            "TINY_HARNESS_PUSH__ALLOW": "LocalHost, 127.0.0.1,10.1.2.3/8 ,[::1],",
            "TINY_HARNESS_PUSH__DELIVERY_WINDOW": "PT5M",
            "TINY_HARNESS_PUSH__MAX_CONFIGS_PER_TASK": "3",
        }
    )

    assert settings.push.allow == ("localhost", "127.0.0.1", "10.0.0.0/8", "::1")
    assert settings.push.delivery_window == timedelta(minutes=5)
    assert settings.push.max_configs_per_task == 3


def test_push_allow_list_may_be_a_json_array_and_the_window_plain_seconds() -> None:
    settings = load_settings(
        environ={
            "TINY_HARNESS_PUSH__ALLOW": '["receiver.test.", "fd00::/8"]',
            "TINY_HARNESS_PUSH__DELIVERY_WINDOW": "90",
        }
    )

    assert settings.push.allow == ("receiver.test", "fd00::/8")
    assert settings.push.delivery_window == timedelta(seconds=90)


def test_push_settings_come_from_the_toml_file(tmp_path: Path) -> None:
    config = write_toml(
        tmp_path,
        """
        [push]
        allow = ["127.0.0.1", "192.168.0.0/16"]
        delivery_window = "PT2H"
        max_configs_per_task = 1
        """,
    )

    settings = load_settings(config, environ={})

    assert settings.push.allow == ("127.0.0.1", "192.168.0.0/16")
    assert settings.push.delivery_window == timedelta(hours=2)
    assert settings.push.max_configs_per_task == 1


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TINY_HARNESS_PUSH__ALLOW", "http://receiver.test/hook"),
        ("TINY_HARNESS_PUSH__ALLOW", "10.0.0.0/33"),
        ("TINY_HARNESS_PUSH__ALLOW", '["ok.test", 7]'),
        ("TINY_HARNESS_PUSH__ALLOW", "[not json"),
        ("TINY_HARNESS_PUSH__DELIVERY_WINDOW", "0"),
        ("TINY_HARNESS_PUSH__DELIVERY_WINDOW", "soon"),
        ("TINY_HARNESS_PUSH__MAX_CONFIGS_PER_TASK", "0"),
    ],
)
def test_bad_push_setting_is_refused_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={name: value})

    assert caught.value.variable == name


def test_bad_push_setting_in_toml_names_the_dotted_key(tmp_path: Path) -> None:
    config = write_toml(tmp_path, '[push]\nallow = ["under_score.test"]\n')

    with pytest.raises(ConfigError, match="host names, IP addresses or CIDR") as caught:
        load_settings(config, environ={})

    assert caught.value.variable == "push.allow"


@pytest.mark.parametrize(
    "text",
    [PUSH_KEY_TEXT, base64.urlsafe_b64encode(b"\xfb" * 32).decode().rstrip("=")],
    ids=["standard", "urlsafe-unpadded"],
)
def test_push_key_from_the_environment_is_accepted_and_hidden(text: str) -> None:
    settings = load_settings(environ={"TINY_HARNESS_PUSH_KEY": text})

    assert settings.push_key is not None
    assert settings.push_key.get_secret_value() == text
    assert text not in repr(settings)
    assert text not in str(settings)
    assert text not in settings.model_dump_json()


@pytest.mark.parametrize(
    "text",
    [base64.b64encode(SECRET_VALUE.encode()).decode(), SECRET_VALUE + "!"],
    ids=["wrong-length", "not-base64"],
)
def test_bad_push_key_is_refused_without_echoing_it(text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={"TINY_HARNESS_PUSH_KEY": text})

    error = caught.value
    assert error.variable == "TINY_HARNESS_PUSH_KEY"
    assert text not in str(error)
    assert text not in repr(error)
    assert SECRET_VALUE not in str(error)
    assert error.__cause__ is None


def test_push_key_in_the_toml_file_is_refused_without_echoing_it(tmp_path: Path) -> None:
    config = write_toml(tmp_path, f'push_key = "{PUSH_KEY_TEXT}"\n')

    with pytest.raises(ConfigError, match="TINY_HARNESS_PUSH_KEY") as caught:
        load_settings(config, environ={})

    assert caught.value.variable == "push_key"
    assert PUSH_KEY_TEXT not in str(caught.value)


def test_push_key_in_an_override_is_refused_without_echoing_it() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides={"push_key": PUSH_KEY_TEXT}, environ={})

    assert caught.value.variable == "push_key"
    assert PUSH_KEY_TEXT not in str(caught.value)


def test_otlp_headers_come_from_the_environment_as_name_value_pairs() -> None:
    settings = load_settings(
        environ={
            "TINY_HARNESS_O11Y__OTLP_ENDPOINT": "http://127.0.0.1:4318",
            "TINY_HARNESS_O11Y__OTLP_HEADERS": "Authorization=Basic cGs6c2s=, x-team = core",
        }
    )

    assert str(settings.o11y.otlp_endpoint) == "http://127.0.0.1:4318/"
    assert otlp_headers(settings.o11y.otlp_headers) == {
        "Authorization": "Basic cGs6c2s=",
        "x-team": "core",
    }
    assert "cGs6c2s" not in repr(settings)


def test_a_malformed_otlp_header_names_the_variable_and_not_the_value() -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings(environ={"TINY_HARNESS_O11Y__OTLP_HEADERS": "Authorization Basic s3cr3t"})

    assert refused.value.variable == "TINY_HARNESS_O11Y__OTLP_HEADERS"
    assert "pair 1 is not name=value" in refused.value.message
    assert "s3cr3t" not in str(refused.value)


def test_a_trace_url_is_a_template_with_the_trace_id() -> None:
    template = "https://jaeger.example/trace/{traceId}"
    settings = load_settings(environ={"TINY_HARNESS_O11Y__TRACE_URL": template})
    assert settings.o11y.trace_url == template
    for bad, why in (
        ("https://jaeger.example/trace/", "must contain {traceId}"),
        ("javascript:alert({traceId})", "must be an http(s) URL"),
    ):
        with pytest.raises(ConfigError) as refused:
            load_settings(environ={"TINY_HARNESS_O11Y__TRACE_URL": bad})
        assert refused.value.variable == "TINY_HARNESS_O11Y__TRACE_URL"
        assert why in refused.value.message


def test_call_details_are_shown_unless_the_deployment_says_names_only() -> None:
    assert load_settings(environ={}).loop.show_call_details is True
    names = load_settings(environ={"TINY_HARNESS_LOOP__SHOW_CALL_DETAILS": "false"})
    assert names.loop.show_call_details is False


def test_model_prices_and_the_token_budget_are_read_from_the_file_and_environment(
    tmp_path: Path,
) -> None:
    config = write_toml(
        tmp_path, '[model.prices."gpt-4o"]\ninput = 2.5\ncached = 1.25\noutput = 10.0\n'
    )

    settings = load_settings(config, environ={"TINY_HARNESS_LOOP__MAX_TASK_TOKENS": "50000"})

    assert settings.model.prices == {"gpt-4o": ModelPrice(input=2.5, cached=1.25, output=10.0)}
    assert settings.loop.max_task_tokens == 50_000


def test_a_negative_price_names_the_dotted_key(tmp_path: Path) -> None:
    config = write_toml(tmp_path, '[model.prices."gpt-4o"]\ninput = -1\noutput = 10.0\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(config, environ={})

    assert caught.value.variable == "model.prices.gpt-4o.input"

"""Configuration of tiny-harness: one typed `Settings` object, loaded once at startup.

`load_settings` merges four sources, highest precedence first:

1. ``overrides`` -- a flat mapping of dotted keys (``{"server.port": 9000}``), used by CLI flags;
2. environment variables ``TINY_HARNESS_<SECTION>__<FIELD>`` (plus ``TINY_HARNESS_DATA_DIR`` and
   ``TINY_HARNESS_LOG_LEVEL``);
3. a TOML file with the sections ``[temporal]``, ``[server]``, ``[model]``, ``[store]``,
   ``[push]`` (and the others below) and the top-level keys ``data_dir`` and ``log_level``;
4. the defaults declared below.

Remote agents the harness may delegate to are ``[[agents]]`` tables in the TOML file (one per
agent: ``id``, ``url``, optional ``version``, ``updates``, ``follow_interval``), or one JSON
array of the same objects in ``TINY_HARNESS_AGENTS``; either source replaces the other whole,
never merges with it.

Everything that can go wrong surfaces as a `ConfigError` whose ``variable`` names what the operator
has to fix: the environment variable when the value came from the environment, the dotted key
(``server.port``) when it came from the file or an override. Unknown keys are errors, not typos
to be silently ignored. Secrets (`SECRET_FIELDS`) are accepted from the environment only, and no
error message ever contains a secret's value.

`Settings` is a pydantic-settings ``BaseSettings``, but constructing it directly reads nothing
but its keyword arguments: all environment handling lives in `load_settings`, so that every
value's origin is known and can be named in an error.
"""

from __future__ import annotations

import difflib
import ipaddress
import json
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import (
    AnyHttpUrl,
    BaseModel,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from tiny_harness.errors import ConfigError
from tiny_harness.harness.agents.spec import RemoteAgentSpec
from tiny_harness.harness.context.window import ContextBudget
from tiny_harness.harness.models.model_config import ModelConfig
from tiny_harness.harness.persistence.push_key import decode_push_key
from tiny_harness.harness.persistence.retention import RetentionConfig
from tiny_harness.harness.settings.duration import Duration
from tiny_harness.harness.settings.retry import RetryPolicies

__all__ = [
    "ENV_NESTED_DELIMITER",
    "ENV_PREFIX",
    "SECRET_FIELDS",
    "ModelConfig",
    "PushSettings",
    "RemoteAgentSpec",
    "ServerConfig",
    "Settings",
    "StoreConfig",
    "TemporalConfig",
    "env_var_name",
    "load_settings",
]

ENV_PREFIX: Final[str] = "TINY_HARNESS_"
"""Prefix of every environment variable tiny-harness reads."""

ENV_NESTED_DELIMITER: Final[str] = "__"
"""Separates the section from the field in an environment variable name."""

SECRET_FIELDS: Final[frozenset[str]] = frozenset({"temporal.api_key", "model.api_key", "push_key"})
"""Dotted keys that may only be set through the environment, never in the config file."""

STORE_FILENAME: Final[str] = "tiny-harness.sqlite3"
"""File name of the store inside `Settings.data_dir` when `StoreConfig.path` is not set."""

Port = Annotated[int, Field(ge=0, le=65535)]
"""A TCP port; 0 asks the operating system for a free one."""

NonEmptyStr = Annotated[str, Field(min_length=1)]


class TemporalConfig(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """How to reach Temporal, or how to start the embedded development server."""

    address: NonEmptyStr | None = None
    """``host:port`` of a Temporal frontend; None starts an embedded dev server in ``serve``."""
    namespace: NonEmptyStr = "default"
    task_queue: NonEmptyStr = "tiny-harness"
    tls: bool = False
    api_key: SecretStr | None = None
    """Temporal Cloud API key. Secret: environment only (``TINY_HARNESS_TEMPORAL__API_KEY``)."""
    embedded_port: Port = 7233
    """Frontend port of the embedded dev server; 0 picks a free port."""
    ui: bool = False
    """Start the Temporal web UI together with the embedded dev server."""
    ui_port: Port | None = None
    """Port of the embedded web UI; None means ``embedded_port + 1000``."""


class ServerConfig(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """The A2A HTTP server."""

    host: NonEmptyStr = "127.0.0.1"
    port: Port = 8080
    public_url: AnyHttpUrl | None = None
    """Base URL the agent card advertises; None means ``http://{host}:{port}``."""
    max_request_bytes: Annotated[int, Field(ge=1024)] = 1_048_576
    """Largest request body the server accepts."""
    base_url: AnyHttpUrl | None = None
    """The public base URL remote agents reach this server at: push notifications about
    delegated tasks are registered under it (``<base_url>/a2a/push/<task id>``). None means
    no push is registered, and a parked remote task is followed with SubscribeToTask."""
    sse_keepalive: Annotated[Duration, Field(gt=timedelta(0), le=timedelta(seconds=30))] = (
        timedelta(seconds=15)
    )
    """How often a streaming response sends an SSE comment, so a proxy keeps a stream open
    while it waits on a long step (over 0, at most 30 s)."""
    rate_limit_per_second: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 20.0
    """Requests per second each peer address may make (a token bucket refilled at this
    rate); over it, a request is refused with 429. 0 turns the limit off."""
    rate_limit_burst: Annotated[int, Field(ge=1)] = 40
    """Requests a peer address may make at once: the size of its token bucket."""
    web_ui_dir: Path | None = None
    """The built web renderer served at ``/ui``; None means ``renderers/web/dist`` of the
    checkout the package runs from (where ``make serve`` builds it)."""


class StoreConfig(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """Where task records are kept."""

    path: Path | None = None
    """SQLite file; None means ``<data_dir>/tiny-harness.sqlite3`` (see `Settings.store_path`)."""


class LoopConfig(BaseModel, extra="forbid", frozen=True):
    """Bounds of one task's agent loop."""

    max_model_calls: int = Field(default=100, ge=1)
    """A task whose model has been called this often without finishing fails, saying so: a
    model that never stops calling tools cannot run (and bill) forever."""


class HeartbeatConfig(BaseModel, extra="forbid", frozen=True):
    """The `tiny-harness-heartbeat` schedule: whether the server creates it, how often."""

    enabled: bool = True
    interval: Annotated[Duration, Field(ge=timedelta(seconds=1))] = timedelta(seconds=30)
    schedule_id: NonEmptyStr = "tiny-harness-heartbeat"
    """Id of the Temporal schedule; each tick's workflow id starts with it. Harnesses that
    share a namespace but not a task queue need different ids."""


_HOST_NAME = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*")


class PushSettings(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """Push notifications to our own clients: which targets the outbound URL guard lets
    through, how long a notification is retried, how many configs a task may have."""

    allow: tuple[str, ...] = ()
    """Host names, IP addresses or CIDR networks a push URL may target although they are
    private, loopback or link-local, or reached over plain http: for development and tests
    only. In the environment, a comma-separated list or a JSON array of strings. Normalised:
    host names lower-cased without a trailing dot, addresses in their compressed form, networks
    to their network address (``10.0.0.1/8`` is ``10.0.0.0/8``)."""
    delivery_window: Annotated[Duration, Field(ge=timedelta(seconds=1))] = timedelta(hours=1)
    """How long one notification is retried with backoff before it is dropped."""
    max_configs_per_task: int = Field(default=10, ge=1)
    """How many push configs one task may have; a new one beyond that is refused."""

    @field_validator("allow", mode="before")
    @classmethod
    def _split_allow_list(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        if value.lstrip().startswith("["):
            try:
                parsed: object = json.loads(value)
            except json.JSONDecodeError as error:
                raise ValueError(
                    "allow must be a comma-separated list or a JSON array of strings "
                    f"(not valid JSON at line {error.lineno}, column {error.colno})"
                ) from None
            return parsed
        return tuple(part for part in value.split(",") if part.strip())

    @field_validator("allow")
    @classmethod
    def _allow_entries_are_hosts_or_networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_allow_entry(entry) for entry in value)


def _allow_entry(entry: str) -> str:
    """`entry` normalised, or ValueError saying it is no host name, address or network."""
    text = entry.strip().lower()
    if text.startswith("[") and text.endswith("]"):  # a bracketed IPv6 address, as in URLs
        text = text[1:-1]
    try:
        if "/" in text:
            return str(ipaddress.ip_network(text, strict=False))
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    name = text.removesuffix(".")
    if len(name) <= 253 and _HOST_NAME.fullmatch(name):
        return name
    raise ValueError(
        f"allow entries are host names, IP addresses or CIDR networks (10.0.0.0/8); "
        f"{entry!r} is none of them"
    )


class Settings(BaseSettings):
    """The whole configuration. Build it with `load_settings`, not by calling the class.

    The environment options in ``model_config`` describe the variable names `load_settings`
    reads; `settings_customise_sources` keeps pydantic-settings itself from reading anything,
    so ``Settings()`` is exactly the defaults and ``Settings(**kwargs)`` exactly the kwargs.
    """

    model_config = SettingsConfigDict(
        extra="forbid",
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_NESTED_DELIMITER,
        env_ignore_empty=True,
        hide_input_in_errors=True,
    )

    data_dir: Path = Path(".tiny-harness")
    """Directory for the store and other runtime state."""
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    temporal: TemporalConfig = TemporalConfig()
    server: ServerConfig = ServerConfig()
    model: ModelConfig = ModelConfig()
    store: StoreConfig = StoreConfig()
    loop: LoopConfig = LoopConfig()
    context: ContextBudget = ContextBudget()
    """The input-token budget of a turn and the share of it at which compaction starts."""
    heartbeat: HeartbeatConfig = HeartbeatConfig()
    retention: RetentionConfig = RetentionConfig()
    """How long the store keeps each record kind (`[retention] plan = "P7D"`, default 30 days)."""
    retries: RetryPolicies = RetryPolicies()
    """How the workflow retries the loop's activities (`[retries.default]`,
    `[retries.per_activity.invoke_llm]` in the TOML file)."""
    plugins: tuple[Path, ...] = ()
    """Plugin folders loaded after the built-in plugin, in order. In the environment,
    `TINY_HARNESS_PLUGINS` holds them separated by the path separator (`:` on POSIX)."""
    agents: tuple[RemoteAgentSpec, ...] = ()
    """Remote agents the harness may delegate to, ids unique. In the TOML file, one
    `[[agents]]` table each; in the environment, `TINY_HARNESS_AGENTS` holds a JSON array of
    the same objects (`[{"id": "search", "url": "http://127.0.0.1:9000"}]`)."""
    push: PushSettings = PushSettings()
    push_key: SecretStr | None = None
    """The 32-byte key (standard or urlsafe base64) sealing our clients' push-config tokens.
    Secret: environment only (``TINY_HARNESS_PUSH_KEY``). None: generated into the data
    directory with embedded Temporal, an error with an external one (see `push_key.py`)."""

    @field_validator("push_key")
    @classmethod
    def _push_key_is_32_bytes_of_base64(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            decode_push_key(value.get_secret_value())  # its ValueError never quotes the key
        return value

    @field_validator("agents", mode="before")
    @classmethod
    def _parse_agents_json(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as error:
            # The position only, never the text: a URL in it may carry credentials.
            raise ValueError(
                "agents must be a JSON array of agent objects "
                f"(not valid JSON at line {error.lineno}, column {error.colno})"
            ) from None
        if not isinstance(parsed, list):
            raise ValueError("agents must be a JSON array of agent objects")
        return parsed

    @field_validator("agents")
    @classmethod
    def _agent_ids_are_unique(
        cls, value: tuple[RemoteAgentSpec, ...]
    ) -> tuple[RemoteAgentSpec, ...]:
        seen: set[str] = set()
        for spec in value:
            if spec.id in seen:
                raise ValueError(f"agent ids must be unique; {spec.id!r} is configured twice")
            seen.add(spec.id)
        return value

    @field_validator("plugins", mode="before")
    @classmethod
    def _split_plugin_paths(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(p for p in value.split(os.pathsep) if p)
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_case_log_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Read keyword arguments only; `load_settings` does the environment itself."""
        return (init_settings,)

    @property
    def store_path(self) -> Path:
        """The SQLite file of the store: ``store.path`` or ``<data_dir>/tiny-harness.sqlite3``."""
        return self.store.path if self.store.path is not None else self.data_dir / STORE_FILENAME

    @property
    def advertised_url(self) -> str:
        """Base URL for the agent card: ``server.public_url`` without a trailing slash, else
        ``http://{host}:{port}`` (an IPv6 host is bracketed)."""
        if self.server.public_url is not None:
            return str(self.server.public_url).rstrip("/")
        host = self.server.host
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.server.port}"


def env_var_name(key: str) -> str:
    """Environment variable of a dotted key: ``server.port`` -> ``TINY_HARNESS_SERVER__PORT``."""
    return ENV_PREFIX + key.upper().replace(".", ENV_NESTED_DELIMITER)


# --------------------------------------------------------------------------------------------
# Loading

_KeyPath = tuple[str, ...]
_SourceKind = Literal["file", "env", "override"]


@dataclass(frozen=True, slots=True)
class _Origin:
    """Where one leaf value came from."""

    kind: _SourceKind
    name: str
    """The environment variable name for ``env``; the dotted key otherwise."""


@dataclass(frozen=True, slots=True)
class _Leaf:
    value: object
    origin: _Origin


_Layer = dict[_KeyPath, _Leaf]


def load_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Load and validate the configuration (overrides > environment > ``config_file`` > defaults).

    ``overrides`` keys are dotted (``"server.port"``); a value of None means "not given", so CLI
    flags can be passed through unconditionally. ``environ`` defaults to ``os.environ``; empty
    environment values count as unset.

    Raises `ConfigError` when the file is missing, unreadable or not TOML, a key or
    ``TINY_HARNESS_*`` variable is unknown, a secret is set anywhere but the environment, or a
    value is invalid.
    """
    layers: list[_Layer] = []
    if config_file is not None:
        layers.append(_file_layer(config_file))
    layers.append(_env_layer(os.environ if environ is None else environ))
    if overrides is not None:
        layers.append(_override_layer(overrides))

    merged = _merge(layers)
    if config_file is not None:
        merged = _resolve_script_path(merged, config_file)
    data: dict[str, object] = {}
    for path, leaf in merged.items():
        _insert(data, path, leaf.value)
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise _config_error(exc, merged, config_file) from None


def _file_layer(config_file: Path) -> _Layer:
    try:
        raw = config_file.read_bytes()
    except FileNotFoundError:
        raise ConfigError(
            f"config file {config_file} does not exist", variable=str(config_file)
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"config file {config_file} cannot be read: {exc.strerror or exc}",
            variable=str(config_file),
        ) from None
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(
            f"config file {config_file} is not UTF-8 text", variable=str(config_file)
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"config file {config_file} is not valid TOML: {exc}", variable=str(config_file)
        ) from None

    layer: _Layer = {}
    for path, value in _flatten(document):
        key = ".".join(path)
        secret = ".".join(path[:2])
        if secret in SECRET_FIELDS:
            raise ConfigError(
                f"{secret} is a secret and must not be set in the config file {config_file}; "
                f"set the environment variable {env_var_name(secret)} instead",
                variable=secret,
            )
        _check_known(path, "file", where=f" in config file {config_file}")
        layer[path] = _Leaf(value, _Origin("file", key))
    return layer


def _env_layer(environ: Mapping[str, str]) -> _Layer:
    layer: _Layer = {}
    names: dict[_KeyPath, str] = {}
    for name, value in environ.items():
        if not name.upper().startswith(ENV_PREFIX):
            continue
        path = tuple(name[len(ENV_PREFIX) :].lower().split(ENV_NESTED_DELIMITER))
        _check_known(path, "env", env_name=name)
        if path in names:
            raise ConfigError(
                f"environment variables {names[path]} and {name} set the same setting; "
                "remove one of them",
                variable=name,
            )
        names[path] = name
        if value == "":
            continue
        if ".".join(path) in SECRET_FIELDS:
            layer[path] = _Leaf(SecretStr(value), _Origin("env", name))
        else:
            layer[path] = _Leaf(value, _Origin("env", name))
    return layer


def _override_layer(overrides: Mapping[str, object]) -> _Layer:
    layer: _Layer = {}
    for key, value in overrides.items():
        if value is None:
            continue
        head = tuple(key.split("."))
        flat = _flatten(value, head) if isinstance(value, Mapping) else iter([(head, value)])
        for path, leaf_value in flat:
            dotted = ".".join(path)
            if ".".join(path[:2]) in SECRET_FIELDS:
                secret = ".".join(path[:2])
                raise ConfigError(
                    f"{secret} is a secret and can only be set through the environment "
                    f"variable {env_var_name(secret)}",
                    variable=secret,
                )
            _check_known(path, "override", where=" in overrides")
            clash = next((p for p in layer if _overlaps(p, path)), None)
            if clash is not None:
                raise ConfigError(
                    f"overrides set {'.'.join(clash)} and {dotted} at the same time",
                    variable=dotted,
                )
            layer[path] = _Leaf(leaf_value, _Origin("override", dotted))
    return layer


def _flatten(
    tree: Mapping[str, object], prefix: _KeyPath = ()
) -> Iterator[tuple[_KeyPath, object]]:
    """Yield ``(path, value)`` for every leaf; an empty table is a leaf (so unknown ones show)."""
    for key, value in tree.items():
        path = (*prefix, str(key))
        if isinstance(value, Mapping) and value:
            yield from _flatten(value, path)
        else:
            yield path, value


def _section_model(name: str) -> type[BaseModel] | None:
    annotation = Settings.model_fields[name].annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _check_known(path: _KeyPath, kind: _SourceKind, *, env_name: str = "", where: str = "") -> None:
    """Reject a path that names no setting.

    Environment variables must name a field exactly. A file or override path that goes deeper
    than a field (a table where a number belongs) is left to validation, which says what the
    field expects.
    """
    fields = Settings.model_fields
    if path[0] not in fields:
        _unknown(path[:1], list(fields), kind, env_name, where)
    section = _section_model(path[0])
    if section is None:
        if len(path) > 1 and kind == "env":
            _unknown(path, [], kind, env_name, where)
        return
    if len(path) == 1:
        if kind == "env":
            raise ConfigError(
                f"{env_name} names the section [{path[0]}], not a setting; set its fields as "
                f"{env_var_name(path[0])}{ENV_NESTED_DELIMITER}<FIELD>",
                variable=env_name,
            )
        return
    if path[1] not in section.model_fields:
        _unknown(path[:2], list(section.model_fields), kind, env_name, where)
    if len(path) > 2 and kind == "env":
        _unknown(path, [], kind, env_name, where)


def _unknown(
    path: _KeyPath, known: list[str], kind: _SourceKind, env_name: str, where: str
) -> None:
    parent = path[:-1]
    candidates = [".".join((*parent, name)) for name in known]
    dotted = ".".join(path)
    if kind == "env":
        matches = difflib.get_close_matches(dotted, candidates, n=1)
        hint = f"; did you mean {env_var_name(matches[0])}?" if matches else ""
        raise ConfigError(f"unknown environment variable {env_name}{hint}", variable=env_name)
    matches = difflib.get_close_matches(dotted, candidates, n=1)
    hint = f"; did you mean {matches[0]!r}?" if matches else ""
    raise ConfigError(f"unknown setting {dotted!r}{where}{hint}", variable=dotted)


def _overlaps(a: _KeyPath, b: _KeyPath) -> bool:
    """True when one path equals or contains the other."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _merge(layers: list[_Layer]) -> _Layer:
    """Merge layers given lowest precedence first; a higher path replaces overlapping lower ones."""
    merged: _Layer = {}
    for layer in layers:
        for path, leaf in layer.items():
            for old in [p for p in merged if _overlaps(p, path)]:
                del merged[old]
            merged[path] = leaf
    return merged


def _resolve_script_path(merged: _Layer, config_file: Path) -> _Layer:
    """Paths given in the config file are relative to the file's folder."""
    base = config_file.absolute().parent
    resolved = dict(merged)
    script = merged.get(("model", "script"))
    if script is not None and script.origin.kind == "file" and isinstance(script.value, str):
        resolved[("model", "script")] = _Leaf(base / script.value, script.origin)
    plugins = merged.get(("plugins",))
    if plugins is not None and plugins.origin.kind == "file" and isinstance(plugins.value, list):
        paths = [base / str(p) for p in plugins.value]
        resolved[("plugins",)] = _Leaf(paths, plugins.origin)
    return resolved


def _insert(data: dict[str, object], path: _KeyPath, value: object) -> None:
    node = data
    for part in path[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):  # cannot happen: _merge removed overlapping paths
            raise ConfigError(f"conflicting values for {'.'.join(path)}", variable=".".join(path))
        node = child
    node[path[-1]] = value


def _config_error(exc: ValidationError, merged: _Layer, config_file: Path | None) -> ConfigError:
    """Turn a ValidationError into a ConfigError naming where each bad value came from.

    Only pydantic's message is used, never the input, so secret values cannot leak.
    """
    problems: list[str] = []
    first: str | None = None
    for error in exc.errors(include_url=False, include_input=False, include_context=False):
        loc = tuple(str(part) for part in error["loc"])
        variable, source = _attribute(loc, merged, config_file)
        first = first if first is not None else variable
        problems.append(f"{variable}{source}: {error['msg']}")
    return ConfigError("invalid configuration: " + "; ".join(problems), variable=first)


def _attribute(loc: _KeyPath, merged: _Layer, config_file: Path | None) -> tuple[str, str]:
    """Return (variable, source description) for an error at ``loc``."""
    owners = [p for p in merged if loc[: len(p)] == p]  # leaves at or above the error
    if not owners:
        owners = sorted(p for p in merged if p[: len(loc)] == loc)  # leaves below the error
    if not owners:
        return ".".join(loc) or "settings", ""
    path = max(owners, key=len)
    origin = merged[path].origin
    if origin.kind == "env":
        return origin.name, " (from the environment)"
    dotted = ".".join(loc[: len(path)])  # the shorter of the two: the key at fault
    if origin.kind == "file":
        return dotted, f" (in config file {config_file})"
    return dotted, " (override)"

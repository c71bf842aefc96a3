"""`Settings`: the whole configuration, one typed object with a field per section."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import SecretStr, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from tiny_harness.config.auth import AuthConfig
from tiny_harness.config.keys import ENV_NESTED_DELIMITER, ENV_PREFIX, STORE_FILENAME
from tiny_harness.config.o11y import O11yConfig, otlp_headers
from tiny_harness.config.push import PushSettings
from tiny_harness.config.sections import (
    HeartbeatConfig,
    LoopConfig,
    ServerConfig,
    StoreConfig,
    TemporalConfig,
)
from tiny_harness.harness.agents.spec import RemoteAgentSpec
from tiny_harness.harness.context.window import ContextBudget
from tiny_harness.harness.models.model_config import ModelConfig
from tiny_harness.harness.persistence.push_key import decode_push_key
from tiny_harness.harness.persistence.retention import RetentionConfig
from tiny_harness.harness.plugins.secrets import mcp_header_secrets
from tiny_harness.harness.settings.retry import RetryPolicies


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
    """The lowest level logged, case-insensitive."""
    log_format: Literal["text", "json"] = "text"
    """`text`: one readable line per record. `json`: one JSON object per line, with the trace
    and span ids of the span current when it was logged (`TINY_HARNESS_LOG_FORMAT`)."""
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
    auth: AuthConfig = AuthConfig()
    """Who may call the A2A server (`[auth]`, `auth.py`): nobody is authenticated unless
    `mode` says how."""
    o11y: O11yConfig = O11yConfig()
    """Traces and metrics: where they are exported (`docs/observability.md`)."""
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

    def secrets(self) -> tuple[str, ...]:
        """Every secret this process holds, as text: masked wherever it would be written
        (a log line, a span); each OTLP header value counts on its own."""
        held = [
            self.model.api_key,
            self.temporal.api_key,
            self.push_key,
            self.o11y.otlp_headers,
            self.store.url,
        ]
        values = [s.get_secret_value() for s in held if s is not None]
        url = self.store.url
        password = urlsplit(url.get_secret_value()).password if url is not None else None
        if password:
            values.append(password)  # the store URL's password, should it be quoted alone
        # The credentials this harness presents to remote agents and to plugins' MCP servers
        # over HTTP, read from the environment.
        values += [s for a in self.agents if a.auth and (s := a.auth.secret())]
        values += mcp_header_secrets(self.plugins)
        return (*values, *otlp_headers(self.o11y.otlp_headers).values())

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

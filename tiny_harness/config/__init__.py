"""Configuration of tiny-harness: one typed `Settings` object, loaded once at startup.

`load_settings` merges four sources, highest precedence first:

1. ``overrides`` -- a flat mapping of dotted keys (``{"server.port": 9000}``), used by CLI flags;
2. environment variables ``TINY_HARNESS_<SECTION>__<FIELD>`` (plus ``TINY_HARNESS_DATA_DIR`` and
   ``TINY_HARNESS_LOG_LEVEL``);
3. a TOML file with the sections ``[temporal]``, ``[server]``, ``[model]``, ``[store]``,
   ``[push]`` (and the others below) and the top-level keys ``data_dir`` and ``log_level``;
4. the defaults declared in the section models (`sections.py`, `push.py`, `settings.py`).

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

from tiny_harness.config.auth import ApiKeyDigest, AuthConfig
from tiny_harness.config.keys import (
    ENV_NESTED_DELIMITER,
    ENV_PREFIX,
    SECRET_FIELDS,
    STORE_FILENAME,
    env_var_name,
)
from tiny_harness.config.loading import load_settings
from tiny_harness.config.o11y import O11yConfig
from tiny_harness.config.push import PushSettings
from tiny_harness.config.sections import (
    HeartbeatConfig,
    LoopConfig,
    ServerConfig,
    StoreConfig,
    TemporalConfig,
)
from tiny_harness.config.settings import Settings
from tiny_harness.harness.agents.spec import RemoteAgentSpec
from tiny_harness.harness.models.model_config import ModelConfig

__all__ = [
    "ENV_NESTED_DELIMITER",
    "ENV_PREFIX",
    "SECRET_FIELDS",
    "STORE_FILENAME",
    "ApiKeyDigest",
    "AuthConfig",
    "HeartbeatConfig",
    "LoopConfig",
    "ModelConfig",
    "O11yConfig",
    "PushSettings",
    "RemoteAgentSpec",
    "ServerConfig",
    "Settings",
    "StoreConfig",
    "TemporalConfig",
    "env_var_name",
    "load_settings",
]

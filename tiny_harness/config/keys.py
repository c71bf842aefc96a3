"""The names configuration goes by: the environment prefix, the secret keys, shared types."""

from __future__ import annotations

from typing import Annotated, Final

from pydantic import Field

ENV_PREFIX: Final[str] = "TINY_HARNESS_"
"""Prefix of every environment variable tiny-harness reads."""

ENV_NESTED_DELIMITER: Final[str] = "__"
"""Separates the section from the field in an environment variable name."""

SECRET_FIELDS: Final[frozenset[str]] = frozenset(
    {"temporal.api_key", "model.api_key", "push_key", "o11y.otlp_headers", "store.url"}
)
"""Dotted keys that may only be set through the environment, never in the config file."""

STORE_FILENAME: Final[str] = "tiny-harness.sqlite3"
"""File name of the store inside `Settings.data_dir` when `StoreConfig.path` is not set."""

Port = Annotated[int, Field(ge=0, le=65535)]
"""A TCP port; 0 asks the operating system for a free one."""

NonEmptyStr = Annotated[str, Field(min_length=1)]


def env_var_name(key: str) -> str:
    """Environment variable of a dotted key: ``server.port`` -> ``TINY_HARNESS_SERVER__PORT``."""
    return ENV_PREFIX + key.upper().replace(".", ENV_NESTED_DELIMITER)

"""`ModelConfig`: which language model drives the agent loop (the ``[model]`` section).

It lives with the models, below the configuration that reads it: the model factory
(`factory.choose_model`) takes it, and `config.Settings` carries it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AnyHttpUrl, BaseModel, Field, SecretStr

from tiny_harness.harness.models.prices import ModelPrice


class ModelConfig(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """Which language model drives the agent loop."""

    provider: Literal["scripted", "openai", "openai-chat", "anthropic"] | None = None
    """None means the scripted model with the built-in demo script. `openai` is the Responses
    API, `openai-chat` Chat Completions at any `base_url` (Ollama, vLLM, llama.cpp)."""
    model: str | None = None
    """The provider's model name (required for every provider but `scripted`)."""
    base_url: AnyHttpUrl | None = None
    """The provider's endpoint; required for `openai-chat`, optional for the others."""
    max_output_tokens: int | None = Field(default=None, ge=1)
    """Cap on output tokens per model call; None: the provider's default (anthropic: 8192)."""
    script: Path | None = None
    """YAML script for the scripted model; None means the built-in demo script. A relative path
    from the config file is resolved against the config file's directory."""
    api_key: SecretStr | None = None
    """Provider API key. Secret: environment only (``TINY_HARNESS_MODEL__API_KEY``)."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """US dollars per million tokens, by model name (a name also prices the dated names
    that start with it), so each task's usage carries its cost. Empty: no cost is counted."""

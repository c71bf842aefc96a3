"""Choosing the worker's model from configuration."""

from __future__ import annotations

from dataclasses import dataclass

from tiny_harness.errors import ConfigError
from tiny_harness.harness.models.llm import LLM
from tiny_harness.harness.models.model_config import ModelConfig
from tiny_harness.harness.models.scripted import ScriptedLLM, builtin_demo_script, load_script


@dataclass(frozen=True)
class ChosenModel:
    """The model the worker will call, and one line saying why it was chosen."""

    llm: LLM
    description: str


def choose_model(config: ModelConfig) -> ChosenModel:
    """The configured provider's adapter, the scripted model with the configured script, or
    the built-in demo script.

    Raises `ScriptError` when a configured script cannot be loaded, and `ConfigError`
    naming the variable when a provider lacks what it needs or a key is set with no
    provider chosen. Descriptions never contain the key.
    """
    if config.provider in ("openai", "openai-chat", "anthropic"):
        return _provider(config)
    if config.script is not None:
        llm = ScriptedLLM(load_script(config.script), name=config.script.stem)
        return ChosenModel(llm, f"scripted model, script {config.script}")
    if config.provider is None and config.api_key is not None:
        raise ConfigError(
            "a provider key is set but no provider is chosen: set TINY_HARNESS_MODEL__PROVIDER "
            "to openai, openai-chat or anthropic (or scripted)",
            variable="TINY_HARNESS_MODEL__PROVIDER",
        )
    reason = "no provider key configured" if config.provider is None else "provider: scripted"
    return ChosenModel(
        ScriptedLLM(builtin_demo_script(), name="demo"),
        f"scripted model, built-in demo script ({reason})",
    )


def _provider(config: ModelConfig) -> ChosenModel:
    model = _required(config.model, "TINY_HARNESS_MODEL__MODEL", config.provider)
    base_url = str(config.base_url).rstrip("/") if config.base_url else None
    where = f" at {base_url}" if base_url else ""
    description = f"{config.provider} model {model}{where}"
    # A provider's SDK is imported only when it is the one configured: each takes about a
    # second to import, which a server on the scripted model (and every CLI start) skips.
    if config.provider == "openai-chat":
        from tiny_harness.harness.models.openai_chat import OpenAIChatLLM

        url = _required(base_url, "TINY_HARNESS_MODEL__BASE_URL", config.provider)
        chat = OpenAIChatLLM(
            model=model,
            api_key=config.api_key,
            base_url=url,
            max_output_tokens=config.max_output_tokens,
        )
        return ChosenModel(chat, description)
    key = config.api_key
    if key is None:
        raise ConfigError(
            f"provider {config.provider} needs TINY_HARNESS_MODEL__API_KEY",
            variable="TINY_HARNESS_MODEL__API_KEY",
        )
    if config.provider == "anthropic":
        from tiny_harness.harness.models.anthropic import AnthropicLLM

        anthropic = AnthropicLLM(
            model=model,
            api_key=key,
            base_url=base_url,
            max_output_tokens=config.max_output_tokens or 8192,
        )
        return ChosenModel(anthropic, description)
    from tiny_harness.harness.models.openai import OpenAILLM

    openai = OpenAILLM(
        model=model, api_key=key, base_url=base_url, max_output_tokens=config.max_output_tokens
    )
    return ChosenModel(openai, description)


def _required(value: str | None, variable: str, provider: str | None) -> str:
    if not value:
        raise ConfigError(f"provider {provider} needs {variable}", variable=variable)
    return value

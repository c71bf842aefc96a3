"""Choosing the worker's model from configuration."""

from __future__ import annotations

from dataclasses import dataclass

from tiny_harness.config import ModelConfig
from tiny_harness.errors import ConfigError
from tiny_harness.harness.models.llm import LLM
from tiny_harness.harness.models.scripted import ScriptedLLM, builtin_demo_script, load_script


@dataclass(frozen=True)
class ChosenModel:
    """The model the worker will call, and one line saying why it was chosen."""

    llm: LLM
    description: str


def choose_model(config: ModelConfig) -> ChosenModel:
    """The scripted model with the configured script, or the built-in demo script.

    Raises `ScriptError` when a configured script cannot be loaded, and `ConfigError` when
    a provider key is set but no provider is chosen (no provider adapter ships yet).
    """
    if config.script is not None:
        llm = ScriptedLLM(load_script(config.script), name=config.script.stem)
        return ChosenModel(llm, f"scripted model, script {config.script}")
    if config.provider is None and config.api_key is not None:
        raise ConfigError(
            "a provider key is set but no provider is chosen; this version ships only the "
            "scripted model: set TINY_HARNESS_MODEL__PROVIDER=scripted",
            variable="TINY_HARNESS_MODEL__PROVIDER",
        )
    reason = "no provider key configured" if config.provider is None else "provider: scripted"
    return ChosenModel(
        ScriptedLLM(builtin_demo_script(), name="demo"),
        f"scripted model, built-in demo script ({reason})",
    )

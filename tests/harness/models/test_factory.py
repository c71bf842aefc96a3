"""Choosing the worker's model: the demo script, a configured script, or a clear refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from tiny_harness.errors import ConfigError, ScriptError
from tiny_harness.harness.models.anthropic import AnthropicLLM
from tiny_harness.harness.models.factory import choose_model
from tiny_harness.harness.models.llm import LLM, LLMRequest, LLMResponse, UserItem
from tiny_harness.harness.models.model_config import ModelConfig
from tiny_harness.harness.models.openai_chat import OpenAIChatLLM
from tiny_harness.harness.models.scripted import ScriptedLLM, builtin_demo_script

KEY = "sk-test-not-a-real-key-0123456789"


async def first_answer(llm: LLM) -> LLMResponse:
    request = LLMRequest(
        instructions="You are a test agent.",
        input=(UserItem(message_id="m0", text="Please write a haiku."),),
    )
    return await llm.invoke(request)


async def test_no_key_and_no_provider_chooses_the_builtin_demo_script() -> None:
    chosen = choose_model(ModelConfig())

    assert chosen.llm.info.provider == "scripted"
    assert chosen.llm.info.model == "demo"
    assert "built-in demo script" in chosen.description
    assert "no provider key" in chosen.description
    demo = ScriptedLLM(builtin_demo_script(), name="demo")
    assert await first_answer(chosen.llm) == await first_answer(demo)


def test_scripted_provider_without_script_chooses_the_demo_and_says_why() -> None:
    chosen = choose_model(ModelConfig(provider="scripted"))

    assert chosen.llm.info.model == "demo"
    assert "built-in demo script" in chosen.description
    assert "provider: scripted" in chosen.description


def test_scripted_provider_with_a_key_is_not_refused() -> None:
    chosen = choose_model(ModelConfig(provider="scripted", api_key=SecretStr(KEY)))

    assert "built-in demo script" in chosen.description


async def test_script_path_chooses_that_script(tmp_path: Path) -> None:
    script = tmp_path / "greeter.yaml"
    script.write_text("turns:\n  - text: hello from the greeter\nfinal: bye\n", encoding="utf-8")

    chosen = choose_model(ModelConfig(script=script))

    assert chosen.llm.info.model == "greeter"
    assert str(script) in chosen.description
    assert "demo" not in chosen.description
    answer = await first_answer(chosen.llm)
    assert answer.output_text == "hello from the greeter"
    assert answer.tool_calls == ()


def test_api_key_without_provider_is_refused_naming_the_variable() -> None:
    with pytest.raises(ConfigError) as caught:
        choose_model(ModelConfig(api_key=SecretStr(KEY)))

    assert caught.value.variable == "TINY_HARNESS_MODEL__PROVIDER"
    assert "TINY_HARNESS_MODEL__PROVIDER" in caught.value.message
    assert KEY not in str(caught.value)


def test_missing_script_file_is_a_script_error_naming_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.yaml"

    with pytest.raises(ScriptError, match="not found") as caught:
        choose_model(ModelConfig(script=missing))

    assert str(missing) in caught.value.message


def test_malformed_script_file_is_a_script_error(tmp_path: Path) -> None:
    script = tmp_path / "broken.yaml"
    script.write_text("turns: [unclosed\n", encoding="utf-8")

    with pytest.raises(ScriptError, match=r"broken\.yaml"):
        choose_model(ModelConfig(script=script))


def test_openai_chat_provider_builds_the_chat_adapter_at_its_base_url() -> None:
    chosen = choose_model(
        ModelConfig(provider="openai-chat", model="llama3", base_url="http://127.0.0.1:11434/v1")
    )
    assert isinstance(chosen.llm, OpenAIChatLLM)
    assert chosen.description == "openai-chat model llama3 at http://127.0.0.1:11434/v1"


def test_hosted_providers_need_a_key_and_a_model_named_by_variable() -> None:
    with pytest.raises(ConfigError) as no_key:
        choose_model(ModelConfig(provider="openai", model="gpt-x"))
    assert no_key.value.variable == "TINY_HARNESS_MODEL__API_KEY"
    with pytest.raises(ConfigError) as no_model:
        choose_model(ModelConfig(provider="anthropic", api_key=SecretStr("sk-ant-secret")))
    assert no_model.value.variable == "TINY_HARNESS_MODEL__MODEL"
    assert "sk-ant-secret" not in str(no_model.value)


def test_provider_description_never_contains_the_key() -> None:
    chosen = choose_model(
        ModelConfig(provider="anthropic", model="claude-x", api_key=SecretStr("sk-ant-secret"))
    )
    assert isinstance(chosen.llm, AnthropicLLM)
    assert "sk-ant-secret" not in chosen.description

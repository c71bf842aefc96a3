"""The configuration reference the docs site shows, made from `Settings`: every setting is
there with what it is for, each variable it names is one the loader takes, each default is
the one a fresh configuration has, and the hand-kept `.env.example` names nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from tiny_harness.config.loading import load_settings
from tiny_harness.config.reference import reference_markdown, settings_reference
from tiny_harness.config.settings import Settings

ENV_EXAMPLE = Path(__file__).parents[2] / ".env.example"


def test_every_setting_says_what_it_is_for() -> None:
    reference = settings_reference()

    assert [s.key for s in reference if not s.description] == []
    assert len({s.key for s in reference}) == len(reference)
    # Each section's fields are all there: the reference walks the model, not a list.
    assert {s.key for s in reference if s.key.startswith("server.")} == {
        f"server.{name}"
        for name in Settings.model_fields["server"].annotation.model_fields  # type: ignore[union-attr]
    }


def test_each_variable_is_one_the_loader_takes_and_secrets_are_marked() -> None:
    reference = settings_reference()

    for setting in reference:
        if setting.variable is not None:
            load_settings(environ={setting.variable: ""})  # an unknown name raises ConfigError
    secrets = {s.variable for s in reference if s.secret}
    assert secrets == {
        "TINY_HARNESS_TEMPORAL__API_KEY",
        "TINY_HARNESS_MODEL__API_KEY",
        "TINY_HARNESS_PUSH_KEY",
        "TINY_HARNESS_O11Y__OTLP_HEADERS",
        "TINY_HARNESS_STORE__URL",
    }
    markdown = reference_markdown()
    assert markdown.count("**Secret: environment only.**") == len(secrets)


def test_the_defaults_shown_are_a_fresh_configurations() -> None:
    shown = {s.key: s.default for s in settings_reference()}

    assert shown["server.port"] == "8080"
    assert shown["temporal.task_queue"] == "tiny-harness"
    assert shown["heartbeat.interval"] == "PT30S"
    assert shown["retention.task"] == "P30D"
    assert shown["retries.default.maximum_attempts"] == "5"
    assert shown["model.api_key"] == ""
    fresh = load_settings(environ={})
    assert shown["loop.max_model_calls"] == str(fresh.loop.max_model_calls)


def test_env_example_names_only_settings_the_reference_has() -> None:
    named = set(re.findall(r"\b(TINY_HARNESS_[A-Z0-9_]+)=", ENV_EXAMPLE.read_text()))
    known = {s.variable for s in settings_reference()}

    assert named
    assert named - known == set()

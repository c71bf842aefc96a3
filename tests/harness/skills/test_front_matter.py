"""Front matter: the Agent Skills field rules, `allowed-tools`, and splitting a SKILL.md."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tiny_harness.harness.skills import SkillFrontMatter, split_front_matter


def front_matter(**fields: object) -> SkillFrontMatter:
    return SkillFrontMatter.model_validate({"name": "my-skill", "description": "Does x."} | fields)


def test_allowed_tools_string_is_split_on_whitespace() -> None:
    parsed = front_matter(**{"allowed-tools": "read_file  Bash(git:*)\trun_script"})

    assert parsed.allowed_tools == ("read_file", "Bash(git:*)", "run_script")


def test_allowed_tools_defaults_to_none() -> None:
    assert front_matter().allowed_tools == ()


def test_allowed_tools_yaml_list_is_kept_as_given() -> None:
    assert front_matter(**{"allowed-tools": ["a", "b"]}).allowed_tools == ("a", "b")


def test_allowed_tools_list_entry_with_a_space_is_refused() -> None:
    with pytest.raises(ValidationError, match="cannot be empty or hold spaces"):
        front_matter(**{"allowed-tools": ["read file"]})


def test_allowed_tools_under_the_python_name_is_an_unknown_key() -> None:
    with pytest.raises(ValidationError, match="allowed_tools"):
        front_matter(allowed_tools="read_file")


def test_optional_fields_are_read() -> None:
    parsed = front_matter(
        license="MIT", compatibility="Needs git.", metadata={"author": "me", "version": "1.0"}
    )

    assert parsed.license == "MIT"
    assert parsed.compatibility == "Needs git."
    assert parsed.metadata == {"author": "me", "version": "1.0"}


@pytest.mark.parametrize("name", ["a", "pdf-tools", "v2", "a-b-c", "x" * 64])
def test_valid_names_are_accepted(name: str) -> None:
    assert front_matter(name=name).name == name


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "1 to 64"),
        ("x" * 65, "1 to 64"),
        ("PDF-tools", "lowercase"),
        ("pdf_tools", "lowercase"),
        ("pdf tools", "lowercase"),
        ("-pdf", "start or end"),
        ("pdf-", "start or end"),
        ("pdf--tools", "two hyphens"),
    ],
)
def test_invalid_names_are_refused_with_the_rule_they_break(name: str, problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        front_matter(name=name)


@pytest.mark.parametrize("description", ["", "   ", "x" * 1025])
def test_description_must_hold_1_to_1024_characters(description: str) -> None:
    with pytest.raises(ValidationError, match="description"):
        front_matter(description=description)


def test_compatibility_over_500_characters_is_refused() -> None:
    assert front_matter(compatibility="x" * 500).compatibility == "x" * 500
    with pytest.raises(ValidationError, match="compatibility"):
        front_matter(compatibility="x" * 501)


def test_metadata_values_must_be_strings() -> None:
    with pytest.raises(ValidationError, match=r"metadata\.version"):
        front_matter(metadata={"version": 1.0})


def test_unknown_key_is_refused() -> None:
    with pytest.raises(ValidationError, match="version"):
        front_matter(version="2")


def test_front_matter_is_frozen() -> None:
    parsed = front_matter()

    with pytest.raises(ValidationError):
        parsed.name = "other"  # type: ignore[misc]


def test_split_separates_yaml_from_body() -> None:
    text = "---\nname: a\ndescription: b\n---\n\n# Title\n\nBody.\n"

    assert split_front_matter(text) == ("name: a\ndescription: b", "# Title\n\nBody.")


def test_split_accepts_a_byte_order_mark_and_crlf() -> None:
    text = "\ufeff---\r\nname: a\r\n---\r\nBody\r\n"

    assert split_front_matter(text) == ("name: a", "Body")


@pytest.mark.parametrize(
    "text",
    ["", "# No front matter\n", "name: a\n---\n", "---\nname: a\nno closing line\n"],
)
def test_split_gives_none_without_front_matter(text: str) -> None:
    assert split_front_matter(text) is None

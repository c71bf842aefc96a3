"""`PromptEntity`: building from Markdown, section access, rendering, and validation."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tiny_harness.errors import PromptError
from tiny_harness.harness.entities import (
    EntityKind,
    EntityRef,
    Registry,
    RegistryEntry,
)
from tiny_harness.harness.prompts import PromptEntity, PromptSection

MARKDOWN = "Intro.\n\n## Role\nYou are x.\n\n## rules\n### hard\nNever y.\n"


def test_from_markdown_builds_an_unversioned_prompt_ref() -> None:
    prompt = PromptEntity.from_markdown("greeting", MARKDOWN, source="greeting.md")

    assert prompt.ref == EntityRef(kind=EntityKind.PROMPT, id="greeting")
    assert prompt.kind is EntityKind.PROMPT
    assert prompt.section_names == ("preamble", "role", "rules")


def test_from_markdown_keeps_front_matter_out_of_the_sections() -> None:
    prompt = PromptEntity.from_markdown(
        "extra", "---\nextends: rules\n---\nBe kind.\n", source="extra.md"
    )

    assert prompt.front_matter == {"extends": "rules"}
    assert prompt.sections == (PromptSection(name="preamble", text="Be kind."),)
    assert "extends" not in prompt.render()


def test_from_markdown_raises_prompt_error_for_duplicate_sections() -> None:
    with pytest.raises(PromptError, match=r"bad\.md: section 'role' appears twice"):
        PromptEntity.from_markdown("bad", "## role\na\n## role\nb", source="bad.md")


def test_section_finds_by_normalised_name() -> None:
    prompt = PromptEntity.from_markdown("p", MARKDOWN, source="p.md")

    assert prompt.section(" ROLE ") == PromptSection(name="role", text="You are x.")
    assert prompt.section("tools") is None


def test_render_round_trips_through_from_markdown() -> None:
    prompt = PromptEntity.from_markdown("p", MARKDOWN, source="p.md")

    again = PromptEntity.from_markdown("p", prompt.render(), source="rendered")

    assert again == prompt
    assert prompt.render() == MARKDOWN.replace("## Role", "## role")


def test_a_prompt_needs_a_prompt_kind_ref() -> None:
    with pytest.raises(ValidationError, match="must be of kind prompt"):
        PromptEntity(ref=EntityRef(kind=EntityKind.TOOL, id="p"), sections=())


def test_a_prompt_built_directly_refuses_repeated_section_names() -> None:
    sections = (PromptSection(name="a", text="1"), PromptSection(name="A", text="2"))

    with pytest.raises(ValidationError, match="'a' appears twice"):
        PromptEntity(ref=EntityRef(kind=EntityKind.PROMPT, id="p"), sections=sections)


def test_a_prompt_is_frozen() -> None:
    prompt = PromptEntity.from_markdown("p", MARKDOWN, source="p.md")

    with pytest.raises(ValidationError):
        prompt.sections = ()  # type: ignore[misc]


def test_a_prompt_survives_a_json_round_trip() -> None:
    prompt = PromptEntity.from_markdown("p", "---\na: b\n---\n" + MARKDOWN, source="p.md")

    assert PromptEntity.model_validate_json(prompt.model_dump_json()) == prompt


async def test_a_prompt_is_a_registry_entity() -> None:
    prompt = PromptEntity.from_markdown("p", MARKDOWN, source="p.md")
    registry = Registry()
    await registry.add(RegistryEntry(ref=prompt.ref, instance=prompt))

    assert await registry.get(prompt.ref, PromptEntity) is prompt

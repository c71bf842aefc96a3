"""`SystemPrompt`: replacing the base, extending sections, rendering the static prefix, and
the built-in default."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tiny_harness.errors import PromptError
from tiny_harness.harness.prompts import (
    SYSTEM_PROMPT_ID,
    PromptEntity,
    SystemPrompt,
    load_builtin_system_prompt,
    split_front_matter,
)

BASE = "## role\nYou are x.\n\n## participants\nAlice.\n\n## rules\nBe brief.\n"
BUILTIN_FILE = Path(__file__).parents[3] / "tiny_harness" / "builtin" / "systemprompt.md"


def prompt(text: str = BASE, prompt_id: str = "system") -> PromptEntity:
    return PromptEntity.from_markdown(prompt_id, text, source=f"{prompt_id}.md")


def system(text: str = BASE, *, dynamic: frozenset[str] = frozenset()) -> SystemPrompt:
    return SystemPrompt(base=prompt(text), dynamic=dynamic)


def section_text(system_prompt: SystemPrompt, name: str) -> str:
    section = system_prompt.prompt.section(name)
    assert section is not None
    return section.text


# replace


def test_replace_swaps_the_whole_prompt() -> None:
    replacement = prompt("## role\nYou are y.\n", "plugin-system")

    replaced = system().replace(replacement)

    assert replaced.prompt == replacement
    assert replaced.render_static() == "## role\nYou are y.\n"


def test_replace_leaves_the_original_unchanged() -> None:
    original = system()

    original.replace(prompt("## role\nOther.\n"))

    assert original.render_static() == BASE


def test_the_last_replace_wins() -> None:
    first, second = prompt("## a\n1\n", "first"), prompt("## b\n2\n", "second")

    assert system().replace(first).replace(second).prompt == second


def test_an_extension_survives_a_later_replace() -> None:
    extended = system().extend("rules", "Be kind.")

    replaced = extended.replace(prompt("## rules\nNew rules.\n", "plugin"))

    assert section_text(replaced, "rules") == "New rules.\n\nBe kind."


def test_replace_refuses_a_prompt_without_an_extended_section() -> None:
    extended = system().extend("participants", "Bob.")

    with pytest.raises(PromptError, match="no section 'participants'") as caught:
        extended.replace(prompt("## role\nx\n", "plugin"))
    assert caught.value.section == "participants"


# extend


def test_extend_appends_to_the_section_after_a_blank_line() -> None:
    extended = system().extend("rules", "\n\nBe kind.\n\n")

    assert section_text(extended, "rules") == "Be brief.\n\nBe kind."
    assert extended.prompt.section_names == ("role", "participants", "rules")


def test_two_extensions_of_one_section_append_in_call_order() -> None:
    extended = system().extend("participants", "Bob.").extend("participants", "Carol.")

    assert section_text(extended, "participants") == "Alice.\n\nBob.\n\nCarol."


def test_extend_matches_the_section_name_case_insensitively() -> None:
    assert section_text(system().extend(" Rules ", "Be kind."), "rules").endswith("Be kind.")


def test_extend_leaves_the_original_unchanged() -> None:
    original = system()

    original.extend("rules", "Be kind.")

    assert original.render_static() == BASE


def test_extending_an_empty_section_gives_just_the_extension() -> None:
    assert section_text(system("## tools\n\n## rules\nx").extend("tools", "t"), "tools") == "t"


def test_a_blank_extension_changes_nothing() -> None:
    original = system()

    assert original.extend("rules", "  \n\n") == original


def test_extending_an_unknown_section_raises_prompt_error_naming_it() -> None:
    with pytest.raises(PromptError, match=r"cannot extend section 'skills'.*role") as caught:
        system().extend("Skills", "A skill.")

    assert caught.value.section == "skills"


def test_a_plugin_prompt_file_extends_through_its_front_matter() -> None:
    front_matter, body = split_front_matter("---\nextends: rules\n---\n\nCite sources.\n")

    extended = system().extend(front_matter["extends"], body)

    assert section_text(extended, "rules") == "Be brief.\n\nCite sources."


def test_building_with_an_extension_of_a_missing_section_is_refused() -> None:
    extended = system().extend("rules", "x")

    with pytest.raises(ValidationError, match="no section 'rules' to extend"):
        SystemPrompt(base=prompt("## role\nx\n"), extensions=extended.extensions)


# render_static


def test_render_static_renders_every_section_by_default() -> None:
    assert system().render_static() == BASE


def test_render_static_leaves_out_dynamic_sections_keeping_order() -> None:
    rendered = system(dynamic=frozenset({"Participants", "tools"})).render_static()

    assert rendered == "## role\nYou are x.\n\n## rules\nBe brief.\n"


def test_render_static_includes_extensions() -> None:
    rendered = system().extend("role", "Be precise.").render_static()

    assert rendered.startswith("## role\nYou are x.\n\nBe precise.\n\n## participants")


def test_dynamic_is_kept_through_replace_and_extend() -> None:
    composed = system(dynamic=frozenset({"participants"})).extend("rules", "k").replace(prompt())

    assert "participants" not in composed.render_static()


# the built-in system prompt


def test_builtin_system_prompt_has_role_task_and_rules() -> None:
    builtin = load_builtin_system_prompt()

    assert builtin.ref.id == SYSTEM_PROMPT_ID == "system"
    assert builtin.section_names == ("role", "task", "rules")
    assert all(section.text for section in builtin.sections)


def test_builtin_system_prompt_renders_as_its_file() -> None:
    builtin = load_builtin_system_prompt()

    assert SystemPrompt(base=builtin).render_static() == BUILTIN_FILE.read_text("utf-8")

"""Parsing prompt Markdown into sections, rendering it back, and splitting front matter."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tiny_harness.errors import PromptError
from tiny_harness.harness.prompts import (
    PromptSection,
    parse_sections,
    render_sections,
    split_front_matter,
)


def parse(markdown: str) -> dict[str, str]:
    return {s.name: s.text for s in parse_sections(markdown, source="test.md")}


# parse_sections


def test_level_two_headings_split_sections_in_order() -> None:
    sections = parse_sections("## role\nYou are x.\n\n## rules\nBe brief.\n", source="t.md")

    assert sections == (
        PromptSection(name="role", text="You are x."),
        PromptSection(name="rules", text="Be brief."),
    )


def test_section_names_are_stripped_and_lower_cased() -> None:
    assert list(parse("##   Role Play  \nx\n## RULES ##\ny")) == ["role play", "rules"]


def test_text_before_the_first_heading_is_the_preamble() -> None:
    assert parse("Intro line.\n\n## role\nx") == {"preamble": "Intro line.", "role": "x"}


def test_a_blank_preamble_is_dropped() -> None:
    assert list(parse("\n   \n\n## role\nx")) == ["role"]


def test_text_without_headings_is_one_preamble_section() -> None:
    assert parse("Just text.\nMore.") == {"preamble": "Just text.\nMore."}


@pytest.mark.parametrize("markdown", ["", "\n\n", "  \n"])
def test_blank_text_has_no_sections(markdown: str) -> None:
    assert parse_sections(markdown, source="t.md") == ()


def test_other_heading_levels_stay_inside_the_section_text() -> None:
    markdown = "# Title\n## tools\n### search\nFinds.\n#### deep\n##no-space\n#x"

    assert parse(markdown) == {
        "preamble": "# Title",
        "tools": "### search\nFinds.\n#### deep\n##no-space\n#x",
    }


def test_a_heading_inside_a_code_fence_stays_inside_the_section() -> None:
    markdown = "## rules\n```markdown\n## not a section\n```\nAfter.\n~~~~\n## nor this\n~~~~"

    assert parse(markdown) == {
        "rules": "```markdown\n## not a section\n```\nAfter.\n~~~~\n## nor this\n~~~~"
    }


def test_indented_content_and_inner_blank_lines_are_kept() -> None:
    assert parse("## code\n\n    indented\n\n    more\n\n")["code"] == "    indented\n\n    more"


def test_crlf_and_a_byte_order_mark_are_accepted() -> None:
    assert parse("\ufeff## role\r\nYou are x.\r\n") == {"role": "You are x."}


def test_a_duplicate_section_raises_prompt_error_naming_it() -> None:
    with pytest.raises(PromptError, match=r"test\.md: section 'rules' appears twice") as caught:
        parse("## rules\na\n## Rules\nb")

    assert caught.value.section == "rules"
    assert caught.value.source == "test.md"


def test_a_preamble_heading_after_preamble_text_is_a_duplicate() -> None:
    with pytest.raises(PromptError, match="'preamble' appears twice"):
        parse("Intro.\n## preamble\nx")


@pytest.mark.parametrize("heading", ["##", "##   ", "## ##"])
def test_a_heading_without_a_name_raises_prompt_error(heading: str) -> None:
    with pytest.raises(PromptError, match="has no section name"):
        parse(f"{heading}\ntext")


def test_section_name_is_normalised_when_built_directly() -> None:
    assert PromptSection(name="  Rules ", text="").name == "rules"


@pytest.mark.parametrize("name", ["", "  ", "two\nlines"])
def test_section_name_must_be_one_non_empty_line(name: str) -> None:
    with pytest.raises(ValidationError, match="one non-empty line"):
        PromptSection(name=name, text="")


# render_sections


@pytest.mark.parametrize(
    "markdown",
    [
        "## role\nYou are x.\n\n## rules\nBe brief.\n",
        "Intro.\n\n## role\n### sub\ntext\n\n## empty\n\n## last\n```\n## fenced\n```\n",
    ],
)
def test_render_then_parse_round_trips(markdown: str) -> None:
    sections = parse_sections(markdown, source="t.md")

    rendered = render_sections(sections)

    assert parse_sections(rendered, source="t.md") == sections
    assert rendered == markdown


def test_a_first_section_named_preamble_renders_headless_and_parses_back() -> None:
    sections = parse_sections("## preamble\nnamed\n\n## role\nx", source="t.md")

    rendered = render_sections(sections)

    assert rendered == "named\n\n## role\nx\n"
    assert parse_sections(rendered, source="t.md") == sections


def test_render_writes_a_later_preamble_section_under_a_heading() -> None:
    sections = (PromptSection(name="role", text="x"), PromptSection(name="preamble", text="y"))

    assert render_sections(sections) == "## role\nx\n\n## preamble\ny\n"


def test_render_of_no_sections_is_empty() -> None:
    assert render_sections(()) == ""


# split_front_matter


def test_front_matter_is_split_from_the_body() -> None:
    matter, body = split_front_matter("---\nextends: rules\ntitle: Extra\n---\nBe kind.\n")

    assert matter == {"extends": "rules", "title": "Extra"}
    assert body == "Be kind.\n"


def test_text_without_front_matter_is_returned_whole() -> None:
    text = "## role\nx\n---\nnot front matter\n---\n"

    assert split_front_matter(text) == ({}, text)


def test_an_empty_front_matter_block_is_an_empty_mapping() -> None:
    assert split_front_matter("---\n---\nBody") == ({}, "Body")


def test_front_matter_with_crlf_line_endings_is_split() -> None:
    assert split_front_matter("---\r\nextends: rules\r\n---\r\nBody") == (
        {"extends": "rules"},
        "Body",
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("---\nextends: rules\n", "no closing '---'"),
        ("---\n- a\n- b\n---\n", "must be a mapping"),
        ("---\njust a string\n---\n", "must be a mapping"),
        ("---\nextends: [a\n---\n", "not valid YAML"),
        ("---\nextends: 1.0\n---\n", "'extends': keys and values must be strings"),
        ("---\nextends:\n---\n", "'extends': keys and values must be strings"),
        ("---\n1: rules\n---\n", "1: keys and values must be strings"),
        ("---\nextends: {a: b}\n---\n", "keys and values must be strings"),
    ],
)
def test_malformed_front_matter_raises_prompt_error(text: str, problem: str) -> None:
    with pytest.raises(PromptError, match=f"^p.md: front matter.*{problem}") as caught:
        split_front_matter(text, source="p.md")

    assert caught.value.source == "p.md"

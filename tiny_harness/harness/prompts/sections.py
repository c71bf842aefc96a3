"""Prompt Markdown, read as named sections and optional YAML front matter.

    ---                      front matter: split off by `split_front_matter`
    extends: rules           (a YAML mapping of strings)
    ---
    Text before any heading. section "preamble" (only when not blank)
    ## Role                  section "role": names are stripped and lower-cased
    You are …
    ### Detail               other heading levels stay inside the section's text
    ## rules                 section "rules"

Only ATX level-2 headings (`## name`, up to three spaces of indent, optional closing `#`s)
split sections, and never inside a fenced code block. A section's text is its lines
without the blank lines around them. This module parses and renders text; it reads no
files and knows nothing of which sections a system prompt has.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import yaml
from pydantic import BaseModel, field_validator

from tiny_harness.errors import PromptError

PREAMBLE: Final = "preamble"
"""The name of the section holding the text before the first heading."""

# The lazy `??` tries "no name" first, so `## ##` is an empty heading (CommonMark).
_HEADING = re.compile(r"^ {0,3}##(?:[ \t]+(?P<name>.*?))??(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(?P<marker>`{3,}|~{3,})")
_DELIMITER: Final = "---"


class PromptSection(BaseModel, frozen=True):
    """One named section of a prompt. `name` is stored stripped and lower-cased."""

    name: str
    text: str

    @field_validator("name")
    @classmethod
    def _normalise_name(cls, value: str) -> str:
        name = value.strip().lower()
        if not name or "\n" in name or "\r" in name:
            raise ValueError("a section name is one non-empty line")
        return name


def parse_sections(markdown: str, *, source: str) -> tuple[PromptSection, ...]:
    """The sections of `markdown`, in order; `source` names the text in errors.

    Raises `PromptError` when two sections share a name (after normalising) or a heading
    has no name. Blank text yields no sections.
    """
    named: list[tuple[str, list[str]]] = [(PREAMBLE, [])]
    fence: str | None = None
    for line in markdown.removeprefix("\ufeff").splitlines():
        heading = None if fence is not None else _HEADING.match(line)
        fence = _next_fence(line, fence)
        if heading is None:
            named[-1][1].append(line)
            continue
        name = (heading.group("name") or "").strip().lower()
        if not name:
            raise PromptError(f"{source}: a '##' heading has no section name", source=source)
        if any(name == taken for taken, _ in named[1:]) or (
            name == PREAMBLE and _trim(named[0][1])
        ):
            raise PromptError(
                f"{source}: section {name!r} appears twice", source=source, section=name
            )
        named.append((name, []))
    preamble, *rest = named
    sections = [PromptSection(name=name, text=_trim(lines)) for name, lines in rest]
    if _trim(preamble[1]):
        sections.insert(0, PromptSection(name=PREAMBLE, text=_trim(preamble[1])))
    return tuple(sections)


def render_sections(sections: Iterable[PromptSection]) -> str:
    """`sections` as Markdown: `## name` then the text, a blank line between sections.

    A first section named "preamble" is written without a heading, so that
    `parse_sections(render_sections(s))` gives back `s` for parsed sections.
    """
    blocks: list[str] = []
    for index, section in enumerate(sections):
        if index == 0 and section.name == PREAMBLE:
            blocks.append(section.text)
        else:
            blocks.append(f"## {section.name}\n{section.text}".rstrip("\n"))
    return "\n\n".join(blocks) + "\n" if blocks else ""


def split_front_matter(text: str, *, source: str | None = None) -> tuple[dict[str, str], str]:
    """`(front matter, body)` of a prompt text; `({}, text)` when it has no front matter.

    Front matter opens with a first line `---` and closes with the next `---` line; it must
    be a YAML mapping of strings to strings (an empty block is an empty mapping). The body
    is everything after the closing line, unchanged. Raises `PromptError` for an unclosed
    block, invalid YAML, or a value that is not a mapping of strings.
    """
    where = f"{source}: " if source else ""
    lines = text.removeprefix("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].rstrip() != _DELIMITER:
        return {}, text
    end = next((i for i, line in enumerate(lines[1:], 1) if line.rstrip() == _DELIMITER), None)
    if end is None:
        raise PromptError(f"{where}front matter has no closing '---'", source=source)
    try:
        loaded: object = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as error:
        raise PromptError(f"{where}front matter is not valid YAML", source=source) from error
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise PromptError(f"{where}front matter must be a mapping", source=source)
    matter: dict[str, str] = {}
    for key, value in loaded.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise PromptError(
                f"{where}front matter entry {key!r}: keys and values must be strings",
                source=source,
            )
        matter[key] = value
    return matter, "".join(lines[end + 1 :])


def trim_blank_lines(text: str) -> str:
    """`text` without its leading and trailing blank (whitespace-only) lines."""
    return _trim(text.splitlines())


def _trim(lines: list[str]) -> str:
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    end = next((i for i in range(len(lines), start, -1) if lines[i - 1].strip()), start)
    return "\n".join(lines[start:end])


def _next_fence(line: str, fence: str | None) -> str | None:
    """The open fence marker after `line`, given the one open before it (None: none)."""
    found = _FENCE.match(line)
    if found is None:
        return fence
    marker = found.group("marker")
    if fence is None:
        return marker
    closes = marker[0] == fence[0] and len(marker) >= len(fence)
    return None if closes and not line[found.end() :].strip() else fence

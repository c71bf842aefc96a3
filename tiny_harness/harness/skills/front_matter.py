"""`SkillFrontMatter`: the YAML header of a `SKILL.md`, validated to the Agent Skills format.

A `SKILL.md` opens with a `---` line, YAML, and a closing `---` line; the Markdown after it
is the skill's body. `split_front_matter` separates the two. It reads no files, and it does
not check the name against the folder (the loader does, since only it knows the folder).

Field rules (agentskills.io): `name` is 1-64 lowercase letters, digits and hyphens, with
no hyphen at either end and none doubled; `description` is 1-1024 characters;
`compatibility`, when given, is 1-500; `metadata` maps strings to strings; `allowed-tools`
is a space-separated list of tool names (the spec marks it experimental). Any other key is
refused, so a typo never passes silently.
"""

from __future__ import annotations

import re
from typing import Annotated, Final

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

MAX_NAME_LENGTH: Final = 64
MAX_DESCRIPTION_LENGTH: Final = 1024
MAX_COMPATIBILITY_LENGTH: Final = 500

_NAME_CHARACTERS: Final = re.compile(r"[a-z0-9-]+")
_DELIMITER: Final = "---"


def _check_name(value: str) -> str:
    """The spec's name rule, one readable message per way of breaking it."""
    if not 1 <= len(value) <= MAX_NAME_LENGTH:
        raise PydanticCustomError(
            "skill_name", "must be 1 to {limit} characters", {"limit": MAX_NAME_LENGTH}
        )
    if not _NAME_CHARACTERS.fullmatch(value):
        raise PydanticCustomError("skill_name", "only lowercase letters, digits and hyphens")
    if value.startswith("-") or value.endswith("-"):
        raise PydanticCustomError("skill_name", "must not start or end with a hyphen")
    if "--" in value:
        raise PydanticCustomError("skill_name", "must not contain two hyphens in a row")
    return value


def _check_not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "must not be blank")
    return value


SkillName = Annotated[str, AfterValidator(_check_name)]
"""A skill name as the Agent Skills format allows it (also the skill's folder name)."""


def _check_tool_name(value: str) -> str:
    if not value or any(character.isspace() for character in value):
        raise PydanticCustomError("tool_name", "a tool name cannot be empty or hold spaces")
    return value


ToolName = Annotated[str, AfterValidator(_check_tool_name)]


class SkillFrontMatter(BaseModel):
    """The validated front matter of one skill. Build it from the parsed YAML mapping with
    `model_validate`, so `allowed-tools` is read under its hyphenated key."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: SkillName
    description: Annotated[
        str,
        Field(min_length=1, max_length=MAX_DESCRIPTION_LENGTH),
        AfterValidator(_check_not_blank),
    ]
    license: str | None = None
    compatibility: (
        Annotated[
            str,
            Field(min_length=1, max_length=MAX_COMPATIBILITY_LENGTH),
            AfterValidator(_check_not_blank),
        ]
        | None
    ) = None
    metadata: dict[str, str] = Field(default_factory=dict)
    allowed_tools: tuple[ToolName, ...] = Field(default=(), alias="allowed-tools")
    """Tools the skill is pre-approved to use; YAML gives one space-separated string."""

    @field_validator("allowed_tools", mode="before")
    @classmethod
    def _split_allowed_tools(cls, value: object) -> object:
        # The spec's form is one string; a YAML list is left to the tuple validation.
        if isinstance(value, str):
            return tuple(value.split())
        return value


def split_front_matter(text: str) -> tuple[str, str] | None:
    """`(yaml, body)` of a `SKILL.md` text, or None when it does not open with front matter.

    The front matter runs from a first line of `---` to the next line of `---`. The body is
    what follows, without its leading and trailing blank lines. A byte-order mark and CRLF
    line endings are accepted.
    """
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != _DELIMITER:
        return None
    for index, line in enumerate(lines[1:], start=1):
        if line.rstrip() == _DELIMITER:
            yaml_text = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :]).strip("\n")
            return yaml_text, body
    return None

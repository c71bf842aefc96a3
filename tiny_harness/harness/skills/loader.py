"""`SkillLoader`: turns skill folders into `Skill`s, or says why it cannot.

    folder ─► SKILL.md inside? ─► read (UTF-8, size cap) ─► split front matter
           ─► YAML mapping ─► SkillFrontMatter ─► name == folder name ─► Skill

A folder that fails any step gives a `SkillError` whose `reason` names the step. The loader
returns that error instead of raising it, so one broken skill never stops the others from
loading (`load_all`). It reads files and nothing else: no MCP servers, no registry.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import yaml
from pydantic import ValidationError

from tiny_harness.errors import SkillError, SkillLoadReason
from tiny_harness.harness.skills.front_matter import SkillFrontMatter, split_front_matter
from tiny_harness.harness.skills.skill import Skill

SKILL_FILE: Final = "SKILL.md"

MAX_SKILL_FILE_BYTES: Final = 1024 * 1024
"""The largest `SKILL.md` the loader reads (1 MiB); the spec advises far less."""

_FIELDS: Final = ", ".join(
    field.alias or name for name, field in SkillFrontMatter.model_fields.items()
)


class SkillLoader:
    """Loads skills from folders laid out in the Agent Skills format."""

    def load(self, directory: Path) -> Skill | SkillError:
        """The skill in `directory`, or the `SkillError` that says why there is none."""
        folder = Path(os.path.abspath(directory))
        if not folder.is_dir():
            return _error(folder, "not_a_directory", f"{str(folder)!r} is not a directory")
        root = folder.resolve()
        text = _read_skill_file(folder, root)
        if isinstance(text, SkillError):
            return text
        parts = split_front_matter(text)
        if parts is None:
            return _error(
                folder, "no_front_matter", f"{SKILL_FILE} does not open with '---' front matter"
            )
        yaml_text, body = parts
        front_matter = _front_matter(folder, yaml_text)
        if isinstance(front_matter, SkillError):
            return front_matter
        if front_matter.name != folder.name:
            return _error(
                folder,
                "name_mismatch",
                f"name: {front_matter.name!r} must equal the folder name {folder.name!r}",
            )
        return Skill(front_matter=front_matter, body=body, root=root)

    def load_all(self, parent: Path) -> tuple[list[Skill], list[SkillError]]:
        """Every skill in the subfolders of `parent`, by folder name, and the errors of the
        subfolders that are not skills. Files and hidden folders in `parent` are ignored."""
        if not parent.is_dir():
            return [], [_error(parent, "not_a_directory", f"{str(parent)!r} is not a directory")]
        skills: list[Skill] = []
        errors: list[SkillError] = []
        try:
            children = sorted(parent.iterdir(), key=lambda child: child.name)
        except OSError as error:
            return [], [
                _error(parent, "unreadable", f"{str(parent)!r} cannot be listed: {error.strerror}")
            ]
        for child in children:
            if child.name.startswith(".") or not child.is_dir():
                continue
            loaded = self.load(child)
            if isinstance(loaded, SkillError):
                errors.append(loaded)
            else:
                skills.append(loaded)
        return skills, errors


def _read_skill_file(folder: Path, root: Path) -> str | SkillError:
    path = folder / SKILL_FILE
    if not path.is_file():
        return _error(folder, "missing_skill_md", f"no {SKILL_FILE} in {str(folder)!r}")
    try:
        if not path.resolve(strict=True).is_relative_to(root):
            return _error(folder, "escapes_root", f"{SKILL_FILE} leads outside the folder")
        with path.open("rb") as handle:
            data = handle.read(MAX_SKILL_FILE_BYTES + 1)
    except (OSError, RuntimeError) as error:
        return _error(folder, "unreadable", f"{SKILL_FILE} cannot be read: {error}")
    if len(data) > MAX_SKILL_FILE_BYTES:
        return _error(folder, "too_large", f"{SKILL_FILE} is over {MAX_SKILL_FILE_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _error(folder, "unreadable", f"{SKILL_FILE} is not UTF-8 text")


def _front_matter(folder: Path, yaml_text: str) -> SkillFrontMatter | SkillError:
    try:
        loaded: object = yaml.safe_load(yaml_text)
    except yaml.YAMLError as error:
        return _error(folder, "invalid_front_matter", f"front matter: {_yaml_problem(error)}")
    if not isinstance(loaded, dict):
        return _error(folder, "invalid_front_matter", "front matter: not a mapping of fields")
    try:
        return SkillFrontMatter.model_validate(loaded)
    except ValidationError as error:
        return _error(folder, "invalid_field", _summarise(error))


def _yaml_problem(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError) and error.problem:
        mark = error.problem_mark
        # +2: the mark counts from 0, and SKILL.md's first line is the opening `---`.
        return error.problem if mark is None else f"{error.problem} (line {mark.line + 2})"
    return "not valid YAML"


def _summarise(error: ValidationError) -> str:
    """One short `field: problem` clause per failure, joined by `; `."""
    clauses: list[str] = []
    for detail in error.errors():
        where = ".".join(str(part) for part in detail["loc"]) or "front matter"
        if detail["type"] == "extra_forbidden":
            clauses.append(f"{where}: not a front-matter field (allowed: {_FIELDS})")
        else:
            clauses.append(f"{where}: {detail['msg']}")
    return "; ".join(clauses)


def _error(folder: Path, reason: SkillLoadReason, message: str) -> SkillError:
    return SkillError(message, path=folder, reason=reason)

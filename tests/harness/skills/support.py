"""Helpers for the skills tests."""

from __future__ import annotations

from pathlib import Path

from tiny_harness.harness.skills import Skill, SkillLoader

FIXTURES = Path(__file__).parents[2] / "fixtures" / "skills"
"""The committed fixture skills (tests/fixtures/skills)."""


def load(directory: Path) -> Skill:
    """The skill in `directory`; fails the test when it does not load."""
    loaded = SkillLoader().load(directory)
    assert isinstance(loaded, Skill), loaded
    return loaded


def write_skill(directory: Path, front_matter: str, body: str = "Body.") -> Path:
    """A skill folder at `directory` whose SKILL.md holds `front_matter` and `body`."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "SKILL.md").write_text(f"---\n{front_matter}\n---\n{body}\n", encoding="utf-8")
    return directory

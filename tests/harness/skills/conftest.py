"""Fixtures for the skills tests: the valid fixture skill, loaded or as a writable copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.harness.skills.support import FIXTURES, load
from tiny_harness.harness.skills import Skill


@pytest.fixture
def pdf_tools() -> Skill:
    return load(FIXTURES / "pdf-tools")


@pytest.fixture
def skill_copy(tmp_path: Path) -> Path:
    """A writable copy of the `pdf-tools` fixture, for tests that add files to it."""
    target = tmp_path / "skills" / "pdf-tools"
    shutil.copytree(FIXTURES / "pdf-tools", target)
    return target

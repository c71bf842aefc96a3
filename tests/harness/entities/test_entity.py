"""`EntityRef`: id and version validation, version matching, and its string form."""

from __future__ import annotations

import pytest
from packaging.version import Version
from pydantic import ValidationError

from tests.harness.entities.support import Thing, tool_ref
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.entities.entity import LATEST


@pytest.mark.parametrize("entity_id", ["", "   ", "\t\n"])
def test_ref_rejects_an_empty_id(entity_id: str) -> None:
    with pytest.raises(ValidationError, match="cannot be empty"):
        EntityRef(kind=EntityKind.TOOL, id=entity_id)


@pytest.mark.parametrize("version", ["abc", "1.0-final-final", ">=x", "==", "latest"])
def test_ref_rejects_an_invalid_version(version: str) -> None:
    with pytest.raises(ValidationError, match="neither a PEP 440 version nor a specifier"):
        tool_ref(version=version)


@pytest.mark.parametrize("version", ["", "  "])
def test_ref_rejects_a_blank_version(version: str) -> None:
    # packaging reads "" as an empty SpecifierSet (admits everything); a blank version
    # is a mistake, not a way of spelling "latest".
    with pytest.raises(ValidationError, match="cannot be blank"):
        tool_ref(version=version)


@pytest.mark.parametrize("version", [None, LATEST, "1.2.0", "2", ">=1,<2", "~=1.2", "==1.*"])
def test_ref_accepts_versions_latest_and_specifiers(version: str | None) -> None:
    assert tool_ref(version=version).version == version


def test_ref_is_frozen_and_hashable() -> None:
    ref = tool_ref(version="1.0")

    with pytest.raises(ValidationError):
        ref.id = "other"  # type: ignore[misc]
    assert {ref, tool_ref(version="1.0")} == {ref}


@pytest.mark.parametrize(
    ("version", "concrete"),
    [(None, None), (LATEST, None), (">=1", None), ("1.2", Version("1.2"))],
)
def test_concrete_version_only_for_a_plain_version(
    version: str | None, concrete: Version | None
) -> None:
    assert tool_ref(version=version).concrete_version() == concrete


@pytest.mark.parametrize(
    ("version", "candidate", "expected"),
    [
        (None, "3.0", True),
        (LATEST, "3.0", True),
        ("1.2", "1.2.0", True),
        ("1.2", "1.2.1", False),
        (">=1,<2", "1.9", True),
        (">=1,<2", "2.0", False),
    ],
)
def test_matches_reads_a_plain_version_as_exact_and_a_specifier_as_a_range(
    version: str | None, candidate: str, expected: bool
) -> None:
    assert tool_ref(version=version).matches(Version(candidate)) is expected


def test_str_is_kind_id_and_version() -> None:
    assert str(tool_ref("search", "1.0")) == "tool:search@1.0"
    assert str(EntityRef(kind=EntityKind.PROMPT, id="system")) == "prompt:system"


def test_entity_kind_comes_from_the_subclass() -> None:
    ref = EntityRef(kind=EntityKind.LLM, id="fake")

    assert Thing(ref).kind is EntityKind.LLM

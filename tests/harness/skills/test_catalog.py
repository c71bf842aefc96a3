"""SkillCatalog and the five skill intrinsics: the prompt index, lookups by name, and the
result text each intrinsic gives the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.skills.support import FIXTURES, load, write_skill
from tiny_harness.errors import RegistryConflictError, SkillResourceError, UnknownSkillError
from tiny_harness.harness.skills import (
    SKILL_TOOL_SPECS,
    ListSkillResourcesArgs,
    ListSkillsArgs,
    LoadSkillArgs,
    LoadSkillResourceArgs,
    SkillCatalog,
    UnloadSkillArgs,
    list_skill_resources,
    list_skills,
    load_skill,
    load_skill_resource,
    unload_skill,
)


@pytest.fixture
def catalog() -> SkillCatalog:
    return SkillCatalog([load(FIXTURES / "release-notes"), load(FIXTURES / "pdf-tools")])


def test_names_are_sorted(catalog: SkillCatalog) -> None:
    assert catalog.names() == ("pdf-tools", "release-notes")
    assert len(catalog) == 2
    assert "pdf-tools" in catalog


def test_get_returns_the_skill_by_name(catalog: SkillCatalog) -> None:
    assert catalog.get("pdf-tools").name == "pdf-tools"


def test_get_of_an_unknown_name_raises_with_the_known_names(catalog: SkillCatalog) -> None:
    with pytest.raises(UnknownSkillError, match="known: pdf-tools, release-notes") as caught:
        catalog.get("absent")

    assert caught.value.name == "absent"
    assert caught.value.reason == "unknown_skill"


def test_adding_a_name_twice_needs_override(catalog: SkillCatalog, tmp_path: Path) -> None:
    other = load(write_skill(tmp_path / "pdf-tools", "name: pdf-tools\ndescription: Other."))

    with pytest.raises(RegistryConflictError):
        catalog.add(other)
    catalog.add(other, override=True)

    assert catalog.get("pdf-tools").description == "Other."


def test_index_is_one_line_per_skill_with_whitespace_collapsed(catalog: SkillCatalog) -> None:
    assert catalog.index() == (
        "- pdf-tools: Extract text and tables from PDF files. Use when the user mentions a PDF.\n"
        "- release-notes: Write release notes from a list of merged changes."
    )


def test_index_of_an_empty_catalog_is_empty() -> None:
    assert SkillCatalog().index() == ""


def test_list_skills_gives_the_index(catalog: SkillCatalog) -> None:
    assert list_skills(catalog, ListSkillsArgs()) == catalog.index()
    assert list_skills(SkillCatalog(), ListSkillsArgs()) == "No skills are available."


def test_load_skill_gives_the_body(catalog: SkillCatalog) -> None:
    text = load_skill(catalog, LoadSkillArgs(name="release-notes"))

    assert text == "Group the changes by kind, newest first."


def test_unload_skill_confirms(catalog: SkillCatalog) -> None:
    text = unload_skill(catalog, UnloadSkillArgs(name="pdf-tools"))

    assert text == "Skill 'pdf-tools' unloaded; its instructions no longer apply."


def test_list_skill_resources_gives_one_line_per_resource(catalog: SkillCatalog) -> None:
    text = list_skill_resources(catalog, ListSkillResourcesArgs(name="pdf-tools"))

    lines = text.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "- scripts/extract.sh",
        "- references/guide.md",
        "- assets/template.txt",
    ]
    size = (FIXTURES / "pdf-tools" / "scripts" / "extract.sh").stat().st_size
    assert lines[0] == f"- scripts/extract.sh (script, {size} bytes)"


def test_list_skill_resources_of_a_skill_without_any(catalog: SkillCatalog) -> None:
    text = list_skill_resources(catalog, ListSkillResourcesArgs(name="release-notes"))

    assert text == "Skill 'release-notes' has no resources."


def test_load_skill_resource_gives_the_file_text(catalog: SkillCatalog) -> None:
    args = LoadSkillResourceArgs(name="pdf-tools", path="assets/template.txt")

    assert load_skill_resource(catalog, args) == "Title: {title}\n"


def test_load_skill_resource_refuses_a_path_outside_the_listing(catalog: SkillCatalog) -> None:
    args = LoadSkillResourceArgs(name="pdf-tools", path="../release-notes/SKILL.md")

    with pytest.raises(SkillResourceError):
        load_skill_resource(catalog, args)


def test_every_intrinsic_raises_for_an_unknown_skill(catalog: SkillCatalog) -> None:
    with pytest.raises(UnknownSkillError):
        load_skill(catalog, LoadSkillArgs(name="absent"))
    with pytest.raises(UnknownSkillError):
        unload_skill(catalog, UnloadSkillArgs(name="absent"))
    with pytest.raises(UnknownSkillError):
        list_skill_resources(catalog, ListSkillResourcesArgs(name="absent"))
    with pytest.raises(UnknownSkillError):
        load_skill_resource(catalog, LoadSkillResourceArgs(name="absent", path="x"))


def test_tool_specs_are_the_five_intrinsics_with_closed_schemas() -> None:
    assert [spec.name for spec in SKILL_TOOL_SPECS] == [
        "list_skills",
        "load_skill",
        "unload_skill",
        "list_skill_resources",
        "load_skill_resource",
    ]
    for spec in SKILL_TOOL_SPECS:
        schema = spec.args.model_json_schema()
        assert spec.description
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
    assert LoadSkillResourceArgs.model_json_schema()["required"] == ["name", "path"]

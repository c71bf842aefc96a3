"""SkillLoader: a valid folder becomes a Skill; every broken one gives a SkillError with
its reason, returned rather than raised, and never stops the other skills loading."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.skills.support import FIXTURES, load, write_skill
from tiny_harness.errors import SkillError, SkillLoadReason
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.skills import Skill, SkillLoader


def failure(directory: Path) -> SkillError:
    loaded = SkillLoader().load(directory)
    assert isinstance(loaded, SkillError), loaded
    return loaded


def test_valid_skill_loads_with_front_matter_body_and_ref(pdf_tools: Skill) -> None:
    assert pdf_tools.ref == EntityRef(kind=EntityKind.SKILL, id="pdf-tools")
    assert pdf_tools.kind is EntityKind.SKILL
    assert pdf_tools.name == "pdf-tools"
    assert pdf_tools.description == (
        "Extract text and tables from PDF files. Use when the user mentions a PDF.\n"
    )
    assert pdf_tools.front_matter.license == "Apache-2.0"
    assert pdf_tools.front_matter.metadata == {"author": "tiny-harness tests", "version": "1.0"}
    assert pdf_tools.front_matter.allowed_tools == ("read_file", "run_script")
    assert pdf_tools.body.startswith("# PDF tools\n\n1. Read `references/guide.md`")
    assert pdf_tools.body.endswith("to get the text.")
    assert pdf_tools.root == (FIXTURES / "pdf-tools").resolve()


def test_mcp_config_path_is_the_skills_mcp_json(pdf_tools: Skill) -> None:
    assert pdf_tools.mcp_config_path == (FIXTURES / "pdf-tools").resolve() / "mcp.json"


def test_mcp_config_path_is_none_without_mcp_json() -> None:
    assert load(FIXTURES / "release-notes").mcp_config_path is None


def test_load_all_loads_the_valid_skills_and_reports_each_broken_one() -> None:
    skills, errors = SkillLoader().load_all(FIXTURES)

    assert [s.name for s in skills] == ["pdf-tools", "release-notes"]
    reasons = {error.path.name if error.path else None: error.reason for error in errors}
    assert reasons == {
        "no-skill-md": "missing_skill_md",
        "unknown-key": "invalid_field",
        "wrong-folder": "name_mismatch",
    }


def test_missing_skill_md_is_reported_with_the_folder_path() -> None:
    error = failure(FIXTURES / "no-skill-md")

    assert error.reason == "missing_skill_md"
    assert error.path == FIXTURES / "no-skill-md"
    assert "SKILL.md" in error.message


def test_name_not_matching_the_folder_is_refused() -> None:
    error = failure(FIXTURES / "wrong-folder")

    assert error.reason == "name_mismatch"
    assert error.message == "name: 'right-name' must equal the folder name 'wrong-folder'"


def test_unknown_front_matter_key_is_refused_with_a_short_message() -> None:
    error = failure(FIXTURES / "unknown-key")

    assert error.reason == "invalid_field"
    assert error.message.startswith("version: not a front-matter field (allowed: name, ")
    assert "allowed-tools" in error.message


def test_invalid_name_gives_a_field_message(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "Bad-Name", "name: Bad-Name\ndescription: d")

    error = failure(folder)

    assert error.reason == "invalid_field"
    assert error.message == "name: only lowercase letters, digits and hyphens"


def test_every_field_failure_is_listed(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "s", "name: s\nmetadata:\n  version: 1.0")

    error = failure(folder)

    assert error.message == (
        "description: Field required; metadata.version: Input should be a valid string"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# Just Markdown\n", "no_front_matter"),
        ("---\nname: s\ndescription: never closed\n", "no_front_matter"),
        ("---\nname: [unclosed\n---\nBody\n", "invalid_front_matter"),
        ("---\n- a\n- list\n---\nBody\n", "invalid_front_matter"),
        ("---\n---\nBody\n", "invalid_front_matter"),
    ],
)
def test_missing_or_malformed_front_matter_is_refused(
    tmp_path: Path, text: str, reason: SkillLoadReason
) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "SKILL.md").write_text(text, encoding="utf-8")

    assert failure(folder).reason == reason


def test_yaml_error_names_the_line_in_skill_md(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: s\ndescription: [x\n---\n", encoding="utf-8")

    assert "(line " in failure(folder).message


def test_skill_md_that_is_not_utf8_is_unreadable(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"---\nname: s\ndescription: caf\xe9\n---\n")

    error = failure(folder)

    assert error.reason == "unreadable"
    assert "UTF-8" in error.message


def test_skill_md_symlinked_from_outside_is_refused(tmp_path: Path) -> None:
    outside = write_skill(tmp_path / "elsewhere" / "s", "name: s\ndescription: d")
    folder = tmp_path / "skills" / "s"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(outside / "SKILL.md")

    assert failure(folder).reason == "escapes_root"


def test_a_path_that_is_not_a_directory_is_refused(tmp_path: Path) -> None:
    assert failure(tmp_path / "absent").reason == "not_a_directory"


def test_load_all_of_a_missing_parent_returns_one_error(tmp_path: Path) -> None:
    skills, errors = SkillLoader().load_all(tmp_path / "absent")

    assert skills == []
    assert [e.reason for e in errors] == ["not_a_directory"]


def test_load_all_skips_files_and_hidden_folders(tmp_path: Path) -> None:
    write_skill(tmp_path / "b-skill", "name: b-skill\ndescription: d")
    write_skill(tmp_path / "a-skill", "name: a-skill\ndescription: d")
    (tmp_path / ".cache").mkdir()
    (tmp_path / "notes.txt").write_text("not a skill", encoding="utf-8")

    skills, errors = SkillLoader().load_all(tmp_path)

    assert [s.name for s in skills] == ["a-skill", "b-skill"]
    assert errors == []


def test_folder_name_is_taken_after_normalising_the_path(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "s", "name: s\ndescription: d")

    assert load(folder / "sub" / "..").name == "s"

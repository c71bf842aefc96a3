"""Skill resources: files exactly one level deep in scripts/, references/ and assets/, and
`read_resource` refusing every path that is not one of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.skills.support import load
from tiny_harness.errors import SkillResourceError, SkillResourceReason
from tiny_harness.harness.skills import MAX_RESOURCE_BYTES, Skill, SkillResource


def refusal(skill: Skill, path: str) -> SkillResourceError:
    with pytest.raises(SkillResourceError) as caught:
        skill.read_resource(path)
    assert caught.value.resource == path
    assert caught.value.path == skill.root
    return caught.value


def test_resources_are_listed_one_level_deep_by_folder_then_name(pdf_tools: Skill) -> None:
    def size(path: str) -> int:
        return (pdf_tools.root / path).stat().st_size

    assert pdf_tools.resources() == (
        SkillResource(path="scripts/extract.sh", kind="script", size=size("scripts/extract.sh")),
        SkillResource(
            path="references/guide.md", kind="reference", size=size("references/guide.md")
        ),
        SkillResource(path="assets/template.txt", kind="asset", size=size("assets/template.txt")),
    )


def test_nested_folder_is_not_listed(pdf_tools: Skill) -> None:
    paths = [r.path for r in pdf_tools.resources()]

    assert not any("nested" in p for p in paths)


def test_skill_without_resource_folders_lists_none(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n", encoding="utf-8")

    assert load(folder).resources() == ()


def test_hidden_files_are_not_listed(skill_copy: Path) -> None:
    (skill_copy / "references" / ".secret").write_text("x", encoding="utf-8")

    assert ".secret" not in str(load(skill_copy).resources())


def test_read_resource_returns_the_text(pdf_tools: Skill) -> None:
    assert pdf_tools.read_resource("references/guide.md").startswith("# Extraction guide")


def test_read_resource_accepts_a_leading_dot_segment(pdf_tools: Skill) -> None:
    assert pdf_tools.read_resource("./assets/template.txt") == "Title: {title}\n"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../release-notes/SKILL.md", "parent_path"),
        ("references/../SKILL.md", "parent_path"),
        ("references/../../release-notes/SKILL.md", "parent_path"),
        ("..\\release-notes\\SKILL.md", "parent_path"),
        ("/etc/passwd", "absolute_path"),
        ("C:\\Windows\\win.ini", "absolute_path"),
        ("\\\\server\\share\\x", "absolute_path"),
        ("references/nested/deep.md", "not_a_resource"),
        ("SKILL.md", "not_a_resource"),
        ("mcp.json", "not_a_resource"),
        ("references", "not_a_resource"),
        ("references/absent.md", "not_a_resource"),
        ("", "not_a_resource"),
    ],
)
def test_read_resource_refuses_paths_outside_the_listing(
    pdf_tools: Skill, path: str, reason: SkillResourceReason
) -> None:
    assert refusal(pdf_tools, path).reason == reason


def test_symlink_escaping_the_root_is_not_listed_and_not_read(
    tmp_path: Path, skill_copy: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret", encoding="utf-8")
    (skill_copy / "references" / "leak.md").symlink_to(secret)
    skill = load(skill_copy)

    assert "references/leak.md" not in [r.path for r in skill.resources()]
    error = refusal(skill, "references/leak.md")
    assert error.reason == "escapes_root"
    assert "top secret" not in error.message


def test_symlinked_resource_folder_escaping_the_root_is_refused(
    tmp_path: Path, skill_copy: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.md").write_text("outside", encoding="utf-8")
    (skill_copy / "assets").rename(skill_copy / "assets-old")
    (skill_copy / "assets").symlink_to(outside, target_is_directory=True)
    skill = load(skill_copy)

    assert [r.kind for r in skill.resources()] == ["script", "reference"]
    assert refusal(skill, "assets/notes.md").reason == "escapes_root"


def test_symlink_staying_inside_the_root_is_listed_and_read(skill_copy: Path) -> None:
    (skill_copy / "references" / "alias.md").symlink_to(skill_copy / "references" / "guide.md")
    skill = load(skill_copy)

    assert "references/alias.md" in [r.path for r in skill.resources()]
    assert skill.read_resource("references/alias.md").startswith("# Extraction guide")


def test_dangling_symlink_is_not_listed(skill_copy: Path) -> None:
    (skill_copy / "scripts" / "gone.sh").symlink_to(skill_copy / "scripts" / "absent.sh")

    assert "scripts/gone.sh" not in [r.path for r in load(skill_copy).resources()]


def test_resource_at_the_size_limit_is_read_and_over_it_refused(skill_copy: Path) -> None:
    (skill_copy / "assets" / "limit.txt").write_bytes(b"a" * MAX_RESOURCE_BYTES)
    (skill_copy / "assets" / "big.txt").write_bytes(b"a" * (MAX_RESOURCE_BYTES + 1))
    skill = load(skill_copy)

    assert len(skill.read_resource("assets/limit.txt")) == MAX_RESOURCE_BYTES
    assert refusal(skill, "assets/big.txt").reason == "too_large"


def test_resource_that_is_not_utf8_is_refused(skill_copy: Path) -> None:
    (skill_copy / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")

    assert refusal(load(skill_copy), "assets/logo.png").reason == "not_utf8"

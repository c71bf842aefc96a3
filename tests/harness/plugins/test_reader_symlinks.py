"""Symlinks out of a plugin: each escaping component is skipped, the rest still load.

The links are made here, in tmp_path, so the repository never holds a symlink.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tiny_harness.errors import PluginError
from tiny_harness.harness.plugins import NAMESPACE, LoadReport, read_plugin

FIXTURES = Path(__file__).parents[2] / "fixtures" / "plugins"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES / "good", tmp_path / "plugin")
    outside = tmp_path / "outside"
    (outside / "skill").mkdir(parents=True)
    (outside / "skill" / "SKILL.md").write_text("---\nname: skill\n---\n")
    (outside / "outside.md").write_text("---\nextends: rules\n---\nleaked")
    (outside / "hooks.json").write_text('[{"name": "leaked", "import_path": "m:f"}]')
    (outside / "mcp.json").write_text('{"mcpServers": {"leaked": {"command": "x"}}}')
    return tmp_path / "plugin"


def outside(root: Path, name: str = "") -> Path:
    return root.parent / "outside" / name


def skipped(report: LoadReport) -> dict[tuple[str, str], str]:
    return {(c.kind, c.name): c.reason or "" for c in report.skipped()}


def read(root: Path) -> tuple[object, LoadReport]:
    return read_plugin(root, data_dir=root.parent / "data")


def test_prompt_linked_outside_is_skipped(root: Path) -> None:
    (root / NAMESPACE / "prompts" / "leak.md").symlink_to(outside(root, "outside.md"))

    plugin, report = read_plugin(root, data_dir=root.parent / "data")

    assert [p.id for p in plugin.prompts] == ["extra"]
    assert "outside the plugin root" in skipped(report)[("prompt", "leak")]


def test_prompt_linked_inside_is_loaded_at_its_target(root: Path) -> None:
    target = root / "shared.md"
    target.write_text("shared text")
    (root / NAMESPACE / "prompts" / "alias.md").symlink_to(target)

    plugin, _ = read_plugin(root, data_dir=root.parent / "data")

    assert [(p.id, p.path) for p in plugin.prompts] == [
        ("alias", target.resolve()),
        ("extra", (root / NAMESPACE / "prompts" / "extra.md").resolve()),
    ]


def test_systemprompt_linked_outside_is_skipped(root: Path) -> None:
    (root / NAMESPACE / "systemprompt.md").unlink()
    (root / NAMESPACE / "systemprompt.md").symlink_to(outside(root, "outside.md"))

    plugin, report = read_plugin(root, data_dir=root.parent / "data")

    assert plugin.systemprompt is None
    assert ("systemprompt", "systemprompt.md") in skipped(report)


def test_skill_folder_linked_outside_is_skipped(root: Path) -> None:
    (root / "skills" / "borrowed").symlink_to(outside(root, "skill"), target_is_directory=True)

    plugin, report = read_plugin(root, data_dir=root.parent / "data")

    assert [s.name for s in plugin.skills] == ["summarize"]
    assert ("skill", "borrowed") in skipped(report)


def test_skill_md_linked_outside_is_skipped(root: Path) -> None:
    skill = root / "skills" / "thin"
    skill.mkdir()
    (skill / "SKILL.md").symlink_to(outside(root, "skill") / "SKILL.md")

    plugin, report = read_plugin(root, data_dir=root.parent / "data")

    assert [s.name for s in plugin.skills] == ["summarize"]
    assert "outside the plugin root" in skipped(report)[("skill", "thin")]


def test_mcp_json_linked_outside_disables_mcp_only(root: Path) -> None:
    (root / "mcp.json").unlink()
    (root / "mcp.json").symlink_to(outside(root, "mcp.json"))

    plugin, report = read_plugin(root, data_dir=root.parent / "data")

    assert plugin.mcp == {}
    assert ("mcp", "mcp.json") in skipped(report)
    assert plugin.hooks


def test_namespace_directory_linked_outside_skips_its_components(root: Path) -> None:
    shutil.rmtree(root / NAMESPACE)
    (outside(root) / "prompts").mkdir()
    (outside(root) / "prompts" / "p.md").write_text("leaked")
    (outside(root) / "systemprompt.md").write_text("leaked")
    (root / NAMESPACE).symlink_to(outside(root), target_is_directory=True)

    plugin, report = read_plugin(root, data_dir=root.parent / "data")

    assert (plugin.hooks, plugin.prompts, plugin.systemprompt) == ((), (), None)
    assert set(skipped(report)) >= {
        ("hook", "hooks.json"),
        ("prompt", "prompts"),
        ("systemprompt", "systemprompt.md"),
    }
    assert plugin.skills
    assert plugin.mcp


def test_mcp_cwd_through_a_symlink_out_is_skipped(root: Path) -> None:
    (root / "work").symlink_to(outside(root), target_is_directory=True)
    (root / "mcp.json").write_text(
        '{"mcpServers": {"escapes": {"command": "x", "cwd": "./work"},'
        ' "stays": {"command": "x", "cwd": "${PLUGIN_ROOT}/skills"}}}'
    )

    plugin, report = read_plugin(root, data_dir=root.parent / "data")

    assert list(plugin.mcp) == ["stays"]
    assert "cwd:" in skipped(report)[("mcp", "escapes")]


def test_data_rooted_cwd_must_stay_in_the_data_directory(root: Path) -> None:
    (root / "mcp.json").write_text(
        '{"mcpServers": {"escapes": {"command": "x", "cwd": "${PLUGIN_DATA}/../.."},'
        ' "mid": {"command": "x", "cwd": "./${PLUGIN_DATA}"}}}'
    )

    plugin, report = read_plugin(root, data_dir=root.parent / "data")

    assert plugin.mcp == {}
    assert "cwd:" in skipped(report)[("mcp", "escapes")]
    assert "only start the path" in skipped(report)[("mcp", "mid")]


def test_manifest_linked_outside_rejects_the_plugin(root: Path) -> None:
    (outside(root) / "plugin.json").write_text('{"name": "other", "version": "1"}')
    (root / "plugin.json").unlink()
    (root / "plugin.json").symlink_to(outside(root, "plugin.json"))

    with pytest.raises(PluginError, match="outside the plugin root") as caught:
        read_plugin(root, data_dir=root.parent / "data")

    assert caught.value.manifest_path == root.resolve() / "plugin.json"


def test_root_given_through_a_symlink_is_resolved_first(root: Path) -> None:
    link = root.parent / "link"
    link.symlink_to(root, target_is_directory=True)

    plugin, report = read_plugin(link, data_dir=root.parent / "data")

    assert plugin.root == root.resolve()
    assert [c.name for c in report.skipped()] == ["x-marketplace"]

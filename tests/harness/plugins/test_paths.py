"""Path containment, placeholder expansion and the command guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiny_harness.errors import PluginError, PluginPathError
from tiny_harness.harness.plugins import check_command, expand, resolve_inside

VARIABLES = {"PLUGIN_ROOT": "/plugins/demo", "PLUGIN_DATA": "/data/demo"}


def test_resolve_inside_returns_an_absolute_path_under_the_root(tmp_path: Path) -> None:
    (tmp_path / "skills" / "a").mkdir(parents=True)

    resolved = resolve_inside(tmp_path, "skills/a")

    assert resolved == (tmp_path / "skills" / "a").resolve()
    assert resolved.is_absolute()


def test_resolve_inside_allows_paths_that_do_not_exist_yet(tmp_path: Path) -> None:
    assert resolve_inside(tmp_path, "./work/cache") == tmp_path.resolve() / "work" / "cache"


def test_resolve_inside_allows_dot_dot_that_stays_inside(tmp_path: Path) -> None:
    assert resolve_inside(tmp_path, "a/../b") == tmp_path.resolve() / "b"


@pytest.mark.parametrize("relative", ["..", "../outside.md", "a/../../x", "./sub/../../.."])
def test_resolve_inside_refuses_dot_dot_escapes(tmp_path: Path, relative: str) -> None:
    with pytest.raises(PluginPathError, match="outside the plugin root") as caught:
        resolve_inside(tmp_path / "root", relative)

    assert caught.value.path == relative


@pytest.mark.parametrize("relative", ["/etc/passwd", "/"])
def test_resolve_inside_refuses_absolute_paths(tmp_path: Path, relative: str) -> None:
    with pytest.raises(PluginPathError, match="absolute"):
        resolve_inside(tmp_path, relative)


def test_resolve_inside_refuses_an_empty_path(tmp_path: Path) -> None:
    with pytest.raises(PluginPathError, match="empty"):
        resolve_inside(tmp_path, "")


def test_resolve_inside_refuses_a_symlink_pointing_outside(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.md").write_text("secret")
    (root / "leak.md").symlink_to(tmp_path / "secret.md")

    with pytest.raises(PluginPathError, match="outside the plugin root"):
        resolve_inside(root, "leak.md")


def test_resolve_inside_refuses_a_path_through_a_symlinked_directory(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (root / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)

    with pytest.raises(PluginPathError):
        resolve_inside(root, "linked/file.md")


def test_resolve_inside_allows_a_symlink_that_stays_inside(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("x")
    (tmp_path / "alias.md").symlink_to(tmp_path / "real.md")

    assert resolve_inside(tmp_path, "alias.md") == (tmp_path / "real.md").resolve()


def test_resolve_inside_refuses_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")

    with pytest.raises(PluginPathError):
        resolve_inside(tmp_path, "a")


def test_expand_replaces_both_plugin_variables() -> None:
    value = "--root=${PLUGIN_ROOT}/bin --data=${PLUGIN_DATA}"

    assert expand(value, VARIABLES) == "--root=/plugins/demo/bin --data=/data/demo"


def test_expand_leaves_text_without_placeholders_alone() -> None:
    assert expand("$HOME and $PLUGIN_ROOT stay literal", VARIABLES) == (
        "$HOME and $PLUGIN_ROOT stay literal"
    )


@pytest.mark.parametrize("name", ["HOME", "API_TOKEN", "", "PLUGIN_ROOT:-x"])
def test_expand_refuses_any_other_variable_and_names_it(name: str) -> None:
    with pytest.raises(PluginError, match=f"unknown variable \\$\\{{{name}\\}}"):
        expand(f"x-${{{name}}}-y", VARIABLES)


def test_expand_ignores_other_keys_of_the_mapping() -> None:
    with pytest.raises(PluginError, match="HOME"):
        expand("${HOME}", {**VARIABLES, "HOME": "/root"})


def test_expand_refuses_a_plugin_variable_it_has_no_value_for() -> None:
    with pytest.raises(PluginError, match="PLUGIN_DATA"):
        expand("${PLUGIN_DATA}/x", {"PLUGIN_ROOT": "/r"})


def test_expand_refuses_an_unterminated_placeholder() -> None:
    with pytest.raises(PluginError, match="unterminated"):
        expand("${PLUGIN_ROOT}/x/${HOME", VARIABLES)


def test_expand_is_not_recursive() -> None:
    variables = {"PLUGIN_ROOT": "/odd/${PLUGIN_DATA}", "PLUGIN_DATA": "/data"}

    assert expand("${PLUGIN_ROOT}", variables) == "/odd/${PLUGIN_DATA}"


def test_check_command_accepts_names_and_relative_paths() -> None:
    check_command("python3")
    check_command("./bin/server")


@pytest.mark.parametrize("command", ["${PLUGIN_ROOT}/bin/x", "run${", "${HOME}"])
def test_check_command_refuses_any_placeholder(command: str) -> None:
    with pytest.raises(PluginError, match="never expanded"):
        check_command(command)

"""Reading the fixture plugins: what loads, what is skipped and why, and what raises."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import HttpUrl

from tiny_harness.errors import PluginError
from tiny_harness.harness.plugins import (
    NAMESPACE,
    LoadReport,
    McpHttpServer,
    McpStdioServer,
    Plugin,
    read_plugin,
)

FIXTURES = Path(__file__).parents[2] / "fixtures" / "plugins"


def read(name: str, tmp_path: Path) -> tuple[Plugin, LoadReport]:
    return read_plugin(FIXTURES / name, data_dir=tmp_path / "data")


def stdio(plugin: Plugin, name: str) -> McpStdioServer:
    server = plugin.mcp[name]
    assert isinstance(server, McpStdioServer)
    return server


def reasons(report: LoadReport) -> dict[str, str]:
    return {c.name: c.reason or "" for c in report.skipped()}


def test_good_plugin_loads_every_component(tmp_path: Path) -> None:
    plugin, _ = read("good", tmp_path)
    root = (FIXTURES / "good").resolve()

    assert plugin.name == "good"
    assert plugin.root == root
    assert plugin.skills == (root / "skills" / "summarize",)
    assert list(plugin.mcp) == ["files"]
    assert [h.name for h in plugin.hooks] == ["audit", "notify"]
    assert [(p.id, p.extends) for p in plugin.prompts] == [("extra", "rules")]
    assert plugin.prompts[0].path == root / NAMESPACE / "prompts" / "extra.md"
    assert plugin.systemprompt == root / NAMESPACE / "systemprompt.md"


def test_good_plugin_keeps_its_unknown_manifest_key_and_reports_it(tmp_path: Path) -> None:
    plugin, report = read("good", tmp_path)

    assert plugin.manifest.model_extra == {"x-marketplace": {"featured": True}}
    assert reasons(report) == {"x-marketplace": "unknown top-level key, ignored"}


def test_good_plugin_expands_args_env_values_and_defaults_cwd_to_root(tmp_path: Path) -> None:
    plugin, _ = read("good", tmp_path)
    root = (FIXTURES / "good").resolve()
    data = (tmp_path / "data").resolve()

    server = stdio(plugin, "files")

    assert server.command == "python3"
    assert server.args == (f"{root}/server.py", "--verbose")
    assert server.env == {"FILES_CACHE": f"{data}/cache"}
    assert server.cwd == str(root)
    assert plugin.data_dir == data
    assert not data.exists()


def test_good_plugin_hooks_keep_their_means_and_points(tmp_path: Path) -> None:
    plugin, _ = read("good", tmp_path)
    audit, notify = plugin.hooks

    assert audit.import_path == "good_plugin.hooks:audit"
    assert audit.priority == 100
    assert audit.points == ("tool.invoked.pre", "tool.invoked.post")
    assert notify.url == HttpUrl("https://hooks.example.com/notify")
    assert notify.priority == 500
    assert notify.points is None


def test_good_plugin_report_lists_each_component_in_reading_order(tmp_path: Path) -> None:
    _, report = read("good", tmp_path)

    assert report.plugin == "good"
    assert [(c.kind, c.name) for c in report.loaded()] == [
        ("manifest", "good"),
        ("skill", "summarize"),
        ("mcp", "files"),
        ("hook", "audit"),
        ("hook", "notify"),
        ("prompt", "extra"),
        ("systemprompt", "systemprompt.md"),
    ]
    assert all(c.reason is None for c in report.loaded())


def test_plugin_survives_a_json_round_trip(tmp_path: Path) -> None:
    plugin, _ = read("good", tmp_path)

    assert Plugin.model_validate_json(plugin.model_dump_json()) == plugin


def test_plugin_is_frozen(tmp_path: Path) -> None:
    plugin, _ = read("good", tmp_path)

    with pytest.raises(ValueError, match="frozen"):
        plugin.systemprompt = None  # type: ignore[misc]


def test_bad_manifest_raises_with_the_manifest_path(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match="name") as caught:
        read("bad-manifest", tmp_path)

    assert caught.value.manifest_path == (FIXTURES / "bad-manifest").resolve() / "plugin.json"


def test_bad_manifest_raises_before_any_component_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touched: list[str] = []
    real_open, real_scandir = io.open, os.scandir

    def spy(real: Callable[..., object]) -> Callable[..., object]:
        def record(path: str | os.PathLike[str], *args: object, **kwargs: object) -> object:
            touched.append(os.fspath(path))
            return real(path, *args, **kwargs)

        return record

    monkeypatch.setattr(io, "open", spy(real_open))
    monkeypatch.setattr(os, "scandir", spy(real_scandir))

    with pytest.raises(PluginError):
        read("bad-manifest", tmp_path)

    monkeypatch.undo()
    assert [Path(p).name for p in touched] == ["plugin.json"]


def test_missing_manifest_raises_with_the_manifest_path(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match=r"plugin\.json: not found") as caught:
        read("no-manifest", tmp_path)

    assert caught.value.manifest_path == (FIXTURES / "no-manifest").resolve() / "plugin.json"


def test_missing_root_raises(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match="does not exist") as caught:
        read_plugin(tmp_path / "nowhere", data_dir=tmp_path / "data")

    assert caught.value.manifest_path == tmp_path / "nowhere" / "plugin.json"


def test_path_escape_skips_each_escaping_server_and_loads_the_rest(tmp_path: Path) -> None:
    plugin, report = read("path-escape", tmp_path)
    root = (FIXTURES / "path-escape").resolve()

    assert list(plugin.mcp) == ["inside"]
    assert stdio(plugin, "inside").cwd == str(root / "work")
    skipped = reasons(report)
    assert set(skipped) == {
        "parent-cwd",
        "sneaky-cwd",
        "root-escape-cwd",
        "parent-command",
        "absolute-command",
    }
    assert "cwd:" in skipped["parent-cwd"]
    assert "outside the plugin root" in skipped["sneaky-cwd"]
    assert "command:" in skipped["parent-command"]
    assert "absolute" in skipped["absolute-command"]


def test_command_with_expansion_is_refused_and_recorded(tmp_path: Path) -> None:
    plugin, report = read("command-expansion", tmp_path)
    root = (FIXTURES / "command-expansion").resolve()

    assert "expanded" not in plugin.mcp
    assert "never expanded" in reasons(report)["expanded"]
    plain = stdio(plugin, "plain")
    assert plain.command == str(root / "bin" / "x")
    assert plain.args == (f"{root}/config.json",)


def test_unknown_variable_skips_the_server_and_names_the_variable(tmp_path: Path) -> None:
    plugin, report = read("unknown-env-var", tmp_path)

    assert list(plugin.mcp) == ["fine"]
    skipped = reasons(report)
    assert "${HOME}" in skipped["home"]
    assert "${API_TOKEN}" in skipped["env-value"]


def test_bad_hooks_are_skipped_one_by_one(tmp_path: Path) -> None:
    plugin, report = read("bad-hooks", tmp_path)

    assert [h.name for h in plugin.hooks] == ["ok"]
    skipped = reasons(report)
    assert set(skipped) == {"both", "neither", "typo", "cleartext"}
    assert "exactly one" in skipped["both"]
    assert "exactly one" in skipped["neither"]
    assert "prioritee" in skipped["typo"]
    assert "plain http" in skipped["cleartext"]


def test_summary_names_the_plugin_counts_and_reasons(tmp_path: Path) -> None:
    _, report = read("command-expansion", tmp_path)

    summary = report.summary()

    assert summary.splitlines()[0] == "plugin command-expansion: 2 loaded, 1 skipped"
    assert "skipped mcp          expanded: " in summary
    assert "loaded  mcp          plain" in summary


def copy_plugin(tmp_path: Path, name: str = "good") -> Path:
    root = tmp_path / "plugin"
    shutil.copytree(FIXTURES / name, root)
    return root


def test_args_env_values_and_cwd_are_expanded_but_not_keys_command_or_headers(
    tmp_path: Path,
) -> None:
    root = copy_plugin(tmp_path)
    (root / "mcp.json").write_text(
        '{"mcpServers": {'
        '"local": {"command": "python3", "args": ["${PLUGIN_DATA}"],'
        ' "env": {"KEEP_${PLUGIN_ROOT}": "${PLUGIN_ROOT}"}, "cwd": "${PLUGIN_DATA}/run"},'
        '"remote": {"type": "http", "url": "https://e.com/${PLUGIN_ROOT}",'
        ' "headers": {"X-Root": "${PLUGIN_ROOT}", "X-Key": "${API_KEY}"}}}}'
    )

    plugin, report = read_plugin(root, data_dir=tmp_path / "data")

    data = (tmp_path / "data").resolve()
    local = stdio(plugin, "local")
    assert local.args == (str(data),)
    assert local.env == {"KEEP_${PLUGIN_ROOT}": str(root.resolve())}
    assert local.cwd == str(data / "run")
    remote = plugin.mcp["remote"]
    assert isinstance(remote, McpHttpServer)
    assert str(root.resolve()) not in str(remote.url)
    assert remote.headers == {"X-Root": "${PLUGIN_ROOT}", "X-Key": "${API_KEY}"}
    assert [c.name for c in report.skipped()] == ["x-marketplace"]


def test_hook_mcp_servers_are_expanded_and_checked_like_mcp_json(tmp_path: Path) -> None:
    root = copy_plugin(tmp_path)
    (root / NAMESPACE / "hooks.json").write_text(
        '[{"name": "guard", "mcp": {"command": "./bin/guard", "args": ["${PLUGIN_ROOT}/g"]}},'
        ' {"name": "sneaky", "mcp": {"command": "${PLUGIN_ROOT}/bin/guard"}},'
        ' {"name": "wanders", "mcp": {"command": "guard", "cwd": "../.."}},'
        ' {"name": "snoops", "mcp": {"command": "guard", "env": {"K": "${HOME}"}}}]'
    )

    plugin, report = read_plugin(root, data_dir=tmp_path / "data")

    resolved = root.resolve()
    (guard,) = plugin.hooks
    assert guard.mcp == McpStdioServer(
        command=str(resolved / "bin" / "guard"), args=(f"{resolved}/g",), cwd=str(resolved)
    )
    skipped = reasons(report)
    assert "never expanded" in skipped["sneaky"]
    assert "outside the plugin root" in skipped["wanders"]
    assert "${HOME}" in skipped["snoops"]


def test_duplicate_hook_names_keep_the_first(tmp_path: Path) -> None:
    root = copy_plugin(tmp_path)
    (root / NAMESPACE / "hooks.json").write_text(
        '[{"name": "h", "import_path": "a:first"}, {"name": "h", "import_path": "a:second"}]'
    )

    plugin, report = read_plugin(root, data_dir=tmp_path / "data")

    assert [h.import_path for h in plugin.hooks] == ["a:first"]
    assert "defined already" in reasons(report)["h"]


@pytest.mark.parametrize(
    ("text", "reason"), [('{"name": "h"}', "JSON array"), ("[", "not valid JSON")]
)
def test_unreadable_hooks_file_skips_all_hooks_only(tmp_path: Path, text: str, reason: str) -> None:
    root = copy_plugin(tmp_path)
    (root / NAMESPACE / "hooks.json").write_text(text)

    plugin, report = read_plugin(root, data_dir=tmp_path / "data")

    assert plugin.hooks == ()
    assert reason in reasons(report)["hooks.json"]
    assert plugin.prompts
    assert plugin.mcp
    assert plugin.skills


def test_invalid_mcp_json_disables_mcp_only(tmp_path: Path) -> None:
    root = copy_plugin(tmp_path)
    (root / "mcp.json").write_text('{"mcpServers": {"a": {"command": "x"}}, "mcpServerz": {}}')

    plugin, report = read_plugin(root, data_dir=tmp_path / "data")

    assert plugin.mcp == {}
    assert "mcpServerz" in reasons(report)["mcp.json"]
    assert plugin.hooks
    assert plugin.prompts


def test_non_utf8_and_oversized_prompts_are_skipped(tmp_path: Path) -> None:
    root = copy_plugin(tmp_path)
    prompts = root / NAMESPACE / "prompts"
    (prompts / "latin1.md").write_bytes(b"caf\xe9")
    (prompts / "huge.md").write_bytes(b"x" * (1024 * 1024 + 1))
    (prompts / "notes.txt").write_text("not a prompt")

    plugin, report = read_plugin(root, data_dir=tmp_path / "data")

    assert [p.id for p in plugin.prompts] == ["extra"]
    skipped = reasons(report)
    assert "UTF-8" in skipped["latin1"]
    assert "larger than" in skipped["huge"]
    assert "notes" not in skipped


def test_a_fifo_prompt_is_skipped_without_blocking(tmp_path: Path) -> None:
    root = copy_plugin(tmp_path)
    os.mkfifo(root / NAMESPACE / "prompts" / "pipe.md")

    plugin, report = read_plugin(root, data_dir=tmp_path / "data")

    assert "not a regular file" in reasons(report)["pipe"]
    assert [p.id for p in plugin.prompts] == ["extra"]


def test_skill_folder_without_skill_md_is_skipped(tmp_path: Path) -> None:
    root = copy_plugin(tmp_path)
    (root / "skills" / "empty").mkdir()
    (root / "skills" / "README.md").write_text("not a skill")

    plugin, report = read_plugin(root, data_dir=tmp_path / "data")

    assert [s.name for s in plugin.skills] == ["summarize"]
    assert reasons(report)["empty"] == "no SKILL.md regular file"
    assert "README.md" not in reasons(report)

"""Installing plugins into a worker's harness: what loads, what is skipped and why, and
that a bad plugin never takes the rest down."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.hooks import HookPoint
from tiny_harness.harness.models.scripted import ScriptedLLM, parse_script
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.plugins.install import Installation, build_harness
from tiny_harness.harness.prompts import PromptEntity
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.service.http import free_port

FIXTURES = Path(__file__).parents[2] / "fixtures" / "plugins"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    store = SqliteStore(tmp_path / "store.sqlite3")
    yield store
    await store.close()


async def harness_with(
    store: SqliteStore, tmp_path: Path, *plugins: Path
) -> tuple[Harness, Installation]:
    llm = ScriptedLLM(parse_script("turns: []", source="<test>"))
    return await build_harness(llm=llm, store=store, plugins=plugins, data_dir=tmp_path)


async def test_builtin_plugin_loads_first_with_the_default_prompt_and_intrinsics(
    store: SqliteStore, tmp_path: Path
) -> None:
    harness, installation = await harness_with(store, tmp_path)
    try:
        assert [r.plugin for r in installation.reports] == ["tiny-harness-builtin"]
        assert harness.system_prompt.startswith("## role\nYou are tiny-harness")
        names = {t.name for t in await harness.base_tools()}
        assert {"create_plan", "complete_step", "ask_participant", "load_skill"} <= names
    finally:
        await harness.close()


async def test_bad_manifest_is_refused_and_the_other_plugins_still_load(
    store: SqliteStore, tmp_path: Path
) -> None:
    harness, installation = await harness_with(
        store, tmp_path, FIXTURES / "bad-manifest", FIXTURES / "greeting-a"
    )
    try:
        assert [r.plugin for r in installation.reports] == ["tiny-harness-builtin", "greeting-a"]
        assert len(installation.refused) == 1
        assert installation.refused[0].code == "plugin_invalid"
        ref = EntityRef(kind=EntityKind.PROMPT, id="greeting")
        assert "Hello from a." in (await harness.registry.get(ref, PromptEntity)).render()
    finally:
        await harness.close()


async def test_duplicate_entity_without_override_is_skipped_with_its_reason(
    store: SqliteStore, tmp_path: Path
) -> None:
    harness, installation = await harness_with(
        store, tmp_path, FIXTURES / "greeting-a", FIXTURES / "greeting-b"
    )
    try:
        second = installation.reports[-1]
        assert [(c.kind, c.name) for c in second.skipped()] == [("prompt", "greeting")]
        assert "already registered" in (second.skipped()[0].reason or "")
        ref = EntityRef(kind=EntityKind.PROMPT, id="greeting")
        assert "Hello from a." in (await harness.registry.get(ref, PromptEntity)).render()
    finally:
        await harness.close()


async def test_unknown_hook_point_is_skipped_and_the_valid_hook_registers(
    store: SqliteStore, tmp_path: Path
) -> None:
    harness, installation = await harness_with(store, tmp_path, FIXTURES / "unknown-hook-point")
    try:
        report = installation.reports[-1]
        skipped = {c.name: c.reason for c in report.skipped()}
        assert set(skipped) == {"exploded"}
        assert "exploded" in (skipped["exploded"] or "")
        point = HookPoint.parse("tool.invoked.pre")
        assert [e.name for e in harness.hooks.subscribers(point)] == ["fine"]
    finally:
        await harness.close()


async def test_remote_hook_without_points_is_skipped(store: SqliteStore, tmp_path: Path) -> None:
    plugin = tmp_path / "remote"
    namespace = plugin / "io.github.madarauchiha-314.tiny-harness"
    namespace.mkdir(parents=True)
    (plugin / "plugin.json").write_text(json.dumps({"name": "remote", "version": "1.0.0"}))
    url = f"http://127.0.0.1:{free_port()}/hook"
    (namespace / "hooks.json").write_text(json.dumps([{"name": "pointless", "url": url}]))
    harness, installation = await harness_with(store, tmp_path, plugin)
    try:
        [skipped] = installation.reports[-1].skipped()
        assert skipped.name == "pointless"
        assert "must list the points" in (skipped.reason or "")
    finally:
        await harness.close()

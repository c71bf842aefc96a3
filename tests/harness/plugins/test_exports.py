"""The public surface of the plugins package is exactly this list."""

from __future__ import annotations

import sys
from pathlib import Path

from tiny_harness.harness import plugins


def test_public_names_are_pinned() -> None:
    assert sorted(plugins.__all__) == sorted(
        [
            "MAX_FILE_BYTES",
            "NAMESPACE",
            "ComponentStatus",
            "HookDef",
            "LoadReport",
            "McpHttpServer",
            "McpServer",
            "McpStdioServer",
            "Plugin",
            "PluginAuthor",
            "PluginManifest",
            "PromptDef",
            "check_command",
            "expand",
            "parse_mcp_json",
            "read_plugin",
            "resolve_inside",
        ]
    )
    assert all(hasattr(plugins, name) for name in plugins.__all__)


def test_reading_plugins_imports_none_of_the_packages_that_apply_them() -> None:
    applied = ("hooks", "prompts", "skills")
    for module in list(sys.modules):
        # `install` applies plugins, so it is the one module allowed to use those packages.
        if module.startswith("tiny_harness.harness.plugins") and not module.endswith(".install"):
            source = sys.modules[module].__file__ or ""
            text = Path(source).read_text(encoding="utf-8")
            assert not any(f"tiny_harness.harness.{name}" in text for name in applied), module

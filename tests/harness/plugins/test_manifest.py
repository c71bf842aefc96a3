"""The typed shapes of plugin.json, mcp.json, hooks.json entries and prompt front matter."""

from __future__ import annotations

import json

import pytest
from pydantic import JsonValue, ValidationError

from tiny_harness.errors import PluginError
from tiny_harness.harness.plugins import HookDef, McpHttpServer, McpStdioServer, parse_mcp_json
from tiny_harness.harness.plugins.manifest import (
    parse_manifest,
    parse_mcp_server,
    parse_prompt_front_matter,
)


def manifest_text(**fields: JsonValue) -> str:
    return json.dumps({"name": "demo", "version": "1.0.0", **fields})


def server(raw: JsonValue) -> McpStdioServer | McpHttpServer:
    return parse_mcp_server(raw, source="test")


def test_manifest_keeps_unknown_top_level_keys_and_notes_them() -> None:
    marketplace: dict[str, JsonValue] = {"x-marketplace": {"a": 1}}
    manifest, notes = parse_manifest(
        manifest_text(commands=["./x.md"], **marketplace), source="plugin.json"
    )

    assert manifest.model_extra == {"commands": ["./x.md"], "x-marketplace": {"a": 1}}
    assert manifest.unknown_keys() == ("commands", "x-marketplace")
    assert [key for key, _ in notes] == ["commands", "x-marketplace"]


def test_manifest_reads_the_documented_optional_fields() -> None:
    manifest, notes = parse_manifest(
        manifest_text(
            **{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"},
            description="d",
            author={"name": "A", "email": "a@example.com", "url": "https://example.com"},
            homepage="https://example.com",
            repository="https://example.com/r",
            license="MIT",
            keywords=["k"],
            extensions={"io.github.madarauchiha-314.tiny-harness": {"x": True}},
        ),
        source="plugin.json",
    )

    assert notes == ()
    assert manifest.schema_uri is not None
    assert manifest.author is not None
    assert manifest.author.email == "a@example.com"
    assert manifest.keywords == ("k",)
    assert manifest.extensions == {"io.github.madarauchiha-314.tiny-harness": {"x": True}}


def test_manifest_ignores_an_extensions_field_that_is_not_an_object() -> None:
    manifest, notes = parse_manifest(manifest_text(extensions="oops"), source="plugin.json")

    assert manifest.extensions is None
    assert notes == (("extensions", "not an object, ignored"),)


@pytest.mark.parametrize(
    "name", ["Bad_Name", "-start", "end-", "has--double", "too..dots", "", "a" * 65, "a/b"]
)
def test_manifest_refuses_an_invalid_name(name: str) -> None:
    with pytest.raises(PluginError, match=r"plugin\.json: name"):
        parse_manifest(manifest_text(name=name), source="plugin.json")


@pytest.mark.parametrize("name", ["a", "my-plugin", "acme.tools", "lint3r"])
def test_manifest_accepts_a_portable_name(name: str) -> None:
    assert parse_manifest(manifest_text(name=name), source="plugin.json")[0].name == name


@pytest.mark.parametrize(
    "text",
    [
        '{"version": "1"}',
        '{"name": "demo", "version": 1}',
        '{"name": "demo", "version": "1", "author": {"name": "a", "role": "x"}}',
        '{"name": "demo", "version": "1", "name": "other"}',
        '["demo"]',
        "{not json",
    ],
)
def test_manifest_refuses_other_violations(text: str) -> None:
    with pytest.raises(PluginError):
        parse_manifest(text, source="plugin.json")


def test_a_manifest_needs_only_a_name() -> None:
    manifest, _ = parse_manifest('{"name": "demo"}', source="plugin.json")
    assert manifest.name == "demo"
    assert manifest.version is None


def test_stdio_server_may_omit_its_type() -> None:
    parsed = server({"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1"}, "cwd": "./x"})

    assert parsed == McpStdioServer(command="npx", args=("-y", "pkg"), env={"A": "1"}, cwd="./x")


@pytest.mark.parametrize("kind", ["streamable-http", "http"])
def test_http_server_takes_either_http_tag(kind: str) -> None:
    parsed = server({"type": kind, "url": "https://mcp.example.com/mcp", "headers": {"X-T": "1"}})

    assert isinstance(parsed, McpHttpServer)
    assert parsed.type == kind
    assert parsed.headers == {"X-T": "1"}


def test_an_http_server_names_the_variables_its_secret_headers_come_from() -> None:
    parsed = server(
        {"type": "http", "url": "https://e.com/mcp", "headers_env": {"Authorization": "MCP_T"}}
    )

    assert isinstance(parsed, McpHttpServer)
    assert parsed.headers_env == {"Authorization": "MCP_T"}


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"type": "sse", "url": "https://e.com/sse"}, "type"),
        ({"command": "x", "url": "https://e.com"}, "Extra inputs"),
        ({"type": "http", "url": "https://e.com", "command": "x"}, "Extra inputs"),
        ({"command": ""}, "command"),
        ({"args": ["x"]}, "command"),
        ({"command": "x", "env": {"PLUGIN_ROOT": "/elsewhere"}}, "PLUGIN_ROOT"),
        ({"command": "x", "env": {"A=B": "1"}}, "env name"),
        ({"command": "x", "env": {"A": "1\u0000"}}, "NUL"),
        ({"type": "http", "url": "http://mcp.example.com"}, "plain http"),
        ({"type": "http", "url": "https://user:pw@mcp.example.com"}, "user information"),
        ({"type": "http", "url": "https://mcp.example.com/#x"}, "fragment"),
        ({"type": "http", "url": "ftp://mcp.example.com"}, "url"),
        ({"type": "http", "url": "https://e.com", "headers": {"A": "1", "a": "2"}}, "twice"),
        ({"type": "http", "url": "https://e.com", "headers": {"A": "1\r\nB: 2"}}, "line break"),
        (
            {
                "type": "http",
                "url": "https://e.com",
                "headers": {"A": "1"},
                "headers_env": {"a": "V"},
            },
            "both set a",
        ),
        ({"type": "http", "url": "https://e.com", "headers_env": {"A": ""}}, "variable name"),
        ({"type": "http", "url": "https://e.com", "headers_env": {"A B": "V"}}, "HTTP token"),
        ("npx", "type"),
    ],
)
def test_invalid_server_entries_are_refused_with_a_reason(raw: JsonValue, reason: str) -> None:
    with pytest.raises(PluginError, match=reason):
        server(raw)


def test_refusal_reasons_never_echo_the_value() -> None:
    with pytest.raises(PluginError) as caught:
        server({"type": "http", "url": "https://e.com", "headers": {"Authorization": 12345}})

    assert "12345" not in caught.value.message


@pytest.mark.parametrize(
    "url", ["http://localhost:8000/mcp", "http://127.0.0.1/mcp", "http://[::1]/"]
)
def test_plain_http_is_allowed_for_loopback(url: str) -> None:
    assert isinstance(server({"type": "http", "url": url}), McpHttpServer)


def test_parse_mcp_json_reads_every_server_by_name() -> None:
    text = json.dumps(
        {
            "$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
            "mcpServers": {
                "local": {"command": "python3"},
                "remote": {"type": "streamable-http", "url": "https://mcp.example.com"},
            },
        }
    )

    servers = parse_mcp_json(text, source="mcp.json")

    assert list(servers) == ["local", "remote"]
    assert isinstance(servers["local"], McpStdioServer)
    assert isinstance(servers["remote"], McpHttpServer)


@pytest.mark.parametrize(
    "text",
    [
        "{",
        '{"servers": {}}',
        '{"mcpServers": [], "extra": 1}',
        '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}',
        '{"mcpServers": {"a": {"command": "${PLUGIN_ROOT}/x", "bogus": 1}}}',
    ],
)
def test_parse_mcp_json_refuses_a_malformed_file(text: str) -> None:
    with pytest.raises(PluginError, match=r"mcp\.json"):
        parse_mcp_json(text, source="mcp.json")


def test_hook_defaults_to_priority_500_and_every_point() -> None:
    hook = HookDef.model_validate({"name": "h", "import_path": "pkg.mod:func"})

    assert hook.priority == 500
    assert hook.points is None


def test_hook_points_stay_raw_strings() -> None:
    hook = HookDef.model_validate(
        {"name": "h", "points": ["tool.invoked.pre", "not.checked.here"], "import_path": "m"}
    )

    assert hook.points == ("tool.invoked.pre", "not.checked.here")


def test_hook_may_be_an_mcp_server() -> None:
    hook = HookDef.model_validate({"name": "h", "mcp": {"command": "python3"}})

    assert isinstance(hook.mcp, McpStdioServer)


@pytest.mark.parametrize(
    "raw",
    [
        {"name": "h"},
        {"name": "h", "import_path": "m:f", "url": "https://e.com"},
        {"name": "h", "import_path": "m:f", "mcp": {"command": "x"}},
        {"name": "h", "import_path": "m:f", "when": "always"},
        {"name": "h", "import_path": "os; rm -rf /"},
        {"name": "", "import_path": "m:f"},
        {"name": "h", "url": "http://hooks.example.com"},
    ],
)
def test_hook_refuses_anything_but_exactly_one_valid_means(raw: JsonValue) -> None:
    with pytest.raises(ValidationError):
        HookDef.model_validate(raw)


def test_front_matter_gives_the_section_a_prompt_extends() -> None:
    assert parse_prompt_front_matter("---\nextends: rules\n---\nBody", source="p") == "rules"


def test_a_prompt_without_front_matter_extends_nothing() -> None:
    assert parse_prompt_front_matter("Body\n---\n", source="p") is None


@pytest.mark.parametrize(
    "text",
    [
        "---\nextends: rules\nBody",
        "---\nextend: rules\n---\n",
        "---\nextends: [a, b]\n---\n",
        "---\n- a\n---\n",
        "---\nextends: : :\n---\n",
    ],
)
def test_malformed_front_matter_is_refused(text: str) -> None:
    with pytest.raises(PluginError):
        parse_prompt_front_matter(text, source="p")

"""The typed shapes of a plugin's files: `plugin.json`, `mcp.json`, `hooks.json`, prompts.

These are pure validators: they parse text into frozen models and never touch the
filesystem, expand placeholders or resolve paths (the reader does that, through `paths`).

`plugin.json` follows the Agent Plugins 1.0.0 manifest: unknown top-level keys are kept
(in `model_extra`) and reported, never fatal; every other violation is. `mcp.json` holds
`{"mcpServers": {name: server}}` where a server is stdio (`type` may be omitted) or
streamable HTTP (`type` "streamable-http", or "http" as many clients spell it); an unknown
key or another `type` (such as the legacy "sse") makes that one entry invalid.
"""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Annotated, Literal, Self

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    Discriminator,
    Field,
    HttpUrl,
    JsonValue,
    StringConstraints,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from tiny_harness.errors import PluginError
from tiny_harness.harness.plugins.paths import VARIABLES

type PluginName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9.-]{0,63}$")]

_IMPORT_PATH = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(:[A-Za-z_][A-Za-z0-9_.]*)?$"
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


class PluginAuthor(BaseModel, frozen=True, extra="forbid"):
    """The manifest's `author` object: only these three string fields are allowed."""

    name: str | None = None
    email: str | None = None
    url: str | None = None


class PluginManifest(BaseModel, frozen=True, extra="allow", serialize_by_alias=True):
    """`plugin.json`. Unknown top-level keys are kept in `model_extra`, with no meaning."""

    schema_uri: str | None = Field(default=None, alias="$schema")
    name: PluginName
    version: str | None = None
    """Optional in the Agent Plugins 1.0.0 manifest."""
    description: str | None = None
    author: PluginAuthor | None = None
    homepage: str | None = None
    repository: str | None = None
    license: str | None = None
    keywords: tuple[str, ...] = ()
    extensions: dict[str, dict[str, JsonValue]] | None = None
    """Client data keyed by reverse-domain namespace; only our own namespace means anything."""

    @field_validator("name")
    @classmethod
    def _name_is_portable(cls, value: str) -> str:
        if not value[-1].isalnum() or "--" in value or ".." in value:
            raise ValueError("a plugin name ends alphanumeric and has no '--' or '..'")
        return value

    def unknown_keys(self) -> tuple[str, ...]:
        """The top-level keys the specification does not define, in file order."""
        return tuple(self.model_extra or {})


def _check_endpoint(url: HttpUrl) -> HttpUrl:
    """No credentials or fragment in the URL, and plain HTTP only to a loopback host."""
    if url.username is not None or url.password is not None:
        raise ValueError("the URL cannot carry user information")
    if url.fragment is not None:
        raise ValueError("the URL cannot carry a fragment")
    if url.scheme == "http" and not is_loopback_host(url.host or ""):
        raise ValueError("plain http is allowed only for localhost or a loopback address")
    return url


def is_loopback_host(host: str) -> bool:
    """Whether `host` (a name, an address, a bracketed IPv6 address) is this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


type SafeUrl = Annotated[HttpUrl, AfterValidator(_check_endpoint)]


class McpStdioServer(BaseModel, frozen=True, extra="forbid"):
    """An MCP server started as a subprocess (an argument vector, never a shell)."""

    type: Literal["stdio"] = "stdio"
    command: Annotated[str, StringConstraints(min_length=1)]
    args: tuple[str, ...] = ()
    env: dict[str, str] = {}
    cwd: str | None = None

    @field_validator("env")
    @classmethod
    def _env_is_well_formed(cls, value: dict[str, str]) -> dict[str, str]:
        reserved = sorted(VARIABLES.intersection(value))
        if reserved:
            raise ValueError(f"env cannot set {', '.join(reserved)}: the harness sets it")
        if any(not name or "=" in name or "\x00" in name for name in value):
            raise ValueError("an env name is empty or contains '=' or NUL")
        if any("\x00" in text for text in value.values()):
            raise ValueError("an env value contains NUL")
        return value


class McpHttpServer(BaseModel, frozen=True, extra="forbid"):
    """An MCP server reached over streamable HTTP. `url` and `headers` are never expanded;
    `headers_env` names, for each header it sends, the environment variable whose value it
    carries (a credential the manifest must not hold), read when the server is connected."""

    type: Literal["streamable-http", "http"]
    url: SafeUrl
    headers: dict[str, str] = {}
    headers_env: dict[str, str] = {}

    @field_validator("headers")
    @classmethod
    def _headers_are_well_formed(cls, value: dict[str, str]) -> dict[str, str]:
        _check_header_names(value)
        if any(ch in "\r\n\x00" for header in value.values() for ch in header):
            raise ValueError("a header value contains a line break or NUL")
        return value

    @field_validator("headers_env")
    @classmethod
    def _headers_env_are_well_formed(cls, value: dict[str, str]) -> dict[str, str]:
        _check_header_names(value)
        if any(not name or "=" in name or "\x00" in name for name in value.values()):
            raise ValueError("an environment variable name is empty or contains '=' or NUL")
        return value

    @model_validator(mode="after")
    def _each_header_once(self) -> Self:
        both = {n.lower() for n in self.headers} & {n.lower() for n in self.headers_env}
        if both:
            raise ValueError(f"headers and headers_env both set {', '.join(sorted(both))}")
        return self


def _check_header_names(headers: dict[str, str]) -> None:
    lowered = [name.lower() for name in headers]
    if len(set(lowered)) != len(lowered):
        raise ValueError("a header name appears twice (names are case-insensitive)")
    if not all(_HEADER_NAME.fullmatch(name) for name in headers):
        raise ValueError("a header name is not a valid HTTP token")


def _server_tag(value: object) -> str | None:
    kind = value.get("type", "stdio") if isinstance(value, dict) else getattr(value, "type", None)
    if kind in ("streamable-http", "http"):
        return "http"
    return kind if isinstance(kind, str) else None


McpServer = Annotated[
    Annotated[McpStdioServer, Tag("stdio")] | Annotated[McpHttpServer, Tag("http")],
    Discriminator(
        _server_tag,
        custom_error_type="mcp_server_type",
        custom_error_message="a server is an object whose type is 'stdio' (the default), "
        "'streamable-http' or 'http'",
    ),
]
"""One `mcpServers` entry: stdio when `type` is "stdio" or absent, HTTP for the two HTTP tags."""


class _ServerEntry(BaseModel, frozen=True):
    server: McpServer


class _McpFile(BaseModel, frozen=True, extra="forbid"):
    schema_uri: str | None = Field(default=None, alias="$schema")
    servers: dict[str, JsonValue] = Field(alias="mcpServers")


class HookDef(BaseModel, frozen=True, extra="forbid"):
    """One `hooks.json` entry: a named executor, run by exactly one of three means.

    `points` stays raw ("operation.phase" strings); the hooks package validates them.
    `None` means every point the executor declares.
    """

    name: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    priority: int = 500
    points: tuple[str, ...] | None = None
    import_path: Annotated[str, StringConstraints(pattern=_IMPORT_PATH)] | None = None
    url: SafeUrl | None = None
    mcp: McpServer | None = None

    @model_validator(mode="after")
    def _exactly_one_means(self) -> Self:
        given = [self.import_path is not None, self.url is not None, self.mcp is not None]
        if sum(given) != 1:
            raise ValueError("a hook needs exactly one of import_path, url or mcp")
        return self


class PromptDef(BaseModel, frozen=True, extra="forbid"):
    """A prompt file: `id` is its file stem, `extends` names a system-prompt section."""

    id: str
    path: Path
    extends: str | None = None


def parse_prompt_front_matter(text: str, *, source: str) -> str | None:
    """The `extends` of a prompt file's front matter, or None when it has none.

    Front matter is a YAML mapping between a first line `---` and the next `---` line. Its
    only key is `extends`, a section name; any other key, or malformed YAML, raises
    `PluginError` (a typo must not silently turn an extension into a separate prompt).
    """
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    try:
        end = next(i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---")
    except StopIteration:
        raise PluginError(f"{source}: front matter has no closing '---'") from None
    try:
        matter: object = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as error:
        raise PluginError(f"{source}: front matter is not valid YAML") from error
    if matter is None:
        return None
    if not isinstance(matter, dict):
        raise PluginError(f"{source}: front matter must be a mapping")
    unknown = sorted(str(key) for key in matter if key != "extends")
    if unknown:
        raise PluginError(f"{source}: unknown front matter key {unknown[0]!r}")
    extends = matter.get("extends")
    if extends is not None and (not isinstance(extends, str) or not extends.strip()):
        raise PluginError(f"{source}: 'extends' must name a section")
    return extends


def load_json(text: str, *, source: str) -> JsonValue:
    """Parse JSON, refusing duplicate object keys (a later one would silently win)."""

    def unique(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
        keys = [key for key, _ in pairs]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})
        if duplicates:
            raise PluginError(f"{source}: duplicate key {duplicates[0]!r}")
        return dict(pairs)

    try:
        value: JsonValue = json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as error:
        raise PluginError(f"{source}: not valid JSON ({error.msg}, line {error.lineno})") from error
    return value


def describe(error: ValidationError) -> str:
    """A validation error as text that names fields and rules but never echoes input values."""
    parts = []
    for detail in error.errors(include_input=False, include_url=False):
        location = ".".join(str(part) for part in detail["loc"] if part not in ("server",))
        message = detail["msg"].removeprefix("Value error, ")
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts)


def parse_manifest(text: str, *, source: str) -> tuple[PluginManifest, tuple[tuple[str, str], ...]]:
    """`plugin.json` text as a manifest, and the notes on what was reported and ignored.

    Per Agent Plugins 1.0.0 only two violations are not fatal: an unknown top-level key
    (kept in `model_extra`, with no meaning) and an `extensions` that is not an object
    (dropped). Each gives one `(key, reason)` note; anything else invalid raises `PluginError`.
    """
    raw = load_json(text, source=source)
    if not isinstance(raw, dict):
        raise PluginError(f"{source}: the manifest must be a JSON object")
    notes: list[tuple[str, str]] = []
    if "extensions" in raw and not isinstance(raw["extensions"], dict):
        raw = {key: value for key, value in raw.items() if key != "extensions"}
        notes.append(("extensions", "not an object, ignored"))
    try:
        manifest = PluginManifest.model_validate(raw)
    except ValidationError as error:
        raise PluginError(f"{source}: {describe(error)}") from error
    notes.extend((key, "unknown top-level key, ignored") for key in manifest.unknown_keys())
    return manifest, tuple(notes)


def mcp_server_entries(text: str, *, source: str) -> dict[str, JsonValue]:
    """The raw entries of `mcpServers`, by name; a malformed file raises `PluginError`."""
    raw = load_json(text, source=source)
    try:
        return _McpFile.model_validate(raw).servers
    except ValidationError as error:
        raise PluginError(f"{source}: {describe(error)}") from error


def parse_mcp_server(raw: JsonValue, *, source: str) -> McpServer:
    """One raw `mcpServers` entry as a typed server; an invalid one raises `PluginError`."""
    try:
        return _ServerEntry.model_validate({"server": raw}).server
    except ValidationError as error:
        raise PluginError(f"{source}: {describe(error)}") from error


def parse_mcp_json(text: str, *, source: str) -> dict[str, McpServer]:
    """Every server of an `mcp.json`; the first invalid entry raises `PluginError`.

    The reader uses `mcp_server_entries` and `parse_mcp_server` instead, to skip bad
    entries one by one.
    """
    return {
        name: parse_mcp_server(raw, source=f"{source}: server {name!r}")
        for name, raw in mcp_server_entries(text, source=source).items()
    }

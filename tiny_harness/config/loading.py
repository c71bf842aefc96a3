"""`load_settings`: four layers merged into one `Settings`, every value's origin known.

Each layer (file, environment, overrides) is flattened to dotted key paths first, so an
unknown key is refused where it was written and an error names the variable or the key the
operator has to fix; only then are the layers merged and validated.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, SecretStr, ValidationError

from tiny_harness.config.keys import ENV_NESTED_DELIMITER, ENV_PREFIX, SECRET_FIELDS, env_var_name
from tiny_harness.config.settings import Settings
from tiny_harness.errors import ConfigError

_KeyPath = tuple[str, ...]
_SourceKind = Literal["file", "env", "override"]


@dataclass(frozen=True, slots=True)
class _Origin:
    """Where one leaf value came from."""

    kind: _SourceKind
    name: str
    """The environment variable name for ``env``; the dotted key otherwise."""


@dataclass(frozen=True, slots=True)
class _Leaf:
    value: object
    origin: _Origin


_Layer = dict[_KeyPath, _Leaf]


def load_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Load and validate the configuration (overrides > environment > ``config_file`` > defaults).

    ``overrides`` keys are dotted (``"server.port"``); a value of None means "not given", so CLI
    flags can be passed through unconditionally. ``environ`` defaults to ``os.environ``; empty
    environment values count as unset.

    Raises `ConfigError` when the file is missing, unreadable or not TOML, a key or
    ``TINY_HARNESS_*`` variable is unknown, a secret is set anywhere but the environment, or a
    value is invalid.
    """
    layers: list[_Layer] = []
    if config_file is not None:
        layers.append(_file_layer(config_file))
    layers.append(_env_layer(os.environ if environ is None else environ))
    if overrides is not None:
        layers.append(_override_layer(overrides))

    merged = _merge(layers)
    if config_file is not None:
        merged = _resolve_script_path(merged, config_file)
    data: dict[str, object] = {}
    for path, leaf in merged.items():
        _insert(data, path, leaf.value)
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise _config_error(exc, merged, config_file) from None


def _file_layer(config_file: Path) -> _Layer:
    try:
        raw = config_file.read_bytes()
    except FileNotFoundError:
        raise ConfigError(
            f"config file {config_file} does not exist", variable=str(config_file)
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"config file {config_file} cannot be read: {exc.strerror or exc}",
            variable=str(config_file),
        ) from None
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(
            f"config file {config_file} is not UTF-8 text", variable=str(config_file)
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"config file {config_file} is not valid TOML: {exc}", variable=str(config_file)
        ) from None

    layer: _Layer = {}
    for path, value in _flatten(document):
        key = ".".join(path)
        secret = ".".join(path[:2])
        if secret in SECRET_FIELDS:
            raise ConfigError(
                f"{secret} is a secret and must not be set in the config file {config_file}; "
                f"set the environment variable {env_var_name(secret)} instead",
                variable=secret,
            )
        _check_known(path, "file", where=f" in config file {config_file}")
        layer[path] = _Leaf(value, _Origin("file", key))
    return layer


def _env_layer(environ: Mapping[str, str]) -> _Layer:
    layer: _Layer = {}
    names: dict[_KeyPath, str] = {}
    for name, value in environ.items():
        if not name.upper().startswith(ENV_PREFIX):
            continue
        path = tuple(name[len(ENV_PREFIX) :].lower().split(ENV_NESTED_DELIMITER))
        _check_known(path, "env", env_name=name)
        if path in names:
            raise ConfigError(
                f"environment variables {names[path]} and {name} set the same setting; "
                "remove one of them",
                variable=name,
            )
        names[path] = name
        if value == "":
            continue
        if ".".join(path) in SECRET_FIELDS:
            layer[path] = _Leaf(SecretStr(value), _Origin("env", name))
        else:
            layer[path] = _Leaf(value, _Origin("env", name))
    return layer


def _override_layer(overrides: Mapping[str, object]) -> _Layer:
    layer: _Layer = {}
    for key, value in overrides.items():
        if value is None:
            continue
        head = tuple(key.split("."))
        flat = _flatten(value, head) if isinstance(value, Mapping) else iter([(head, value)])
        for path, leaf_value in flat:
            dotted = ".".join(path)
            if ".".join(path[:2]) in SECRET_FIELDS:
                secret = ".".join(path[:2])
                raise ConfigError(
                    f"{secret} is a secret and can only be set through the environment "
                    f"variable {env_var_name(secret)}",
                    variable=secret,
                )
            _check_known(path, "override", where=" in overrides")
            clash = next((p for p in layer if _overlaps(p, path)), None)
            if clash is not None:
                raise ConfigError(
                    f"overrides set {'.'.join(clash)} and {dotted} at the same time",
                    variable=dotted,
                )
            layer[path] = _Leaf(leaf_value, _Origin("override", dotted))
    return layer


def _flatten(
    tree: Mapping[str, object], prefix: _KeyPath = ()
) -> Iterator[tuple[_KeyPath, object]]:
    """Yield ``(path, value)`` for every leaf; an empty table is a leaf (so unknown ones show)."""
    for key, value in tree.items():
        path = (*prefix, str(key))
        if isinstance(value, Mapping) and value:
            yield from _flatten(value, path)
        else:
            yield path, value


def _section_model(name: str) -> type[BaseModel] | None:
    annotation = Settings.model_fields[name].annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _check_known(path: _KeyPath, kind: _SourceKind, *, env_name: str = "", where: str = "") -> None:
    """Reject a path that names no setting.

    Environment variables must name a field exactly. A file or override path that goes deeper
    than a field (a table where a number belongs) is left to validation, which says what the
    field expects.
    """
    fields = Settings.model_fields
    if path[0] not in fields:
        _unknown(path[:1], list(fields), kind, env_name, where)
    section = _section_model(path[0])
    if section is None:
        if len(path) > 1 and kind == "env":
            _unknown(path, [], kind, env_name, where)
        return
    if len(path) == 1:
        if kind == "env":
            raise ConfigError(
                f"{env_name} names the section [{path[0]}], not a setting; set its fields as "
                f"{env_var_name(path[0])}{ENV_NESTED_DELIMITER}<FIELD>",
                variable=env_name,
            )
        return
    if path[1] not in section.model_fields:
        _unknown(path[:2], list(section.model_fields), kind, env_name, where)
    if len(path) > 2 and kind == "env":
        _unknown(path, [], kind, env_name, where)


def _unknown(
    path: _KeyPath, known: list[str], kind: _SourceKind, env_name: str, where: str
) -> None:
    parent = path[:-1]
    candidates = [".".join((*parent, name)) for name in known]
    dotted = ".".join(path)
    if kind == "env":
        matches = difflib.get_close_matches(dotted, candidates, n=1)
        hint = f"; did you mean {env_var_name(matches[0])}?" if matches else ""
        raise ConfigError(f"unknown environment variable {env_name}{hint}", variable=env_name)
    matches = difflib.get_close_matches(dotted, candidates, n=1)
    hint = f"; did you mean {matches[0]!r}?" if matches else ""
    raise ConfigError(f"unknown setting {dotted!r}{where}{hint}", variable=dotted)


def _overlaps(a: _KeyPath, b: _KeyPath) -> bool:
    """True when one path equals or contains the other."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _merge(layers: list[_Layer]) -> _Layer:
    """Merge layers given lowest precedence first; a higher path replaces overlapping lower ones."""
    merged: _Layer = {}
    for layer in layers:
        for path, leaf in layer.items():
            for old in [p for p in merged if _overlaps(p, path)]:
                del merged[old]
            merged[path] = leaf
    return merged


def _resolve_script_path(merged: _Layer, config_file: Path) -> _Layer:
    """Paths given in the config file are relative to the file's folder."""
    base = config_file.absolute().parent
    resolved = dict(merged)
    script = merged.get(("model", "script"))
    if script is not None and script.origin.kind == "file" and isinstance(script.value, str):
        resolved[("model", "script")] = _Leaf(base / script.value, script.origin)
    plugins = merged.get(("plugins",))
    if plugins is not None and plugins.origin.kind == "file" and isinstance(plugins.value, list):
        paths = [base / str(p) for p in plugins.value]
        resolved[("plugins",)] = _Leaf(paths, plugins.origin)
    return resolved


def _insert(data: dict[str, object], path: _KeyPath, value: object) -> None:
    node = data
    for part in path[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):  # cannot happen: _merge removed overlapping paths
            raise ConfigError(f"conflicting values for {'.'.join(path)}", variable=".".join(path))
        node = child
    node[path[-1]] = value


def _config_error(exc: ValidationError, merged: _Layer, config_file: Path | None) -> ConfigError:
    """Turn a ValidationError into a ConfigError naming where each bad value came from.

    Only pydantic's message is used, never the input, so secret values cannot leak.
    """
    problems: list[str] = []
    first: str | None = None
    for error in exc.errors(include_url=False, include_input=False, include_context=False):
        loc = tuple(str(part) for part in error["loc"])
        variable, source = _attribute(loc, merged, config_file)
        first = first if first is not None else variable
        problems.append(f"{variable}{source}: {error['msg']}")
    return ConfigError("invalid configuration: " + "; ".join(problems), variable=first)


def _attribute(loc: _KeyPath, merged: _Layer, config_file: Path | None) -> tuple[str, str]:
    """Return (variable, source description) for an error at ``loc``."""
    owners = [p for p in merged if loc[: len(p)] == p]  # leaves at or above the error
    if not owners:
        owners = sorted(p for p in merged if p[: len(loc)] == loc)  # leaves below the error
    if not owners:
        return ".".join(loc) or "settings", ""
    path = max(owners, key=len)
    origin = merged[path].origin
    if origin.kind == "env":
        return origin.name, " (from the environment)"
    dotted = ".".join(loc[: len(path)])  # the shorter of the two: the key at fault
    if origin.kind == "file":
        return dotted, f" (in config file {config_file})"
    return dotted, " (override)"

"""`reference`: the configuration reference, made from `Settings` itself.

Every setting, section by section: the environment variable that sets it, its key in the
TOML file, its default and what it is for, which is the docstring written under the field
in the source (read with `ast`, as pydantic's `use_attribute_docstrings` would). The
documentation site's configuration page is this Markdown, written by a build hook, so the
reference cannot drift from the code. A field whose value is a table of its own (a model)
is listed field by field; a list or map of tables is one row. The environment reaches a
section's own fields; a table inside a section (`[retries.default]`) is set in the TOML
file only.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import textwrap
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum
from pathlib import Path

from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from tiny_harness.config.keys import SECRET_FIELDS, env_var_name
from tiny_harness.config.settings import Settings


@dataclass(frozen=True)
class Setting:
    """One setting of the reference."""

    key: str
    """Its dotted key: `server.port`, `[server] port` in the TOML file."""
    variable: str | None
    """The environment variable that sets it; None for one set in the TOML file only."""
    default: str
    """Its default as it would be written, or "" when it has none."""
    description: str
    """What it is for; "" when its field has no docstring."""
    secret: bool
    """Whether it is read from the environment only."""


def settings_reference(model: type[BaseModel] = Settings, prefix: str = "") -> list[Setting]:
    """Every setting of `model` (the whole configuration by default), in source order."""
    found: list[Setting] = []
    notes = _field_docstrings(model)
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        table = field.annotation
        if isinstance(table, type) and issubclass(table, BaseModel):
            found.extend(settings_reference(table, f"{key}."))
            continue
        found.append(
            Setting(
                key=key,
                variable=env_var_name(key) if key.count(".") < 2 else None,
                default=_default(field),
                description=notes.get(name, ""),
                secret=key in SECRET_FIELDS,
            )
        )
    return found


def reference_markdown() -> str:
    """The reference as Markdown: one table per section, each under a third-level heading
    (the page puts it under a heading of its own)."""
    sections: dict[str, list[Setting]] = {}
    for setting in settings_reference():
        section = setting.key.split(".")[0] if "." in setting.key else ""
        sections.setdefault(section, []).append(setting)
    lines: list[str] = []
    for section, settings in sections.items():
        lines += ["", f"### `[{section}]`" if section else "### General", ""]
        lines += ["| setting | default | what it is for |", "|---|---|---|"]
        lines += [_row(setting) for setting in settings]
    return "\n".join(lines).strip() + "\n"


def _row(setting: Setting) -> str:
    if setting.variable is not None:
        name = f"`{setting.variable}`"
    else:
        table, _, field = setting.key.rpartition(".")
        name = f"`[{table}] {field}` (TOML file only)"
    default = f"`{setting.default}`" if setting.default else "unset"
    secret = " **Secret: environment only.**" if setting.secret else ""
    text = " ".join(setting.description.split()).replace("|", "\\|")
    return f"| {name} | {default} | {text}{secret} |"


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value: object = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return ""
    else:
        value = field.default
    return _written(value)


def _written(value: object) -> str:
    """`value` as a person would write it in the environment."""
    if value is None or isinstance(value, SecretStr):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, timedelta):
        return _iso_duration(value)
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, Path | str | int | float):
        return str(value)
    if isinstance(value, BaseModel):
        return json.dumps(value.model_dump(mode="json", exclude_defaults=True))
    if isinstance(value, tuple | list | dict | frozenset):
        if not value:
            return ""
        return json.dumps(value if isinstance(value, dict) else list(value), default=str)
    return str(value)


def _iso_duration(value: timedelta) -> str:
    seconds = int(value.total_seconds())
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, seconds = divmod(rest, 60)
    time = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M"), (seconds, "S")) if n)
    return f"P{f'{days}D' if days else ''}{f'T{time}' if time else ''}" if value else "PT0S"


@functools.cache
def _field_docstrings(model: type[BaseModel]) -> dict[str, str]:
    """The docstring under each field of `model` and of its bases, by field name."""
    found: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls is BaseModel:
            continue
        try:
            source = textwrap.dedent(inspect.getsource(cls))
        except (OSError, TypeError):
            continue
        body = ast.parse(source).body[0]
        if not isinstance(body, ast.ClassDef):
            continue
        for first, second in zip(body.body, body.body[1:], strict=False):
            if (
                isinstance(first, ast.AnnAssign)
                and isinstance(first.target, ast.Name)
                and isinstance(second, ast.Expr)
                and isinstance(second.value, ast.Constant)
                and isinstance(second.value.value, str)
            ):
                found[first.target.id] = inspect.cleandoc(second.value.value)
    return found

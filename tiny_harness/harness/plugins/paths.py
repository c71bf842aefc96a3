"""Path containment and placeholder expansion for plugin configuration.

Three pure guards the reader applies to everything a plugin names:

- `resolve_inside` turns a plugin-relative path into an absolute one and refuses anything
  that lands outside the plugin root: absolute paths, `..` escapes, and symlinks (anywhere
  along the path) whose target resolves outside.
- `expand` replaces `${PLUGIN_ROOT}` and `${PLUGIN_DATA}` in one non-recursive pass and
  refuses every other `${...}`, so a plugin can never read the worker's environment.
- `check_command` refuses a command containing `${`: commands are never expanded, and a
  command that asks for expansion is an injection attempt the caller must record.

Nothing here creates, opens or reads a file; `resolve_inside` only asks the filesystem
where symlinks point. The answer is true at the time of the call: a caller that opens the
path later opens what the plugin's own tree holds then.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePath

from tiny_harness.errors import PluginError, PluginPathError

PLUGIN_ROOT = "PLUGIN_ROOT"
PLUGIN_DATA = "PLUGIN_DATA"
VARIABLES: frozenset[str] = frozenset({PLUGIN_ROOT, PLUGIN_DATA})
"""The only placeholders a plugin may use, and only in args, env values and cwd."""

_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")


def resolve_inside(root: Path, relative: str) -> Path:
    """The absolute, symlink-free path of `relative` under `root`.

    Raises `PluginPathError` when `relative` is empty or absolute, or when the resolved
    path (every symlink followed, `..` applied) is not `root` or below it. A symlink whose
    target stays inside `root` is allowed. The path need not exist.
    """
    if not relative or "\x00" in relative:
        raise PluginPathError("a plugin path cannot be empty or hold NUL", path=relative)
    candidate = PurePath(relative)
    if candidate.is_absolute() or candidate.drive or candidate.root:
        raise PluginPathError(f"plugin path {relative!r} is absolute", path=relative)
    base = root.resolve()
    try:
        target = (base / candidate).resolve(strict=True)
    except FileNotFoundError:  # a path that does not exist yet resolves as far as it can
        target = (base / candidate).resolve()
    except (OSError, RuntimeError) as error:  # a symlink loop, a file used as a folder
        raise PluginPathError(
            f"plugin path {relative!r} cannot be resolved ({error.__class__.__name__})",
            path=relative,
        ) from error
    if ".." in target.parts or not target.is_relative_to(base):
        raise PluginPathError(
            f"plugin path {relative!r} resolves outside the plugin root", path=relative
        )
    return target


def expand(value: str, variables: Mapping[str, str]) -> str:
    """`value` with `${PLUGIN_ROOT}` and `${PLUGIN_DATA}` replaced from `variables`.

    One pass, not recursive: text a replacement brings in is not scanned again. Any other
    `${NAME}`, a placeholder `variables` has no value for, or an unterminated `${` raises
    `PluginError` naming it. Keys of `variables` other than the two are ignored.
    """

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in VARIABLES:
            raise PluginError(
                f"unknown variable ${{{name}}}: only ${{PLUGIN_ROOT}} and "
                "${PLUGIN_DATA} can be expanded"
            )
        if name not in variables:
            raise PluginError(f"variable ${{{name}}} has no value here")
        return variables[name]

    expanded: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(value):
        _refuse_unterminated(value[position : match.start()])
        expanded.append(value[position : match.start()])
        expanded.append(replace(match))
        position = match.end()
    _refuse_unterminated(value[position:])
    expanded.append(value[position:])
    return "".join(expanded)


def check_command(command: str) -> None:
    """Refuse a command that contains `${`.

    A command is never expanded; one that asks for expansion is refused with
    `PluginError` instead of being spawned literally. The caller records the attempt.
    """
    if "${" in command:
        raise PluginError(
            "a command cannot contain '${': commands are never expanded "
            "(use a plugin-relative './' path or a bare executable name)"
        )


def _refuse_unterminated(text: str) -> None:
    if "${" in text:
        raise PluginError("unterminated placeholder '${' (no closing '}')")

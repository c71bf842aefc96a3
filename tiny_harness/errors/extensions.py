"""Errors of the extension points: the registry, hooks, plugins, prompts, skills, scripts."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from tiny_harness.errors.base import TinyHarnessError


class RegistryError(TinyHarnessError):
    """Raised when a registry lookup or change cannot be done."""

    code = "registry_error"


class EntityNotFoundError(RegistryError):
    """Raised when no registered entity answers to a reference (or not as the kind asked)."""

    code = "entity_not_found"


class VersionNotFoundError(RegistryError):
    """Raised when an entity is registered but none of its versions matches the reference."""

    code = "version_not_found"


class RegistryConflictError(RegistryError):
    """Raised when adding an entity that is registered already, without `override=True`."""

    code = "registry_conflict"


class ScriptError(TinyHarnessError):
    """Raised when a scripted-model script cannot be read or fails validation."""

    code = "script_error"


type SkillLoadReason = Literal[
    "not_a_directory",
    "missing_skill_md",
    "unreadable",
    "too_large",
    "escapes_root",
    "no_front_matter",
    "invalid_front_matter",
    "invalid_field",
    "name_mismatch",
]
"""Why a folder is not a loadable skill."""


type SkillResourceReason = Literal[
    "absolute_path",
    "parent_path",
    "not_a_resource",
    "escapes_root",
    "too_large",
    "not_utf8",
    "unreadable",
]
"""Why a skill resource read is refused."""


type SkillErrorReason = SkillLoadReason | SkillResourceReason | Literal["unknown_skill"]


class SkillError(TinyHarnessError):
    """Raised (or, by the skill loader, returned) when a folder cannot be loaded as a skill.

    `path` is the skill folder (None when no folder is known); `reason` says what is wrong
    in a word a caller can branch on, and the message says it for a person.
    """

    code = "skill_invalid"

    def __init__(self, message: str, *, path: Path | None, reason: SkillErrorReason) -> None:
        super().__init__(message)
        self.path = path
        self.reason: SkillErrorReason = reason


class SkillResourceError(SkillError):
    """Raised when reading a skill resource is refused: an absolute or `..` path, a file
    the skill does not list, a symlink out of the skill folder, too large, or not UTF-8."""

    code = "skill_resource_refused"

    def __init__(
        self, message: str, *, path: Path, resource: str, reason: SkillResourceReason
    ) -> None:
        super().__init__(message, path=path, reason=reason)
        self.resource = resource


class UnknownSkillError(SkillError):
    """Raised when a skill is asked for by a name the catalog does not hold."""

    code = "skill_not_found"

    def __init__(self, message: str, *, name: str) -> None:
        super().__init__(message, path=None, reason="unknown_skill")
        self.name = name


class HookError(TinyHarnessError):
    """Raised when a hook point or a hook executor cannot be used as asked."""

    code = "hook_error"


class UnknownHookPointError(HookError):
    """Raised when a hook point names an operation or phase that does not exist, or one that
    no context is defined for yet."""

    code = "hook_point_unknown"


class HookLoadError(HookError):
    """Raised when a hook executor cannot be built from its definition: an import path that
    does not import, or does not lead to an executor; a remote address that is not usable."""

    code = "hook_load_failed"


class HookContractError(HookError):
    """Raised when a hook chain's contract is broken: an executor returned a context of
    another type or for another task, a context does not match its point, or an `in` body
    produced no result."""

    code = "hook_contract_broken"


class HookTransportError(HookError):
    """Raised when a remote hook executor cannot be reached or answers out of protocol.

    Hooks fail closed: the operation fails (and may be retried), it never goes ahead as if
    the executor had passed. `executor` names the executor at fault.
    """

    code = "hook_transport_failed"

    def __init__(self, message: str, *, executor: str) -> None:
        super().__init__(message)
        self.executor = executor


class PluginError(TinyHarnessError):
    """Raised when a plugin, or one of its components, cannot be read as it is.

    Reading a plugin raises it only for the manifest, with `manifest_path` set: a missing
    or invalid `plugin.json` rejects the whole plugin before any component is touched. For
    a bad component (an invalid MCP entry, a `${` in a command, an unknown variable) the
    reader catches it and reports the component as skipped instead.
    """

    code = "plugin_invalid"

    def __init__(self, message: str, *, manifest_path: Path | None = None) -> None:
        super().__init__(message)
        self.manifest_path = manifest_path


class PluginPathError(PluginError):
    """Raised when a path a plugin names is absolute, escapes the plugin root with `..`, or
    passes through a symlink whose target resolves outside the root. `path` is the path as
    the plugin wrote it."""

    code = "plugin_path_refused"

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


class PromptError(TinyHarnessError):
    """Raised when a prompt cannot be parsed (two sections of one name, malformed front
    matter) or composed as asked (extending a section the system prompt does not have).

    `source` names the prompt text at fault (a file path, say) when one is known; `section`
    names the section at fault when there is one.
    """

    code = "prompt_invalid"

    def __init__(
        self, message: str, *, source: str | None = None, section: str | None = None
    ) -> None:
        super().__init__(message)
        self.source = source
        self.section = section

"""`Skill`: one loaded skill folder, and the files it offers the model as resources.

    my-skill/                   root (resolved); its name is the skill's name
    ├── SKILL.md                front matter + body (read by the loader)
    ├── mcp.json                optional; only its path is exposed (`mcp_config_path`)
    ├── scripts/<file>          ┐
    ├── references/<file>       ├ resources: regular files exactly one level deep
    └── assets/<file>           ┘

Path safety: a resource is a regular, non-hidden file directly inside one of the three
folders whose real path (symlinks followed) stays inside the skill root. `read_resource`
only reads what `resources()` lists, so an absolute path, a `..`, a nested file or a
symlink out of the folder is refused with `SkillResourceError`, never read. Reads are
capped at `MAX_RESOURCE_BYTES` and must be UTF-8. This module does no parsing of `SKILL.md`
and no MCP work.
"""

from __future__ import annotations

import logging
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Final, Literal

from pydantic import BaseModel

from tiny_harness.errors import SkillResourceError, SkillResourceReason
from tiny_harness.harness.entities import Entity, EntityKind, EntityRef
from tiny_harness.harness.skills.front_matter import SkillFrontMatter

logger = logging.getLogger(__name__)

MAX_RESOURCE_BYTES: Final = 256 * 1024
"""The largest resource `read_resource` returns (256 KiB)."""

MCP_CONFIG_FILE: Final = "mcp.json"

type ResourceKind = Literal["script", "reference", "asset"]

RESOURCE_FOLDERS: Final[tuple[tuple[str, ResourceKind], ...]] = (
    ("scripts", "script"),
    ("references", "reference"),
    ("assets", "asset"),
)
"""The folders resources live in, in listing order, with the kind of their files."""


class SkillResource(BaseModel, frozen=True):
    """One file a skill offers: its path relative to the skill root, in POSIX form."""

    path: str
    kind: ResourceKind
    size: int


class Skill(Entity):
    """A skill: validated front matter, the Markdown body, and the folder it came from.

    Build one with `SkillLoader`; the constructor trusts that `front_matter.name` is the
    folder's name. `root` is stored resolved, so every containment check compares real paths.
    """

    def __init__(self, *, front_matter: SkillFrontMatter, body: str, root: Path) -> None:
        self.ref = EntityRef(kind=EntityKind.SKILL, id=front_matter.name)
        self.front_matter = front_matter
        self.body = body
        self.root = root.resolve()

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.SKILL`."""
        return EntityKind.SKILL

    @property
    def name(self) -> str:
        """The skill's name (also `ref.id` and the folder's name)."""
        return self.front_matter.name

    @property
    def description(self) -> str:
        """What the skill does and when to use it, from the front matter."""
        return self.front_matter.description

    @property
    def mcp_config_path(self) -> Path | None:
        """The skill's `mcp.json` when it has one inside its folder; parsing it is the MCP
        module's job."""
        candidate = self.root / MCP_CONFIG_FILE
        if candidate.is_file() and self._inside_root(candidate):
            return candidate
        return None

    def resources(self) -> tuple[SkillResource, ...]:
        """Every resource, folder by folder (scripts, references, assets), then by name.

        Subfolders, hidden files and symlinks that lead out of the skill root are skipped.
        """
        found: list[SkillResource] = []
        for folder, kind in RESOURCE_FOLDERS:
            found.extend(self._resources_in(folder, kind))
        return tuple(found)

    def read_resource(self, path: str) -> str:
        """The text of the resource at `path` (as `resources()` spells it).

        Raises `SkillResourceError` when the path is absolute or climbs with `..`, is not a
        listed resource, leads out of the skill root, is over `MAX_RESOURCE_BYTES`, is not
        UTF-8, or cannot be read.
        """
        relative = self._relative(path)
        target = self.root / relative
        if (target.exists() or target.is_symlink()) and not self._inside_root(target):
            raise self._refuse(path, "escapes_root", "leads outside the skill folder")
        listed = {resource.path: resource for resource in self.resources()}
        if relative.as_posix() not in listed:
            raise self._refuse(path, "not_a_resource", "is not one of the skill's resources")
        return self._read_text(path, target)

    def _relative(self, path: str) -> PurePosixPath:
        """`path` as a relative POSIX path with no `..`; raises `SkillResourceError`."""
        if not path.strip():
            raise self._refuse(path, "not_a_resource", "is empty")
        if PurePosixPath(path).is_absolute() or PureWindowsPath(path).anchor:
            raise self._refuse(path, "absolute_path", "is absolute; give a path in the skill")
        relative = PurePosixPath(path.replace("\\", "/"))
        if ".." in relative.parts:
            raise self._refuse(path, "parent_path", "climbs out with '..'")
        return relative

    def _read_text(self, path: str, target: Path) -> str:
        try:
            with target.open("rb") as handle:
                data = handle.read(MAX_RESOURCE_BYTES + 1)
        except OSError as error:
            logger.warning("skill %s: cannot read %s: %s", self.name, path, error)
            raise self._refuse(path, "unreadable", "cannot be read") from error
        if len(data) > MAX_RESOURCE_BYTES:
            raise self._refuse(path, "too_large", f"is over {MAX_RESOURCE_BYTES} bytes")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self._refuse(path, "not_utf8", "is not UTF-8 text") from error

    def _resources_in(self, folder: str, kind: ResourceKind) -> list[SkillResource]:
        directory = self.root / folder
        if not directory.is_dir():
            return []
        try:
            entries = sorted(directory.iterdir(), key=lambda entry: entry.name)
        except OSError as error:
            logger.warning("skill %s: cannot list %s: %s", self.name, folder, error)
            return []
        found: list[SkillResource] = []
        for entry in entries:
            if entry.name.startswith(".") or not entry.is_file():
                continue
            if not self._inside_root(entry):
                logger.warning("skill %s: %s leads outside the skill", self.name, entry.name)
                continue
            try:
                size = entry.stat().st_size
            except OSError as error:
                logger.warning("skill %s: cannot stat %s: %s", self.name, entry.name, error)
                continue
            found.append(SkillResource(path=f"{folder}/{entry.name}", kind=kind, size=size))
        return found

    def _inside_root(self, path: Path) -> bool:
        """Whether `path`, every symlink followed, is the root or inside it."""
        try:
            return path.resolve(strict=True).is_relative_to(self.root)
        except (OSError, RuntimeError):
            # A dangling link or a loop: it cannot be shown to stay inside, so it does not.
            return False

    def _refuse(self, path: str, reason: SkillResourceReason, what: str) -> SkillResourceError:
        return SkillResourceError(
            f"skill {self.name!r}: resource {path!r} {what}",
            path=self.root,
            resource=path,
            reason=reason,
        )

    def __repr__(self) -> str:
        return f"Skill(name={self.name!r}, root={str(self.root)!r})"

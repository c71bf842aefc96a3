"""What an entity is: a kind, an id, and for versioned kinds a PEP 440 version."""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import StrEnum

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, field_validator


class EntityKind(StrEnum):
    """The kinds of construct the registry holds."""

    PROMPT = "prompt"
    SKILL = "skill"
    TOOL = "tool"
    LLM = "llm"
    SYSTEM_ONE = "system_one"
    HOOK = "hook"
    CHANNEL = "channel"
    RENDERER = "renderer"
    STORE = "store"
    AGENT = "agent"


LATEST = "*"
"""The version specifier that means: the highest concrete version registered."""


class EntityRef(BaseModel, frozen=True):
    """A reference to an entity.

    `version` is None for kinds that are not versioned. In a lookup it is a PEP 440 version
    (`1.2.0`, read as `==1.2.0`), a specifier (`>=1,<2`) or `*` for the latest; on a
    registered entry it must be a concrete version.
    """

    kind: EntityKind
    id: str
    version: str | None = None

    @field_validator("id")
    @classmethod
    def _id_not_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("an entity id cannot be empty")
        return value

    @field_validator("version")
    @classmethod
    def _version_parses(cls, value: str | None) -> str | None:
        if value is None or value == LATEST:
            return value
        if not value.strip():
            # packaging reads "" as an empty SpecifierSet that admits everything.
            raise ValueError("a version cannot be blank: omit it, or use '*' for the latest")
        try:
            Version(value)
        except InvalidVersion:
            try:
                SpecifierSet(value)
            except InvalidSpecifier as error:
                raise ValueError(
                    f"{value!r} is neither a PEP 440 version nor a specifier"
                ) from error
        return value

    def concrete_version(self) -> Version | None:
        """The version as a `Version`, or None when it is absent or not concrete."""
        if self.version is None or self.version == LATEST:
            return None
        try:
            return Version(self.version)
        except InvalidVersion:
            return None

    def matches(self, version: Version) -> bool:
        """Whether a registered `version` satisfies this reference's version."""
        if self.version is None or self.version == LATEST:
            return True
        concrete = self.concrete_version()
        if concrete is not None:
            return version == concrete
        return version in SpecifierSet(self.version)

    def __str__(self) -> str:
        suffix = f"@{self.version}" if self.version else ""
        return f"{self.kind}:{self.id}{suffix}"


class Entity(ABC):
    """A construct the registry can hold. Subclasses say which kind they are."""

    ref: EntityRef

    @property
    @abstractmethod
    def kind(self) -> EntityKind:
        """The entity's kind; equals `ref.kind`."""

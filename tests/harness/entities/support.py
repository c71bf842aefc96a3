"""A tiny `Entity` for the registry tests, and ref/entry builders."""

from __future__ import annotations

from tiny_harness.harness.entities import Entity, EntityKind, EntityRef, RegistryEntry


class Thing(Entity):
    """An entity of any kind; `label` tells instances apart in assertions."""

    def __init__(self, ref: EntityRef, label: str = "") -> None:
        self.ref = ref
        self.label = label

    @property
    def kind(self) -> EntityKind:
        return self.ref.kind


class OtherThing(Thing):
    """A second entity class, for lookups that ask for the wrong class."""


def tool_ref(entity_id: str = "search", version: str | None = None) -> EntityRef:
    return EntityRef(kind=EntityKind.TOOL, id=entity_id, version=version)


def thing_entry(ref: EntityRef, label: str = "") -> RegistryEntry:
    """An entry holding a live `Thing` for `ref`."""
    return RegistryEntry(ref=ref, instance=Thing(ref, label))

"""Entities and the registry: every construct (prompt, skill, tool, LLM, hook, channel,
store, agent) is an `Entity` a plugin can add or replace in the `Registry`."""

from tiny_harness.harness.entities.entity import Entity, EntityKind, EntityRef
from tiny_harness.harness.entities.registry import (
    Registry,
    RegistryEntry,
    RemoteLocation,
    RemoteResolver,
    TransportProtocol,
)

__all__ = [
    "Entity",
    "EntityKind",
    "EntityRef",
    "Registry",
    "RegistryEntry",
    "RemoteLocation",
    "RemoteResolver",
    "TransportProtocol",
]

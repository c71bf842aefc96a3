"""`Registry`: one place to add, look up, replace and remove entities.

An entry holds exactly one of: a live instance, a factory (called once, on first lookup),
or a remote location with the protocol that reaches it (resolved by the resolver registered
for that protocol). Lookups are typed: `get(ref, LLM)` returns an `LLM` or raises.

Version resolution: among the entries of a kind and id, a reference with no version or `*`
picks the highest version (an unversioned entry counts as the lowest); a concrete version
must match exactly; a specifier picks the highest version it admits.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from enum import StrEnum

from packaging.version import Version
from pydantic import BaseModel, ConfigDict, HttpUrl, model_validator

from tiny_harness.errors import (
    EntityNotFoundError,
    RegistryConflictError,
    RegistryError,
    VersionNotFoundError,
)
from tiny_harness.harness.entities.entity import LATEST, Entity, EntityKind, EntityRef

type Factory = Callable[[], Entity | Awaitable[Entity]]


class TransportProtocol(StrEnum):
    """How a remote entity is reached."""

    A2A = "a2a"
    MCP = "mcp"
    HTTPS = "https"


class RemoteLocation(BaseModel, frozen=True):
    """Where a remote entity lives and how to talk to it."""

    url: HttpUrl
    protocol: TransportProtocol


type RemoteResolver = Callable[[EntityRef, RemoteLocation], Awaitable[Entity]]


class RegistryEntry(BaseModel):
    """One registered entity: exactly one of `instance`, `factory`, `remote`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ref: EntityRef
    instance: Entity | None = None
    factory: Factory | None = None
    remote: RemoteLocation | None = None

    @model_validator(mode="after")
    def _exactly_one_source(self) -> RegistryEntry:
        given = [x for x in (self.instance, self.factory, self.remote) if x is not None]
        if len(given) != 1:
            raise ValueError("a registry entry needs exactly one of instance, factory, remote")
        if self.ref.version is not None and self.ref.concrete_version() is None:
            raise ValueError(
                f"a registered entity needs a concrete version, not {self.ref.version!r}"
            )
        if self.instance is not None and self.instance.kind != self.ref.kind:
            raise ValueError(f"instance is a {self.instance.kind}, the ref says {self.ref.kind}")
        return self


type _Key = tuple[EntityKind, str, Version | None]

_IN_PROGRESS: ContextVar[frozenset[tuple[int, _Key]]] = ContextVar(
    "registry_in_progress", default=frozenset()
)
"""(registry id, entry key) pairs being materialised by the current task's call chain."""


class Registry:
    """The harness's entities, by kind, id and version."""

    def __init__(self) -> None:
        self._entries: dict[_Key, RegistryEntry] = {}
        self._resolved: dict[_Key, Entity] = {}
        self._resolvers: dict[TransportProtocol, RemoteResolver] = {}
        self._pending: dict[_Key, asyncio.Lock] = {}
        self._lock = asyncio.Lock()

    def register_resolver(self, protocol: TransportProtocol, resolver: RemoteResolver) -> None:
        """Use `resolver` to materialise remote entries reached over `protocol`."""
        self._resolvers[protocol] = resolver

    async def add(self, entry: RegistryEntry, *, override: bool = False) -> None:
        """Register `entry`; raises `RegistryConflictError` if it exists and not `override`."""
        key = _key(entry.ref)
        async with self._lock:
            if key in self._entries and not override:
                raise RegistryConflictError(f"{entry.ref} is already registered")
            self._entries[key] = entry
            self._resolved.pop(key, None)
            if entry.instance is not None:
                self._resolved[key] = entry.instance

    async def remove(self, ref: EntityRef) -> None:
        """Remove the entry `ref` resolves to; raises `EntityNotFoundError` if none."""
        async with self._lock:
            key = self._resolve_key(ref)
            del self._entries[key]
            self._resolved.pop(key, None)
            self._pending.pop(key, None)

    async def get[T: Entity](self, ref: EntityRef, kind: type[T]) -> T:
        """The entity `ref` resolves to, as a `kind`; raises `EntityNotFoundError` or
        `VersionNotFoundError` when there is none.

        A factory or resolver may itself look up other entities; one that (directly or
        through others) looks up its own entry raises `RegistryError` instead of hanging.
        """
        async with self._lock:
            key = self._resolve_key(ref)
            entity = self._resolved.get(key)
        if entity is None:
            entity = await self._resolve_once(key, ref)
        if not isinstance(entity, kind):
            raise EntityNotFoundError(f"{ref} is a {type(entity).__name__}, not a {kind.__name__}")
        return entity

    def list(self, kind: EntityKind | None = None) -> Sequence[EntityRef]:
        """Every registered ref, of one kind or all, in a stable order."""
        refs = [e.ref for e in self._entries.values() if kind is None or e.ref.kind == kind]
        return sorted(refs, key=lambda r: (r.kind, r.id, _sort_version(r)))

    def _resolve_key(self, ref: EntityRef) -> _Key:
        candidates = [k for k in self._entries if k[0] == ref.kind and k[1] == ref.id]
        if not candidates:
            raise EntityNotFoundError(f"no {ref.kind} named {ref.id!r} is registered")
        if ref.version is None or ref.version == LATEST:
            return max(candidates, key=lambda k: (k[2] is not None, k[2] or Version("0")))
        matching = [k for k in candidates if k[2] is not None and ref.matches(k[2])]
        if not matching:
            versions = sorted(str(k[2]) for k in candidates if k[2] is not None)
            raise VersionNotFoundError(
                f"no version of {ref.kind}:{ref.id} matches {ref.version!r}; registered: {versions}"
            )
        return max(matching, key=lambda k: k[2] or Version("0"))

    async def _resolve_once(self, key: _Key, ref: EntityRef) -> Entity:
        # One lock per entry, not the registry lock: concurrent lookups of this entry wait
        # for one factory call, lookups of other entries (also from inside it) do not.
        in_progress = _IN_PROGRESS.get()
        if (id(self), key) in in_progress:
            raise RegistryError(f"{ref} depends on itself through its factory or resolver")
        token = _IN_PROGRESS.set(in_progress | {(id(self), key)})
        try:
            async with self._pending.setdefault(key, asyncio.Lock()):
                entity = self._resolved.get(key)
                if entity is not None:
                    return entity
                entry = self._entries.get(key)
                if entry is None:
                    raise EntityNotFoundError(f"{ref} was removed while it was being resolved")
                entity = await self._materialise(entry)
                if self._entries.get(key) is entry:  # not replaced or removed meanwhile
                    self._resolved[key] = entity
                return entity
        finally:
            _IN_PROGRESS.reset(token)

    async def _materialise(self, entry: RegistryEntry) -> Entity:
        if entry.factory is not None:
            made = entry.factory()
            return await made if inspect.isawaitable(made) else made
        if entry.remote is not None:
            resolver = self._resolvers.get(entry.remote.protocol)
            if resolver is None:
                raise EntityNotFoundError(
                    f"{entry.ref} is remote over {entry.remote.protocol}, which nothing resolves"
                )
            return await resolver(entry.ref, entry.remote)
        raise EntityNotFoundError(f"{entry.ref} has nothing to resolve")


def _key(ref: EntityRef) -> _Key:
    return (ref.kind, ref.id, ref.concrete_version())


def _sort_version(ref: EntityRef) -> Version:
    return ref.concrete_version() or Version("0")

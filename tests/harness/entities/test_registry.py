"""`Registry`: typed add/get/remove, version resolution, factories, remotes, entries, list."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from tests.harness.entities.support import OtherThing, Thing, thing_entry, tool_ref
from tiny_harness.errors import (
    EntityNotFoundError,
    RegistryConflictError,
    RegistryError,
    VersionNotFoundError,
)
from tiny_harness.harness.entities import (
    Entity,
    EntityKind,
    EntityRef,
    Registry,
    RegistryEntry,
    RemoteLocation,
    TransportProtocol,
)

REMOTE = RemoteLocation(url="https://agents.example/a2a", protocol=TransportProtocol.A2A)


async def registry_with(*versions: str | None, entity_id: str = "search") -> Registry:
    """A registry holding one `Thing` per version of tool `entity_id`, labelled by version."""
    registry = Registry()
    for version in versions:
        await registry.add(thing_entry(tool_ref(entity_id, version), label=str(version)))
    return registry


# add / get / remove


async def test_get_returns_the_added_instance_typed() -> None:
    registry = Registry()
    entry = thing_entry(tool_ref())
    await registry.add(entry)

    found = await registry.get(tool_ref(), Thing)

    assert found is entry.instance


async def test_get_as_the_wrong_class_raises_entity_not_found() -> None:
    registry = await registry_with(None)

    with pytest.raises(EntityNotFoundError, match="is a Thing, not a OtherThing"):
        await registry.get(tool_ref(), OtherThing)


async def test_get_as_a_base_class_is_allowed() -> None:
    registry = await registry_with(None)

    assert isinstance(await registry.get(tool_ref(), Entity), Thing)


async def test_get_of_an_unknown_id_raises_entity_not_found() -> None:
    registry = await registry_with(None)

    with pytest.raises(EntityNotFoundError, match="no tool named 'other'"):
        await registry.get(tool_ref("other"), Thing)


async def test_get_does_not_cross_kinds() -> None:
    registry = await registry_with(None)

    with pytest.raises(EntityNotFoundError):
        await registry.get(EntityRef(kind=EntityKind.PROMPT, id="search"), Thing)


async def test_adding_the_same_ref_twice_raises_conflict() -> None:
    registry = await registry_with("1.0")

    with pytest.raises(RegistryConflictError, match=r"tool:search@1\.0 is already registered"):
        await registry.add(thing_entry(tool_ref(version="1.0")))


async def test_equal_versions_spelled_differently_conflict() -> None:
    registry = await registry_with("1.0")

    with pytest.raises(RegistryConflictError):
        await registry.add(thing_entry(tool_ref(version="1.0.0")))


async def test_add_with_override_replaces_the_entry() -> None:
    registry = await registry_with("1.0")
    replacement = thing_entry(tool_ref(version="1.0"), label="replacement")

    await registry.add(replacement, override=True)

    assert await registry.get(tool_ref(version="1.0"), Thing) is replacement.instance
    assert registry.list() == [tool_ref(version="1.0")]


async def test_override_drops_a_cached_factory_result() -> None:
    registry = Registry()
    await registry.add(RegistryEntry(ref=tool_ref(), factory=lambda: Thing(tool_ref(), "old")))
    await registry.get(tool_ref(), Thing)

    await registry.add(
        RegistryEntry(ref=tool_ref(), factory=lambda: Thing(tool_ref(), "new")), override=True
    )

    assert (await registry.get(tool_ref(), Thing)).label == "new"


async def test_remove_makes_the_entity_unfindable() -> None:
    registry = await registry_with(None)

    await registry.remove(tool_ref())

    with pytest.raises(EntityNotFoundError):
        await registry.get(tool_ref(), Thing)
    assert registry.list() == []


async def test_remove_without_a_version_removes_the_highest() -> None:
    registry = await registry_with("1.0", "2.0")

    await registry.remove(tool_ref())

    assert registry.list() == [tool_ref(version="1.0")]


async def test_remove_of_an_unknown_ref_raises_entity_not_found() -> None:
    with pytest.raises(EntityNotFoundError):
        await Registry().remove(tool_ref())


async def test_a_removed_ref_can_be_added_again() -> None:
    registry = await registry_with(None)
    await registry.remove(tool_ref())

    await registry.add(thing_entry(tool_ref(), label="again"))

    assert (await registry.get(tool_ref(), Thing)).label == "again"


# version resolution


@pytest.mark.parametrize("version", [None, "*"])
async def test_no_version_or_latest_picks_the_highest(version: str | None) -> None:
    registry = await registry_with("1.0", "10.0", "2.0", None)

    found = await registry.get(tool_ref(version=version), Thing)

    assert found.label == "10.0"


async def test_an_unversioned_entry_counts_as_the_lowest() -> None:
    registry = await registry_with(None, "0.0.1")

    assert (await registry.get(tool_ref(), Thing)).label == "0.0.1"


async def test_an_unversioned_entry_alone_is_found_without_a_version() -> None:
    registry = await registry_with(None)

    assert (await registry.get(tool_ref(version="*"), Thing)).label == "None"


async def test_an_exact_version_picks_that_version() -> None:
    registry = await registry_with("1.0", "1.5", "2.0")

    assert (await registry.get(tool_ref(version="1.5"), Thing)).label == "1.5"


async def test_a_specifier_picks_the_highest_version_it_admits() -> None:
    registry = await registry_with("0.9", "1.0", "1.7", "1.10", "2.0")

    assert (await registry.get(tool_ref(version=">=1,<2"), Thing)).label == "1.10"


async def test_no_matching_version_raises_version_not_found_listing_versions() -> None:
    registry = await registry_with("2.0", "1.0", None)

    with pytest.raises(VersionNotFoundError, match=r">=3.*registered: \['1\.0', '2\.0'\]"):
        await registry.get(tool_ref(version=">=3"), Thing)


async def test_an_exact_version_that_is_missing_raises_version_not_found() -> None:
    registry = await registry_with("1.0")

    with pytest.raises(VersionNotFoundError):
        await registry.get(tool_ref(version="1.1"), Thing)


async def test_version_not_found_is_a_registry_error_not_entity_not_found() -> None:
    registry = await registry_with("1.0")

    with pytest.raises(RegistryError) as caught:
        await registry.get(tool_ref(version="9"), Thing)
    assert not isinstance(caught.value, EntityNotFoundError)
    assert caught.value.code == "version_not_found"


# factories


async def test_a_sync_factory_is_called_once_and_cached() -> None:
    calls: list[int] = []

    def make() -> Thing:
        calls.append(1)
        return Thing(tool_ref(), "made")

    registry = Registry()
    await registry.add(RegistryEntry(ref=tool_ref(), factory=make))

    first = await registry.get(tool_ref(), Thing)
    second = await registry.get(tool_ref(), Thing)

    assert first is second
    assert first.label == "made"
    assert len(calls) == 1


async def test_an_async_factory_is_called_once_even_under_concurrent_gets() -> None:
    calls: list[int] = []

    async def make() -> Thing:
        calls.append(1)
        await asyncio.sleep(0.01)
        return Thing(tool_ref(), "made")

    registry = Registry()
    await registry.add(RegistryEntry(ref=tool_ref(), factory=make))

    found = await asyncio.gather(*(registry.get(tool_ref(), Thing) for _ in range(5)))

    assert all(item is found[0] for item in found)
    assert len(calls) == 1


async def test_a_factory_is_not_called_until_the_first_get() -> None:
    calls: list[int] = []

    def make() -> Thing:
        calls.append(1)
        return Thing(tool_ref())

    registry = Registry()
    await registry.add(RegistryEntry(ref=tool_ref(), factory=make))

    assert calls == []


async def test_a_failing_factory_is_retried_on_the_next_get() -> None:
    attempts: list[int] = []

    def make() -> Thing:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("first attempt fails")
        return Thing(tool_ref(), "second")

    registry = Registry()
    await registry.add(RegistryEntry(ref=tool_ref(), factory=make))

    with pytest.raises(RuntimeError, match="first attempt fails"):
        await registry.get(tool_ref(), Thing)
    assert (await registry.get(tool_ref(), Thing)).label == "second"


async def test_a_factory_may_look_up_another_entity() -> None:
    # A factory that needs another entity (an LLM that needs its store, say) must not
    # deadlock on the registry's own lock.
    registry = await registry_with(None, entity_id="dependency")

    async def make() -> Thing:
        dependency = await registry.get(tool_ref("dependency"), Thing)
        return Thing(tool_ref(), f"uses {dependency.label}")

    await registry.add(RegistryEntry(ref=tool_ref(), factory=make))

    async with asyncio.timeout(5):
        assert (await registry.get(tool_ref(), Thing)).label == "uses None"


async def test_a_slow_factory_does_not_block_other_lookups() -> None:
    release = asyncio.Event()

    async def slow() -> Thing:
        await release.wait()
        return Thing(tool_ref("slow"))

    registry = await registry_with(None)
    await registry.add(RegistryEntry(ref=tool_ref("slow"), factory=slow))
    pending = asyncio.create_task(registry.get(tool_ref("slow"), Thing))
    await asyncio.sleep(0)

    async with asyncio.timeout(5):
        assert (await registry.get(tool_ref(), Thing)).label == "None"
        release.set()
        assert (await pending).ref == tool_ref("slow")


async def test_a_factory_that_needs_itself_raises_instead_of_hanging() -> None:
    registry = Registry()

    async def make() -> Thing:
        await registry.get(tool_ref(), Thing)
        return Thing(tool_ref())

    await registry.add(RegistryEntry(ref=tool_ref(), factory=make))

    async with asyncio.timeout(5):
        with pytest.raises(RegistryError, match="depends on itself"):
            await registry.get(tool_ref(), Thing)


async def test_an_entry_replaced_while_its_factory_runs_is_not_cached_stale() -> None:
    release = asyncio.Event()

    async def slow() -> Thing:
        await release.wait()
        return Thing(tool_ref(), "stale")

    registry = Registry()
    await registry.add(RegistryEntry(ref=tool_ref(), factory=slow))
    pending = asyncio.create_task(registry.get(tool_ref(), Thing))
    await asyncio.sleep(0)
    await registry.add(thing_entry(tool_ref(), label="fresh"), override=True)
    release.set()

    async with asyncio.timeout(5):
        assert (await pending).label == "stale"
    assert (await registry.get(tool_ref(), Thing)).label == "fresh"


# remote entries


async def test_a_remote_entry_is_resolved_once_through_its_protocol_resolver() -> None:
    seen: list[tuple[EntityRef, RemoteLocation]] = []

    async def resolve(ref: EntityRef, location: RemoteLocation) -> Entity:
        seen.append((ref, location))
        return Thing(ref, "remote")

    registry = Registry()
    registry.register_resolver(TransportProtocol.A2A, resolve)
    await registry.add(RegistryEntry(ref=tool_ref(), remote=REMOTE))

    first = await registry.get(tool_ref(), Thing)
    second = await registry.get(tool_ref(), Thing)

    assert first is second
    assert first.label == "remote"
    assert seen == [(tool_ref(), REMOTE)]


async def test_a_remote_entry_without_a_resolver_raises_entity_not_found() -> None:
    async def resolve(ref: EntityRef, location: RemoteLocation) -> Entity:
        return Thing(ref)

    registry = Registry()
    registry.register_resolver(TransportProtocol.MCP, resolve)
    await registry.add(RegistryEntry(ref=tool_ref(), remote=REMOTE))

    with pytest.raises(EntityNotFoundError, match="remote over a2a, which nothing resolves"):
        await registry.get(tool_ref(), Thing)


# entries


def test_an_entry_with_no_source_is_refused() -> None:
    with pytest.raises(ValidationError, match="exactly one of instance, factory, remote"):
        RegistryEntry(ref=tool_ref())


def test_an_entry_with_two_sources_is_refused() -> None:
    with pytest.raises(ValidationError, match="exactly one of instance, factory, remote"):
        RegistryEntry(ref=tool_ref(), instance=Thing(tool_ref()), remote=REMOTE)


@pytest.mark.parametrize("version", ["*", ">=1", "==1.*"])
def test_an_entry_needs_a_concrete_version(version: str) -> None:
    with pytest.raises(ValidationError, match="needs a concrete version"):
        thing_entry(tool_ref(version=version))


def test_an_entry_instance_must_be_of_the_ref_kind() -> None:
    prompt = Thing(EntityRef(kind=EntityKind.PROMPT, id="search"))

    with pytest.raises(ValidationError, match="instance is a prompt, the ref says tool"):
        RegistryEntry(ref=tool_ref(), instance=prompt)


def test_an_entry_instance_must_be_an_entity() -> None:
    with pytest.raises(ValidationError):
        RegistryEntry(ref=tool_ref(), instance="not an entity")


# list


async def test_list_is_ordered_by_kind_id_then_version() -> None:
    registry = Registry()
    refs = [
        tool_ref("b", "10.0"),
        EntityRef(kind=EntityKind.PROMPT, id="system"),
        tool_ref("b", "2.0"),
        tool_ref("a"),
        tool_ref("b"),
    ]
    for ref in refs:
        await registry.add(thing_entry(ref))

    assert registry.list() == [
        EntityRef(kind=EntityKind.PROMPT, id="system"),
        tool_ref("a"),
        tool_ref("b"),
        tool_ref("b", "2.0"),
        tool_ref("b", "10.0"),
    ]


async def test_list_filters_by_kind() -> None:
    registry = await registry_with("1.0", None)
    await registry.add(thing_entry(EntityRef(kind=EntityKind.PROMPT, id="system")))

    assert registry.list(EntityKind.TOOL) == [tool_ref(), tool_ref(version="1.0")]
    assert registry.list(EntityKind.PROMPT) == [EntityRef(kind=EntityKind.PROMPT, id="system")]
    assert registry.list(EntityKind.LLM) == []

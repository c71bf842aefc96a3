"""`load_executor`: local executors from an import path, and the ways that can fail."""

from __future__ import annotations

import pickle

import pytest

from tiny_harness.errors import HookLoadError
from tiny_harness.harness.hooks import (
    AbortReason,
    HookAbort,
    HookExecutor,
    LocalHookExecutor,
    load_executor,
)

from . import samples

MODULE = "tests.harness.hooks.samples"


@pytest.mark.parametrize("attribute", ["instance", "factory", "PassingExecutor", "Holder.hook"])
async def test_load_executor_finds_an_instance_or_a_factory(attribute: str) -> None:
    loaded = load_executor(f"{MODULE}:{attribute}")

    assert isinstance(loaded, LocalHookExecutor)
    assert isinstance(loaded, HookExecutor)
    assert loaded.import_path == f"{MODULE}:{attribute}"
    assert (loaded.name, loaded.priority, loaded.points) == (
        "sample.pass",
        10,
        frozenset({samples.TOOL_PRE}),
    )
    assert await loaded.handle(samples.TOOL_PRE, samples.tool_pre()) is None


def test_load_executor_returns_the_very_instance_named() -> None:
    assert load_executor(f"{MODULE}:instance").target is samples.instance


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("tests.harness.hooks.samples", "not an import path"),
        (":instance", "not an import path"),
        (f"{MODULE}:", "not an import path"),
        ("tests.harness.hooks.no_such_module:instance", "cannot import"),
        (f"{MODULE}:no_such_attribute", "no attribute"),
        (f"{MODULE}:Holder.nothing", "no attribute 'nothing'"),
        (f"{MODULE}:failing_factory", "the factory failed"),
        (f"{MODULE}:junk_factory", "not a hook executor"),
        (f"{MODULE}:not_an_executor", "not a hook executor"),
        (f"{MODULE}:SyncHandle", "not a hook executor"),
        (f"{MODULE}:StringPoints", "not a hook executor"),
    ],
)
def test_load_executor_refuses_what_is_not_an_executor(path: str, why: str) -> None:
    with pytest.raises(HookLoadError, match=why):
        load_executor(path)


def test_abort_carries_its_reason_across_pickling() -> None:
    abort = HookAbort(AbortReason(code="tool_denied", message="no"))

    restored = pickle.loads(pickle.dumps(abort))

    assert restored.reason == abort.reason
    assert str(restored) == "tool_denied: no"
    assert restored.code == "hook_abort"

"""The JSON schemas other processes rely on match their committed snapshots: every hook
context (remote executors receive and return them) and the configuration.

A failure lists what changed. If the change is deliberate, run
`python -m tests.contract.snapshot --write` and commit the updated snapshots with it.
"""

from __future__ import annotations

import pytest

from tests.contract import snapshot
from tiny_harness.harness.hooks import CONTEXTS


@pytest.mark.parametrize("kind", ["hook_contexts", "config"])
def test_schema_matches_the_snapshot(kind: str) -> None:
    problem = snapshot.check(kind, snapshot.schemas()[kind])
    if problem is not None:
        pytest.fail(problem, pytrace=False)


def test_there_is_a_schema_for_every_hook_point() -> None:
    assert sorted(snapshot.schemas()["hook_contexts"]) == sorted(str(p) for p in CONTEXTS)


@pytest.mark.parametrize("point", sorted(str(p) for p in CONTEXTS))
def test_every_hook_context_requires_task_id_and_correlation_id(point: str) -> None:
    schema = snapshot.schemas()["hook_contexts"][point]

    assert isinstance(schema, dict)
    properties = schema["properties"]
    required = schema["required"]
    assert isinstance(properties, dict)
    assert isinstance(required, list)
    assert {"task_id", "correlation_id"} <= properties.keys()
    assert {"task_id", "correlation_id"} <= set(required)


def test_the_config_schema_forbids_unknown_top_level_keys() -> None:
    schema = snapshot.schemas()["config"]

    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False

"""The public API matches its committed snapshot (`snapshots/api.json`).

A failure lists what was added, removed or changed. If the change is deliberate, run
`python -m tests.contract.snapshot --write` and commit the updated snapshot with it.
"""

from __future__ import annotations

import re

import pytest

from tests.contract import snapshot


def test_public_api_matches_the_snapshot() -> None:
    problem = snapshot.check("api", snapshot.api_snapshot())
    if problem is not None:
        pytest.fail(problem, pytrace=False)


def test_the_snapshot_is_deterministic_and_free_of_memory_addresses() -> None:
    first = snapshot.render(snapshot.api_snapshot())

    assert first == snapshot.render(snapshot.api_snapshot())
    assert re.search(r"0x[0-9a-fA-F]{6,}", first) is None


def test_every_pinned_module_has_public_names() -> None:
    api = snapshot.api_snapshot()

    assert sorted(api) == sorted(snapshot.MODULES)
    assert all(api[module] for module in snapshot.MODULES)


def test_a_mismatch_names_what_changed_and_how_to_update() -> None:
    before: snapshot.JsonObject = {
        "pkg": {
            "Kept": {"kind": "class", "fields": {"a": {"annotation": "str"}}},
            "Gone": {"kind": "function", "signature": "() -> None"},
        }
    }
    after: snapshot.JsonObject = {
        "pkg": {
            "Kept": {"kind": "class", "fields": {"b": {"annotation": "str"}}},
            "New": {"kind": "function", "signature": "(x: int) -> None"},
        }
    }

    lines = snapshot.diff(before, after, group_depth=2)

    assert lines == [
        "  removed: pkg.Gone",
        "  changed: pkg.Kept",
        '      - fields.a: {"annotation": "str"}',
        '      + fields.b: {"annotation": "str"}',
        "  added:   pkg.New",
    ]

"""The public surface of `tiny_harness.harness.skills` is exactly its `__all__`."""

from __future__ import annotations

import tiny_harness.harness.skills as skills


def test_all_lists_exactly_the_public_names() -> None:
    public = {name for name in vars(skills) if not name.startswith("_")}
    modules = {"catalog", "front_matter", "loader", "skill", "tools"}

    assert set(skills.__all__) == public - modules

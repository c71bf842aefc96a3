"""The public surface of `tiny_harness.harness.prompts` is exactly its `__all__`."""

from __future__ import annotations

import tiny_harness.harness.prompts as prompts


def test_all_lists_exactly_the_public_names() -> None:
    public = {name for name in vars(prompts) if not name.startswith("_")}
    modules = {"entity", "sections", "system"}

    assert set(prompts.__all__) == public - modules
    assert sorted(prompts.__all__) == [
        "PREAMBLE",
        "PromptEntity",
        "PromptSection",
        "SYSTEM_PROMPT_ID",
        "SystemPrompt",
        "load_builtin_system_prompt",
        "parse_sections",
        "render_sections",
        "split_front_matter",
        "trim_blank_lines",
    ]

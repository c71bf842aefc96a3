"""Prompts: Markdown split into named sections, the `PromptEntity` the registry holds, and
the `SystemPrompt` plugins compose (replace the whole, or extend a section)."""

from tiny_harness.harness.prompts.entity import PromptEntity
from tiny_harness.harness.prompts.sections import (
    PREAMBLE,
    PromptSection,
    parse_sections,
    render_sections,
    split_front_matter,
    trim_blank_lines,
)
from tiny_harness.harness.prompts.system import (
    SYSTEM_PROMPT_ID,
    SystemPrompt,
    load_builtin_system_prompt,
)

__all__ = [
    "PREAMBLE",
    "SYSTEM_PROMPT_ID",
    "PromptEntity",
    "PromptSection",
    "SystemPrompt",
    "load_builtin_system_prompt",
    "parse_sections",
    "render_sections",
    "split_front_matter",
    "trim_blank_lines",
]

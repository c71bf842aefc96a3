"""`SystemPrompt`: the system prompt as plugins compose it, and the built-in default.

    builtin/systemprompt.md ──▶ base ──replace(prompt)──▶ base      (last replace wins)
    plugin prompts/<x>.md, front matter `extends: <section>`
                            ──extend(section, body)──▶ extensions  (kept in call order)
    prompt = base + each extension appended to its section
    render_static() = prompt without the `dynamic` sections

A `SystemPrompt` is immutable: `replace` and `extend` return a new one. Extensions are
kept apart from the base, so a plugin's extension survives another plugin replacing the
base, whichever loads first; a base that lacks an extended section is refused. This module
reads one packaged file (`load_builtin_system_prompt`) and does no other I/O; what counts
as dynamic is the caller's (the context window manager's) choice.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from typing import Final

from pydantic import BaseModel, field_validator, model_validator

from tiny_harness.errors import PromptError
from tiny_harness.harness.prompts.entity import PromptEntity
from tiny_harness.harness.prompts.sections import (
    PromptSection,
    render_sections,
    trim_blank_lines,
)

SYSTEM_PROMPT_ID: Final = "system"
"""The registry id of the system prompt."""

_BUILTIN_PACKAGE: Final = "tiny_harness.builtin"
_BUILTIN_FILE: Final = "systemprompt.md"


class SystemPrompt(BaseModel, frozen=True):
    """A base prompt, the section extensions plugins added to it, and which section names
    are dynamic (rendered per turn by the caller, so left out of `render_static`)."""

    base: PromptEntity
    extensions: tuple[PromptSection, ...] = ()
    """Texts to append, each named by the section it extends, in the order added."""
    dynamic: frozenset[str] = frozenset()

    @field_validator("dynamic")
    @classmethod
    def _normalise_dynamic(cls, value: frozenset[str]) -> frozenset[str]:
        return frozenset(name.strip().lower() for name in value)

    @model_validator(mode="after")
    def _extensions_have_sections(self) -> SystemPrompt:
        missing = _missing_section(self.base, self.extensions)
        if missing is not None:
            raise ValueError(f"the base prompt has no section {missing!r} to extend")
        return self

    def replace(self, prompt: PromptEntity) -> SystemPrompt:
        """A system prompt with `prompt` as its whole base, keeping the extensions.

        Raises `PromptError` naming the section when `prompt` lacks one that is extended.
        """
        missing = _missing_section(prompt, self.extensions)
        if missing is not None:
            raise PromptError(
                f"the replacement prompt {prompt.ref.id!r} has no section {missing!r}, "
                "which a plugin extends",
                section=missing,
            )
        return SystemPrompt(base=prompt, extensions=self.extensions, dynamic=self.dynamic)

    def extend(self, section_name: str, text: str) -> SystemPrompt:
        """A system prompt with `text` (blank lines around it dropped) appended to the
        section `section_name`, after any earlier extension of it; blank `text` changes
        nothing. Raises `PromptError` naming the section when the base has no such section.
        """
        name = section_name.strip().lower()
        if self.base.section(name) is None:
            known = ", ".join(self.base.section_names) or "none"
            raise PromptError(
                f"cannot extend section {name!r}: the system prompt has no such section "
                f"(its sections: {known})",
                section=name,
            )
        body = trim_blank_lines(text)
        if not body:
            return self
        extension = PromptSection(name=name, text=body)
        return SystemPrompt(
            base=self.base, extensions=(*self.extensions, extension), dynamic=self.dynamic
        )

    @property
    def prompt(self) -> PromptEntity:
        """The composed prompt: the base with every extension appended to its section."""
        texts = {section.name: [section.text] for section in self.base.sections}
        for extension in self.extensions:
            texts[extension.name].append(extension.text)
        sections = tuple(
            PromptSection(name=name, text="\n\n".join(part for part in parts if part))
            for name, parts in texts.items()
        )
        return PromptEntity(
            ref=self.base.ref, sections=sections, front_matter=self.base.front_matter
        )

    def render_static(self) -> str:
        """The composed prompt's stable sections (all but the dynamic ones) as Markdown, in
        order: the cacheable prefix of every request."""
        return render_sections(s for s in self.prompt.sections if s.name not in self.dynamic)


def load_builtin_system_prompt() -> PromptEntity:
    """The default system prompt (`tiny_harness/builtin/systemprompt.md`), id "system"."""
    text = resources.files(_BUILTIN_PACKAGE).joinpath(_BUILTIN_FILE).read_text("utf-8")
    return PromptEntity.from_markdown(
        SYSTEM_PROMPT_ID, text, source=f"{_BUILTIN_PACKAGE}/{_BUILTIN_FILE}"
    )


def _missing_section(base: PromptEntity, extensions: Iterable[PromptSection]) -> str | None:
    """The first extended section name `base` does not have, or None."""
    names = set(base.section_names)
    return next((e.name for e in extensions if e.name not in names), None)

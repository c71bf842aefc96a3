"""`PromptEntity`: a prompt as the registry holds it, an ordered tuple of named sections.

It is an immutable value (a frozen pydantic model, so it can cross an activity boundary).
It reads no files: `from_markdown` takes text the caller has read.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from tiny_harness.harness.entities import Entity, EntityKind, EntityRef
from tiny_harness.harness.prompts.sections import (
    PromptSection,
    parse_sections,
    render_sections,
    split_front_matter,
)


class PromptEntity(BaseModel, Entity, frozen=True):
    """A prompt: its `ref` (kind PROMPT), its `sections` in order, and the front matter it
    was written with (a plugin prompt's `extends`, say; never rendered).

    Section names are unique; building one with a repeated name raises `ValidationError`.
    """

    ref: EntityRef
    sections: tuple[PromptSection, ...]
    front_matter: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> PromptEntity:
        if self.ref.kind is not EntityKind.PROMPT:
            raise ValueError(f"a prompt's ref must be of kind prompt, not {self.ref.kind}")
        names = [section.name for section in self.sections]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"section {repeated[0]!r} appears twice")
        return self

    @property
    def kind(self) -> EntityKind:
        """Always `EntityKind.PROMPT`."""
        return EntityKind.PROMPT

    @property
    def section_names(self) -> tuple[str, ...]:
        """The names of the sections, in order."""
        return tuple(section.name for section in self.sections)

    def section(self, name: str) -> PromptSection | None:
        """The section called `name` (matched stripped and lower-cased), or None."""
        wanted = name.strip().lower()
        return next((s for s in self.sections if s.name == wanted), None)

    def render(self) -> str:
        """The sections as Markdown, in order, each under a `## name` heading (a leading
        "preamble" section has none); parsing the result gives the same sections."""
        return render_sections(self.sections)

    @classmethod
    def from_markdown(cls, id: str, text: str, *, source: str) -> PromptEntity:
        """The prompt `id` (unversioned) parsed from `text`: front matter first, if any,
        then the body's sections. `source` names the text in errors; raises `PromptError`."""
        front_matter, body = split_front_matter(text, source=source)
        return cls(
            ref=EntityRef(kind=EntityKind.PROMPT, id=id),
            sections=parse_sections(body, source=source),
            front_matter=front_matter,
        )

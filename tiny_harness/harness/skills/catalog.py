"""`SkillCatalog`: the skills a harness knows, by name, and the five skill intrinsics.

Disclosure is progressive: the system prompt carries only `index()` (one line per skill);
the model pulls a body with `load_skill` and a file with `load_skill_resource` when it needs
them. The functions here compute each intrinsic's result text from a catalog and the
call's validated arguments. They hold no state, so they cannot say whether a skill is
loaded; recording that (and connecting a skill's MCP servers) is the `invoke_tool`
activity's and the workflow's job, not this module's.

Every function raises `UnknownSkillError` for a name the catalog does not hold, and
`load_skill_resource` raises `SkillResourceError` for a path it refuses; the caller turns
either into an error result the model reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

from pydantic import BaseModel, Field

from tiny_harness.errors import RegistryConflictError, UnknownSkillError
from tiny_harness.harness.skills.skill import Skill

NO_SKILLS: Final = "No skills are available."


class SkillCatalog:
    """Skills by name. Lookups by a name nobody added raise `UnknownSkillError`."""

    def __init__(self, skills: Iterable[Skill] = ()) -> None:
        self._skills: dict[str, Skill] = {}
        for skill in skills:
            self.add(skill)

    def add(self, skill: Skill, *, override: bool = False) -> None:
        """Add `skill`; raises `RegistryConflictError` when its name is taken and not
        `override`."""
        if skill.name in self._skills and not override:
            raise RegistryConflictError(f"a skill named {skill.name!r} is already known")
        self._skills[skill.name] = skill

    def get(self, name: str) -> Skill:
        """The skill called `name`; raises `UnknownSkillError`."""
        skill = self._skills.get(name)
        if skill is None:
            known = ", ".join(self.names()) or "none"
            raise UnknownSkillError(f"no skill named {name!r}; known: {known}", name=name)
        return skill

    def names(self) -> tuple[str, ...]:
        """Every skill's name, sorted."""
        return tuple(sorted(self._skills))

    def index(self) -> str:
        """The system prompt's skills section: `- name: description`, one line per skill,
        by name. Empty when there are no skills."""
        lines = [f"- {name}: {_one_line(self._skills[name].description)}" for name in self.names()]
        return "\n".join(lines)

    def __contains__(self, name: object) -> bool:
        return name in self._skills

    def __len__(self) -> int:
        return len(self._skills)


class ListSkillsArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `list_skills`: none."""


class LoadSkillArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `load_skill`."""

    name: str = Field(min_length=1, description="The skill's name, as `list_skills` gives it.")


class UnloadSkillArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `unload_skill`."""

    name: str = Field(min_length=1, description="The name of a skill loaded earlier.")


class ListSkillResourcesArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `list_skill_resources`."""

    name: str = Field(min_length=1, description="The skill's name.")


class LoadSkillResourceArgs(BaseModel, extra="forbid", frozen=True):
    """Arguments of `load_skill_resource`."""

    name: str = Field(min_length=1, description="The skill's name.")
    path: str = Field(
        min_length=1,
        description="The resource's path as `list_skill_resources` gives it, "
        "such as references/guide.md.",
    )


def list_skills(catalog: SkillCatalog, args: ListSkillsArgs) -> str:
    """Every skill's name and description, one per line (the same text as the index)."""
    return catalog.index() or NO_SKILLS


def load_skill(catalog: SkillCatalog, args: LoadSkillArgs) -> str:
    """The skill's body: the instructions the model follows while the skill is loaded."""
    return catalog.get(args.name).body


def unload_skill(catalog: SkillCatalog, args: UnloadSkillArgs) -> str:
    """The confirmation the model reads once the skill's body leaves its context."""
    skill = catalog.get(args.name)
    return f"Skill {skill.name!r} unloaded; its instructions no longer apply."


def list_skill_resources(catalog: SkillCatalog, args: ListSkillResourcesArgs) -> str:
    """The skill's resources, one per line: `- path (kind, size bytes)`."""
    skill = catalog.get(args.name)
    resources = skill.resources()
    if not resources:
        return f"Skill {skill.name!r} has no resources."
    return "\n".join(f"- {r.path} ({r.kind}, {r.size} bytes)" for r in resources)


def load_skill_resource(catalog: SkillCatalog, args: LoadSkillResourceArgs) -> str:
    """The text of one resource; raises `SkillResourceError` for a path it refuses."""
    return catalog.get(args.name).read_resource(args.path)


class SkillToolSpec(NamedTuple):
    """What the tool wiring needs to define one skill intrinsic."""

    name: str
    description: str
    args: type[BaseModel]


SKILL_TOOL_SPECS: Final[tuple[SkillToolSpec, ...]] = (
    SkillToolSpec(
        "list_skills",
        "List the skills you can load, each with what it is for.",
        ListSkillsArgs,
    ),
    SkillToolSpec(
        "load_skill",
        "Load a skill's instructions into your context and follow them.",
        LoadSkillArgs,
    ),
    SkillToolSpec(
        "unload_skill",
        "Unload a skill you no longer need, removing its instructions from your context.",
        UnloadSkillArgs,
    ),
    SkillToolSpec(
        "list_skill_resources",
        "List the files (scripts, references, assets) a skill offers.",
        ListSkillResourcesArgs,
    ),
    SkillToolSpec(
        "load_skill_resource",
        "Read one file a skill offers, by the path list_skill_resources gives.",
        LoadSkillResourceArgs,
    ),
)
"""The five skill intrinsics in a stable order: name, description and argument model."""


def _one_line(text: str) -> str:
    return " ".join(text.split())

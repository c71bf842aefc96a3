"""Skills in the Agent Skills format: load skill folders, list and read their resources,
and answer the five skill intrinsics from a catalog. Nothing here talks to MCP servers or
the workflow; the `invoke_tool` activity wires these pieces in."""

from tiny_harness.harness.skills.catalog import (
    SKILL_TOOL_SPECS,
    ListSkillResourcesArgs,
    ListSkillsArgs,
    LoadSkillArgs,
    LoadSkillResourceArgs,
    SkillCatalog,
    SkillToolSpec,
    UnloadSkillArgs,
    list_skill_resources,
    list_skills,
    load_skill,
    load_skill_resource,
    unload_skill,
)
from tiny_harness.harness.skills.front_matter import SkillFrontMatter, split_front_matter
from tiny_harness.harness.skills.loader import SKILL_FILE, SkillLoader
from tiny_harness.harness.skills.skill import (
    MAX_RESOURCE_BYTES,
    ResourceKind,
    Skill,
    SkillResource,
)

__all__ = [
    "MAX_RESOURCE_BYTES",
    "SKILL_FILE",
    "SKILL_TOOL_SPECS",
    "ListSkillResourcesArgs",
    "ListSkillsArgs",
    "LoadSkillArgs",
    "LoadSkillResourceArgs",
    "ResourceKind",
    "Skill",
    "SkillCatalog",
    "SkillFrontMatter",
    "SkillLoader",
    "SkillResource",
    "SkillToolSpec",
    "UnloadSkillArgs",
    "list_skill_resources",
    "list_skills",
    "load_skill",
    "load_skill_resource",
    "split_front_matter",
    "unload_skill",
]

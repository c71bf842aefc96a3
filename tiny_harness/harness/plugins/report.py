"""`LoadReport`: what reading one plugin loaded and what it skipped, and why.

A report is the record of every refusal the reader made (an escaping path, a `${` in a
command, an invalid entry): an operator reads `summary()`, code reads `skipped()`. Reasons
name fields and rules, never the values a plugin supplied, so no env value or header
(which might hold a secret) ends up in a report or a log.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

type ComponentKind = Literal["manifest", "skill", "mcp", "hook", "prompt", "systemprompt"]


class ComponentStatus(BaseModel, frozen=True):
    """One component of a plugin, and whether it was loaded.

    `reason` says why a component was skipped; a loaded component has none. A manifest
    key that was reported and ignored (an unknown top-level key) is a skipped "manifest"
    component named after the key.
    """

    kind: ComponentKind
    name: str
    status: Literal["loaded", "skipped"]
    reason: str | None = None


class LoadReport(BaseModel, frozen=True):
    """Every component of one plugin, in the order the reader met them."""

    plugin: str
    components: tuple[ComponentStatus, ...] = ()

    def loaded(self) -> tuple[ComponentStatus, ...]:
        """The components that were loaded."""
        return tuple(c for c in self.components if c.status == "loaded")

    def skipped(self) -> tuple[ComponentStatus, ...]:
        """The components that were skipped, each with its reason."""
        return tuple(c for c in self.components if c.status == "skipped")

    def summary(self) -> str:
        """A few readable lines: a count, then one line per component."""
        lines = [
            f"plugin {self.plugin}: {len(self.loaded())} loaded, {len(self.skipped())} skipped"
        ]
        for component in self.components:
            line = f"  {component.status:<7} {component.kind:<12} {component.name}"
            if component.reason:
                line += f": {component.reason}"
            lines.append(line)
        return "\n".join(lines)

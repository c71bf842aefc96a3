"""How the harness's own A2A extensions (task, event, channel) write their JSON.

A2A §5.5 asks for camelCase field names in JSON, and the A2A TCK checks it (DM-SERIAL-001,
a MUST). Our models keep Python's snake_case names and write camelCase keys; they read
either, so a task stored before the keys changed still reads.
"""

from __future__ import annotations

from typing import Final

from pydantic import ConfigDict
from pydantic.alias_generators import to_camel

CAMEL_KEYS: Final = ConfigDict(
    alias_generator=to_camel,
    # Schema titles from the field's name ("Channel Id"), not its alias ("Channelid").
    field_title_generator=lambda name, _: name.replace("_", " ").title(),
    validate_by_name=True,
    validate_by_alias=True,
    serialize_by_alias=True,
)
"""The key settings of every extension model: camelCase written, either case read."""

EXTENSION_MODEL: Final = ConfigDict(
    extra="forbid",
    frozen=True,
    # Attribute docstrings become the field descriptions of the committed schemas.
    use_attribute_docstrings=True,
    **CAMEL_KEYS,
)
"""The configuration of an extension model: closed, immutable, described, camelCase."""

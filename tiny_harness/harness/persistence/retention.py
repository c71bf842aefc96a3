"""Retention: how long the store keeps each kind of record.

The heartbeat's `retention_sweep` activity deletes what has outlived its time-to-live on
every tick. Tasks (and their plan and state) count from their terminal state, so a task
that is still running is never swept, however old.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, Field

from tiny_harness.harness.persistence.records import RecordKind

DEFAULT_TTL = timedelta(days=30)


class RetentionConfig(BaseModel, extra="forbid", frozen=True):
    """Time-to-live per record kind (`[retention.ttl]` in TOML, e.g. `plan = "P7D"`)."""

    ttl: dict[RecordKind, timedelta] = Field(
        default_factory=lambda: dict.fromkeys(RecordKind, DEFAULT_TTL)
    )

    def ttl_of(self, kind: RecordKind) -> timedelta:
        """How long records of `kind` are kept (the default for a kind not configured)."""
        return self.ttl.get(kind, DEFAULT_TTL)

"""Retention: how long the store keeps each kind of record.

The heartbeat's `retention_sweep` activity deletes what has outlived its time-to-live on
every tick, through `sweep`. Tasks (and their plan and state) count from their terminal
state, so a task that is still running is never swept, however old. This module decides
what is due; it never reads the clock (the caller passes `now`) and never deletes anything
except through `Store.delete_expired`.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.records import RecordKind
from tiny_harness.harness.settings.duration import Duration

if TYPE_CHECKING:
    # Only for annotations: the configuration imports this module and needs no store.
    from tiny_harness.harness.persistence.store import Store

logger = logging.getLogger(__name__)

DEFAULT_TTL = timedelta(days=30)


_TTL = Field(default=DEFAULT_TTL, gt=timedelta(0))


class RetentionConfig(BaseModel, extra="forbid", frozen=True):
    """Time-to-live per record kind, one field each (`[retention] plan = "P7D"` in TOML,
    `TINY_HARNESS_RETENTION__PLAN=P7D` in the environment); a ttl must be positive."""

    task: Duration = _TTL
    """A task's record, counted from its final state (its plan, state and stored tool
    results go with it)."""
    plan: Duration = _TTL
    """A plan's revisions, counted from the task's final state."""
    state: Duration = _TTL
    """The loop's state records, counted from the task's final state."""
    inbox_audit: Duration = _TTL
    """The audit record of each message a task took in."""
    compaction: Duration = _TTL
    """Each compaction's record (what was folded, and the summary)."""
    channel_message: Duration = _TTL
    """Each message posted to a task's channel."""
    tool_result: Duration = _TTL
    """Counted like a plan: kept while its task runs, however old."""

    @classmethod
    def every(cls, ttl: timedelta) -> RetentionConfig:
        """The same `ttl` for every kind."""
        return cls(**{kind.value: ttl for kind in RecordKind})

    def ttl_of(self, kind: RecordKind) -> timedelta:
        """How long records of `kind` are kept."""
        ttl: timedelta = getattr(self, kind.value)
        return ttl


async def sweep(store: Store, config: RetentionConfig, now: datetime) -> dict[RecordKind, int]:
    """Delete every record that has outlived its kind's ttl as of `now`; how many of each
    kind went (every kind is a key, 0 included).

    Logs one INFO line with the non-zero counts when anything went. A kind that fails does
    not stop the others: each failure is logged, and once every kind has been tried one
    `StoreError` names the kinds that failed (the ones that went through stay deleted).
    Raises `StoreError` for a naive `now` before touching the store.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise StoreError(f"the sweep's now must be timezone-aware, got the naive {now}")
    deleted: dict[RecordKind, int] = {}
    failures: dict[RecordKind, StoreError] = {}
    for kind in RecordKind:
        try:
            cutoff = now - config.ttl_of(kind)
        except OverflowError:
            # A ttl reaching back before year 1: nothing can be that old.
            deleted[kind] = 0
            continue
        try:
            deleted[kind] = await store.delete_expired(kind, cutoff)
        except StoreError as exc:
            logger.error("retention sweep: deleting expired %s records failed: %s", kind, exc)
            failures[kind] = exc
    swept = {kind: count for kind, count in deleted.items() if count}
    if swept:
        logger.info(
            "retention sweep deleted %s",
            ", ".join(f"{count} {kind}" for kind, count in swept.items()),
        )
    if failures:
        first = next(iter(failures.values()))
        raise StoreError(
            f"retention sweep failed for {', '.join(failures)} (see the log)"
        ) from first
    return deleted

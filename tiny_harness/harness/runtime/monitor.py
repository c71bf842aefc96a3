"""`MonitorSnapshot`: what the heartbeat saw on its latest tick.

The heartbeat workflow takes one per tick (`monitor_snapshot` activity), runs the
heartbeat.tick hooks with it and the server serves the newest on `GET /_monitor`, with what
the same tick's channel poll (`ChannelCounts`) and retention sweep did.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class OpenTask(BaseModel, frozen=True):
    """One task whose workflow is running."""

    task_id: str
    started_at: datetime | None = None


class ChannelCounts(BaseModel, frozen=True):
    """What one tick's poll of the pull channels did."""

    polled: int = Field(default=0, ge=0)
    """Pull channels asked for deliveries (those that failed included)."""
    delivered: int = Field(default=0, ge=0)
    """Deliveries a task took in (one repeating a `message_id` the task holds included)."""
    refused: int = Field(default=0, ge=0)
    """Deliveries refused: unknown task, final task, or a message the task cannot take."""
    failed_channels: int = Field(default=0, ge=0)
    """Pull channels whose poll raised, or a delivery of which failed for another reason."""


class MonitorSnapshot(BaseModel, frozen=True):
    """The open tasks when the snapshot was taken (at most `limit` listed, all counted)."""

    taken_at: datetime
    open_tasks: int = Field(ge=0)
    listed: tuple[OpenTask, ...] = ()
    swept: dict[str, int] = Field(default_factory=dict)
    """Records the retention sweep of the same tick deleted, by kind."""
    channels: ChannelCounts = ChannelCounts()
    """What the channel poll of the same tick (run before the snapshot) did."""

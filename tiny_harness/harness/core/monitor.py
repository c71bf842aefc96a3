"""`MonitorSnapshot`: what the heartbeat saw on its latest tick.

The heartbeat workflow takes one per tick (`monitor_snapshot` activity), runs the
heartbeat.tick hooks with it and the server serves the newest on `GET /_monitor`.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class OpenTask(BaseModel, frozen=True):
    """One task whose workflow is running."""

    task_id: str
    started_at: datetime | None = None


class MonitorSnapshot(BaseModel, frozen=True):
    """The open tasks when the snapshot was taken (at most `limit` listed, all counted)."""

    taken_at: datetime
    open_tasks: int = Field(ge=0)
    listed: tuple[OpenTask, ...] = ()
    swept: dict[str, int] = Field(default_factory=dict)
    """Records the retention sweep of the same tick deleted, by kind."""

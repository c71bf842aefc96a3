"""The typed inputs and outputs of push delivery: a courier's start and each delivery slice.

None of them holds a secret: a push config is named by id, and its token and credentials
are read from the encrypted store inside the activity that sends (so they never enter a
workflow payload, and so never Temporal history).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, Field


class CourierStart(BaseModel, frozen=True):
    """Start of a `PushCourierWorkflow` run: which receiver, and where in the task's log.

    `cursor` is the sequence number of the next event to deliver; `failing_since` is when
    the receiver began failing (None while it answers), carried so a worker restart or a
    continue-as-new does not reset the delivery window.
    """

    task_id: str
    config_id: str
    cursor: int = Field(ge=0)
    window: timedelta
    failing_since: datetime | None = None
    delivered: int = Field(default=0, ge=0)
    dropped: int = Field(default=0, ge=0)


class DeliveryInput(BaseModel, frozen=True):
    """One slice of delivery: events of `task_id` from `cursor` on, to config `config_id`."""

    task_id: str
    config_id: str
    cursor: int = Field(ge=0)
    window: timedelta
    failing_since: datetime | None = None


class DeliveryProgress(BaseModel, frozen=True):
    """Where a slice left off. `finished`: the task is final and its last event has been
    handled, or the config is gone; the courier then ends."""

    cursor: int = Field(ge=0)
    failing_since: datetime | None = None
    finished: bool = False
    delivered: int = 0
    dropped: int = 0


class CourierReport(BaseModel, frozen=True):
    """What a courier did over its whole life (summed across continue-as-new)."""

    delivered: int = 0
    dropped: int = 0

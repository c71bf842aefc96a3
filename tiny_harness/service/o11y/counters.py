"""`Counters`: what an operator counts beside the calls: how tasks ended, and pushes.

    tiny_harness.tasks.ended     {task}   tiny_harness.task.state: the final state's name
                                          (TASK_STATE_COMPLETED, TASK_STATE_FAILED, ...)
    tiny_harness.push.sent       {event}  tiny_harness.push.outcome: delivered, refused (the
                                          URL guard or the receiver refused it) or failed
                                          (tried again later); one per attempt
    tiny_harness.push.received   {push}   tiny_harness.push.outcome: accepted or refused;
                                          tiny_harness.push.reason for a refusal (oversized,
                                          no-token, malformed, unverified)

They go out with the other metrics on the OTLP endpoint. Without one the counters are the
OpenTelemetry API's no-op instruments: counting costs next to nothing.
"""

from __future__ import annotations

from typing import Final

from a2a.types import TaskState
from opentelemetry.metrics import Meter, NoOpMeter

TASKS_ENDED: Final = "tiny_harness.tasks.ended"
PUSH_SENT: Final = "tiny_harness.push.sent"
PUSH_RECEIVED: Final = "tiny_harness.push.received"


class Counters:
    """The harness's own counters, on `meter` (no-op ones when None)."""

    def __init__(self, meter: Meter | None = None) -> None:
        meter = meter or NoOpMeter("tiny_harness")
        self._ended = meter.create_counter(
            TASKS_ENDED, unit="{task}", description="Tasks that reached a final state"
        )
        self._sent = meter.create_counter(
            PUSH_SENT, unit="{event}", description="Attempts to push a task event to a client"
        )
        self._received = meter.create_counter(
            PUSH_RECEIVED, unit="{push}", description="Pushes other agents sent to this one"
        )

    def task_ended(self, state: int) -> None:
        """A task reached the final state `state` (a `TaskState` value)."""
        self._ended.add(1, {"tiny_harness.task.state": TaskState.Name(state)})

    def push_sent(self, outcome: str) -> None:
        """One attempt to push an event came to `outcome`."""
        self._sent.add(1, {"tiny_harness.push.outcome": outcome})

    def push_received(self, refused: str | None = None) -> None:
        """A push arrived: accepted, or refused for the reason `refused`."""
        if refused is None:
            self._received.add(1, {"tiny_harness.push.outcome": "accepted"})
        else:
            attributes = {
                "tiny_harness.push.outcome": "refused",
                "tiny_harness.push.reason": refused,
            }
            self._received.add(1, attributes)

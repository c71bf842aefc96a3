"""The Temporal worker that runs task workflows and their activities (and the heartbeat's)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from tiny_harness.service.durable.activities.remote import RemoteActivities
from tiny_harness.service.durable.activities.task import TaskActivities
from tiny_harness.service.durable.client.sandbox import LeanSandboxedRunner
from tiny_harness.service.durable.workflows.remote import RemoteTaskWorkflow
from tiny_harness.service.durable.workflows.task import TaskWorkflow
from tiny_harness.service.heartbeat.activities import HeartbeatActivities
from tiny_harness.service.heartbeat.workflow import HeartbeatWorkflow
from tiny_harness.service.notifications.courier import PushCourierWorkflow
from tiny_harness.service.notifications.sender import PushActivities

# Protobuf modules must not be re-imported inside the sandbox (their descriptors register
# once per process). Our own modules keep no state a workflow could read across runs (the
# workflow modules hold their state on the workflow object; the rest is plain data and
# pure functions), so they are passed through too: re-importing the workflow modules for
# every run cost a one-turn task about 25 ms of worker time (bench/throughput.py). The
# sandbox still refuses clocks, randomness and I/O at run time.
PASSTHROUGH_MODULES = ("a2a", "google.protobuf", "tiny_harness")


def build_worker(
    client: Client,
    *,
    task_queue: str,
    activities: TaskActivities,
    heartbeat: HeartbeatActivities | None = None,
    push_base_url: str | None = None,
    push: PushActivities | None = None,
    max_cached_workflows: int = 1000,
) -> Worker:
    """A worker for `task_queue` running `TaskWorkflow` with `activities` and the
    stand-ins of delegated sub-tasks (`push_base_url`: where remote agents push to; None
    means stand-ins follow instead); with `heartbeat` given, `HeartbeatWorkflow` with
    those activities too; with `push` given, the couriers that push to our clients.
    `max_cached_workflows` bounds the runs kept in memory between their workflow tasks."""
    workflows: list[type] = [TaskWorkflow, RemoteTaskWorkflow]
    bodies: list[Callable[..., Awaitable[object]]] = [
        *activities.all(),
        *RemoteActivities(activities.harness, push_base_url=push_base_url).all(),
    ]
    if heartbeat is not None:
        workflows.append(HeartbeatWorkflow)
        bodies += heartbeat.all()
    if push is not None:
        workflows.append(PushCourierWorkflow)
        bodies += push.all()
    return Worker(
        client,
        task_queue=task_queue,
        workflows=workflows,
        activities=bodies,
        workflow_runner=workflow_runner(),
        max_cached_workflows=max_cached_workflows,
    )


def workflow_runner() -> SandboxedWorkflowRunner:
    """The sandbox the workflows run in (`LeanSandboxedRunner`), our plain-data modules
    passed through; a replay of their histories (`temporalio.worker.Replayer`) must use the
    same."""
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
    return LeanSandboxedRunner(restrictions=restrictions)

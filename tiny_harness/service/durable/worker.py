"""The Temporal worker that runs task workflows and their activities."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from tiny_harness.service.durable.activities import TaskActivities
from tiny_harness.service.durable.workflow import TaskWorkflow

# Protobuf modules must not be re-imported inside the sandbox (their descriptors register
# once per process), and our models are plain data: pass them through.
PASSTHROUGH_MODULES = ("a2a", "google.protobuf", "tiny_harness.harness", "tiny_harness.errors")


def build_worker(client: Client, *, task_queue: str, activities: TaskActivities) -> Worker:
    """A worker for `task_queue` running `TaskWorkflow` with `activities`."""
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[TaskWorkflow],
        activities=activities.all(),
        workflow_runner=SandboxedWorkflowRunner(restrictions=restrictions),
    )

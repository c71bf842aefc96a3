"""`LeanSandboxedRunner`: Temporal's workflow sandbox without its per-call compiling.

Temporal's sandboxed runner (temporalio 1.35) enters the sandbox by `exec` of a source string,
compiled afresh each time, for every activation, and again for every payload sequence the
worker converts, to ask the workflow which serialization context applies (three or four asks
per sequence). Each ask also swaps the sandbox's import machinery in and out, for a function
that only reads the workflow instance's tables of pending activities and child workflows. On
a one-turn task that is some 30 compiles and 25 swaps: about 3.6 ms of the worker's CPU per
task, 5% of all it spends (bench/throughput.py).

This runner keeps the sandbox for the workflow's code (an activation still runs inside it,
where clocks, randomness and I/O are refused) but compiles the activation's entry once, and
asks for a serialization context directly, outside the import swap: the ask runs no workflow
code and imports nothing. It subclasses the SDK's private `_Instance`, so the SDK is pinned
to the minor version it was written against (pyproject) and
`tests/service/durable/test_sandbox.py` checks, on the installed SDK, that the runner is
used, that the sandbox still refuses a clock, and that contexts come out as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import CodeType
from typing import cast, override

import temporalio.converter
from temporalio.bridge.proto.workflow_activation import WorkflowActivation
from temporalio.bridge.proto.workflow_completion import WorkflowActivationCompletion
from temporalio.converter._extstore import StorageDriverStoreContext
from temporalio.worker import _command_aware_visitor
from temporalio.worker._workflow_instance import WorkflowInstance, WorkflowInstanceDetails
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from temporalio.worker.workflow_sandbox._in_sandbox import InSandbox
from temporalio.worker.workflow_sandbox._runner import _Instance

# The SDK's own activation snippet, compiled once instead of on every activation.
_ACTIVATE: CodeType = compile(
    "with __temporal_importer.applied():\n"
    "  __temporal_completion = __temporal_in_sandbox.activate(__temporal_activation)\n",
    "workflow_sandbox.py",
    "exec",
)


class _LeanInstance(_Instance):
    """One workflow run in the sandbox, entered with precompiled code."""

    @override
    def activate(self, act: WorkflowActivation) -> WorkflowActivationCompletion:
        context = self.importer.restriction_context
        context.is_runtime = True
        context.in_activation = True
        try:
            # `_run_code` hands its argument to `exec`, which takes a code object as well.
            self._run_code(
                _ACTIVATE,  # type: ignore[arg-type]
                __temporal_importer=self.importer,
                __temporal_activation=act,
            )
            # The SDK types its globals as strings; the entry leaves the completion there.
            completion: object = self.globals_and_locals.pop("__temporal_completion")
            return cast(WorkflowActivationCompletion, completion)
        finally:
            context.is_runtime = False
            context.in_activation = False

    @override
    def get_serialization_context(
        self, command_info: _command_aware_visitor.CommandInfo | None
    ) -> temporalio.converter.SerializationContext | None:
        return self._in_sandbox().get_serialization_context(command_info)

    @override
    def get_external_store_context(
        self, command_info: _command_aware_visitor.CommandInfo | None
    ) -> StorageDriverStoreContext:
        return self._in_sandbox().get_external_store_context(command_info)

    def _in_sandbox(self) -> InSandbox:
        instance: object = self.globals_and_locals["__temporal_in_sandbox"]
        return cast(InSandbox, instance)


@dataclass(frozen=True)
class LeanSandboxedRunner(SandboxedWorkflowRunner):
    """Temporal's sandboxed runner whose runs are entered without compiling each time."""

    @override
    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        return _LeanInstance(det, self.runner_class, self.restrictions)

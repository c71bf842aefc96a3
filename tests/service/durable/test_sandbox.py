"""The sandbox our workflows run in (`LeanSandboxedRunner`), on the installed SDK: it still
refuses what workflow code must not do, and the worker's payloads get the serialization
contexts the SDK's own runner gives them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Self

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowFailureError
from temporalio.converter import (
    DataConverter,
    PayloadCodec,
    SerializationContext,
    WithSerializationContext,
)
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import (
    RestrictedWorkflowAccessError,
    SandboxedWorkflowRunner,
    SandboxRestrictions,
)
from temporalio.worker.workflow_sandbox._runner import _Instance

from tests.service.durable.sandbox_workflows import ClockReader, EchoChild, EchoTwice, echo
from tiny_harness.service.durable.client.sandbox import LeanSandboxedRunner
from tiny_harness.service.durable.client.worker import PASSTHROUGH_MODULES, workflow_runner

pytestmark = pytest.mark.timeout(60)


class ContextLog(PayloadCodec, WithSerializationContext):
    """A codec that changes nothing and notes the context of every payload it encodes."""

    def __init__(self, seen: list[str], context: SerializationContext | None = None) -> None:
        self._seen = seen
        self._context = context

    def with_context(self, context: SerializationContext) -> Self:
        return type(self)(self._seen, context)

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        self._seen.extend(repr(self._context) for _ in payloads)
        return list(payloads)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)


async def contexts_under(
    temporal_client: Client, runner: SandboxedWorkflowRunner, workflow_id: str
) -> list[str]:
    """The contexts the worker's codec saw while `EchoTwice` ran under `runner`, with the
    workflow id made the same for every runner."""
    seen: list[str] = []
    config = temporal_client.config()
    config["data_converter"] = DataConverter(payload_codec=ContextLog(seen))
    client = Client(**config)
    queue = f"sandbox-{uuid.uuid4().hex}"
    worker = Worker(
        client,
        task_queue=queue,
        workflows=[EchoTwice, EchoChild],
        activities=[echo],
        workflow_runner=runner,
    )
    async with worker:
        result = await client.execute_workflow(
            EchoTwice.run, "hello", id=workflow_id, task_queue=queue
        )
    assert result == ["hello", "hello", "hello"]
    return [entry.replace(workflow_id, "<id>").replace(queue, "<queue>") for entry in seen]


async def test_payloads_get_the_contexts_the_sdk_runner_gives_them(
    temporal_client: Client,
) -> None:
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
    stock = SandboxedWorkflowRunner(restrictions=restrictions)
    expected = await contexts_under(temporal_client, stock, f"stock-{uuid.uuid4().hex}")
    seen = await contexts_under(temporal_client, workflow_runner(), f"lean-{uuid.uuid4().hex}")
    assert seen == expected
    # Each kind of command was asked about, so the comparison covers them all.
    for kind in ("ActivitySerializationContext", "WorkflowSerializationContext", "is_local=True"):
        assert any(kind in entry for entry in seen), kind


async def test_a_workflow_that_reads_the_clock_is_still_refused(temporal_client: Client) -> None:
    queue = f"sandbox-{uuid.uuid4().hex}"
    worker = Worker(
        temporal_client,
        task_queue=queue,
        workflows=[ClockReader],
        workflow_runner=workflow_runner(),
        # Fails the workflow on the refusal instead of retrying its workflow task for ever.
        workflow_failure_exception_types=[RestrictedWorkflowAccessError],
    )
    async with worker:
        with pytest.raises(WorkflowFailureError) as failure:
            await temporal_client.execute_workflow(
                ClockReader.run, id=f"clock-{uuid.uuid4().hex}", task_queue=queue
            )
    assert "datetime.datetime.now" in str(failure.value.cause)


def test_the_runner_is_built_on_the_sdk_version_it_was_written_against() -> None:
    # The lean runner overrides these methods of the SDK's private `_Instance`; were one
    # renamed, the override would silently stop applying.
    assert isinstance(workflow_runner(), LeanSandboxedRunner)
    for name in ("activate", "get_serialization_context", "get_external_store_context"):
        assert callable(getattr(_Instance, name))
    assert callable(_Instance._run_code)

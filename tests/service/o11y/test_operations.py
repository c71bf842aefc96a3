"""The harness's own operations as spans and records: named after the operation, carrying
the task and correlation ids and the outcome, current while they run, and quoting nothing
of what failed."""

from __future__ import annotations

import asyncio
import logging

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tests.support import log_fields
from tiny_harness.harness.hooks import Operation
from tiny_harness.service.o11y.operations import Operations

LOGGER = "tiny_harness.service.o11y.operations"
SECRETIVE = "what the store said about the record"


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


@pytest.fixture
def operations(provider: TracerProvider) -> Operations:
    return Operations(provider.get_tracer("tiny_harness"))


async def test_an_operation_is_one_span_and_one_record_with_its_outcome(
    operations: Operations, exporter: InMemorySpanExporter, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    with operations.run(
        Operation.PERSISTENCE_WRITE, "t-1", "7", {"tiny_harness.records": 3}
    ) as run:
        run.detail = "version 7, 3 records"
        run.outcome = "stored"

    (span,) = exporter.get_finished_spans()
    assert span.name == "persistence.write"
    assert dict(span.attributes or {}) == {
        "tiny_harness.task_id": "t-1",
        "tiny_harness.correlation_id": "7",
        "tiny_harness.operation": "persistence.write",
        "tiny_harness.phase": "post",
        "tiny_harness.outcome": "stored",
        "tiny_harness.records": 3,
    }
    assert span.status.status_code is StatusCode.UNSET
    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert record.getMessage() == "task t-1: persistence.write version 7, 3 records: stored"
    assert log_fields(record) == {
        "task_id": "t-1",
        "correlation_id": "7",
        "operation": "persistence.write",
        "phase": "post",
        "outcome": "stored",
    }


async def test_what_an_operation_calls_nests_under_its_span(
    operations: Operations, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    with operations.run(Operation.COMPACTION_SUMMARISE, "t-1", "act-4") as run:
        await asyncio.sleep(0)
        provider.get_tracer("a model client").start_span("chat script").end()
        run.note({"tiny_harness.compaction.items": 4})

    chat, compaction = exporter.get_finished_spans()
    assert compaction.name == "compaction.summarise"
    assert chat.parent is not None
    assert chat.parent.span_id == compaction.context.span_id
    assert (compaction.attributes or {})["tiny_harness.compaction.items"] == 4
    assert trace.get_current_span() is trace.INVALID_SPAN  # no longer current once ended


async def test_a_failed_operation_is_an_error_named_by_its_type_not_its_message(
    operations: Operations, exporter: InMemorySpanExporter, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    with (
        pytest.raises(OSError, match=SECRETIVE),
        operations.run(Operation.PERSISTENCE_WRITE, "t-1", "8"),
    ):
        raise OSError(SECRETIVE)

    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "OSError"
    assert (span.attributes or {})["tiny_harness.outcome"] == "error"
    assert not span.events  # no exception event: its message could quote content
    assert SECRETIVE not in str(span.to_json())
    (record,) = caplog.records
    assert log_fields(record)["outcome"] == "error"
    assert SECRETIVE not in caplog.text


async def test_a_cancelled_operation_says_so(
    operations: Operations, exporter: InMemorySpanExporter, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    started = asyncio.Event()

    async def decide() -> None:
        with operations.run(Operation.HELP_DECIDED, "t-1", "call-1"):
            started.set()
            await asyncio.Event().wait()

    deciding = asyncio.create_task(decide())
    await started.wait()
    deciding.cancel()
    with pytest.raises(asyncio.CancelledError):
        await deciding

    (span,) = exporter.get_finished_spans()
    assert (span.attributes or {})["tiny_harness.outcome"] == "cancelled"
    assert [log_fields(r)["outcome"] for r in caplog.records] == ["cancelled"]


async def test_without_a_tracer_the_record_is_still_written(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    with Operations().run(Operation.HELP_DECIDED, "t-1", "call-1") as run:
        run.outcome = "ask"

    assert [(log_fields(r)["operation"], log_fields(r)["outcome"]) for r in caplog.records] == [
        ("help.decided", "ask")
    ]

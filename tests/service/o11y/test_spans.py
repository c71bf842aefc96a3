"""`SpanHooks` against the real OpenTelemetry SDK (its in-memory exporter keeps what a
real exporter would be given): names, attributes, contents only when asked and masked,
no span left open when an operation never reaches its post point, and one log record per
call, with the fields an operator filters on and nothing of what was said."""

from __future__ import annotations

import logging

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tests.support import log_fields
from tiny_harness.harness.hooks import (
    HookManager,
    HookPoint,
    LLMInvokedPost,
    LLMInvokedPre,
    Operation,
    Phase,
    ToolInvokedPost,
    ToolInvokedPre,
)
from tiny_harness.harness.models.llm import LLMModelInfo, LLMRequest, LLMResponse, Usage, UserItem
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tools.definition import ToolCall, ToolResult
from tiny_harness.service.o11y.operations import Operations
from tiny_harness.service.o11y.spans import SpanHooks

MODEL = LLMModelInfo(provider="openai", model="gpt-test", context_window=1000)
SECRET = "correct-horse-battery-staple-42"
KEY = "sk-" + "Ab3dEfGh1jKlMnOpQrStUvWx0123456789yzABCDEFGHij"
LLM = Operation.LLM_INVOKED
TOOL = Operation.TOOL_INVOKED


def traced(*, capture_content: bool) -> tuple[HookManager, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    hooks = HookManager()
    redactor = Redactor([SECRET])
    spans = SpanHooks(
        Operations(provider.get_tracer("test")),
        MODEL,
        redactor=redactor,
        capture_content=capture_content,
    )
    hooks.register(spans)
    return hooks, exporter


def untraced(caplog: pytest.LogCaptureFixture) -> HookManager:
    """The hooks of a process without telemetry, content capture on, its records caught."""
    caplog.set_level(logging.INFO, logger="tiny_harness.service.o11y.operations")
    hooks = HookManager()
    hooks.register(SpanHooks(Operations(), MODEL, redactor=Redactor(), capture_content=True))
    return hooks


async def model_call(hooks: HookManager, text: str) -> None:
    request = LLMRequest(instructions="be brief", input=(UserItem(message_id="m-1", text=text),))
    pre = LLMInvokedPre(task_id="t-1", correlation_id="a-1", request=request)
    await hooks.run(HookPoint(LLM, Phase.PRE), pre)
    response = LLMResponse(
        output_text=f"noted: {text}",
        model="gpt-test-2026",
        usage=Usage(input_tokens=120, cached_tokens=100, output_tokens=7),
    )
    post = LLMInvokedPost(**pre.model_dump(), response=response)
    await hooks.run(HookPoint(LLM, Phase.POST), post)


async def tool_call(hooks: HookManager, *, error: bool = False) -> None:
    call = ToolCall(call_id="c-1", name="ledger.books.lookup", arguments={"key": SECRET})
    pre = ToolInvokedPre(task_id="t-1", correlation_id="c-1", call=call)
    await hooks.run(HookPoint(TOOL, Phase.PRE), pre)
    result = ToolResult(call_id="c-1", name=call.name, text=f"found {KEY}", is_error=error)
    await hooks.run(HookPoint(TOOL, Phase.POST), ToolInvokedPost(**pre.model_dump(), result=result))


def only(exporter: InMemorySpanExporter) -> ReadableSpan:
    (span,) = exporter.get_finished_spans()
    return span


async def test_a_model_call_is_a_chat_span_with_the_genai_attributes() -> None:
    hooks, exporter = traced(capture_content=False)

    await model_call(hooks, "hello")

    span = only(exporter)
    assert span.name == "chat gpt-test"
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.response.model": "gpt-test-2026",
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.cache_read.input_tokens": 100,
        "gen_ai.usage.output_tokens": 7,
        "gen_ai.response.finish_reasons": ("stop",),
        "tiny_harness.task_id": "t-1",
        "tiny_harness.correlation_id": "a-1",
        "tiny_harness.attempt": 1,
        "tiny_harness.operation": "llm.invoked",
        "tiny_harness.phase": "post",
        "tiny_harness.outcome": "stop",
    }


async def test_contents_are_recorded_only_when_asked_and_then_masked() -> None:
    quiet, quiet_spans = traced(capture_content=False)
    told, told_spans = traced(capture_content=True)

    for hooks in (quiet, told):
        await model_call(hooks, f"my password is {SECRET}, key {KEY}")
        await tool_call(hooks)

    quiet_attributes = [dict(s.attributes or {}) for s in quiet_spans.get_finished_spans()]
    told_attributes = [dict(s.attributes or {}) for s in told_spans.get_finished_spans()]
    content_keys = {
        "gen_ai.input.messages",
        "gen_ai.system_instructions",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    }
    assert not any(content_keys & a.keys() for a in quiet_attributes)
    recorded = {k: v for a in told_attributes for k, v in a.items() if k in content_keys}
    assert recorded.keys() == content_keys
    assert "my password is" in str(recorded["gen_ai.input.messages"])
    assert all(SECRET not in str(v) and KEY not in str(v) for v in recorded.values())


async def test_a_tool_call_is_an_execute_tool_span_and_an_error_result_marks_it() -> None:
    hooks, exporter = traced(capture_content=False)

    await tool_call(hooks, error=True)

    span = only(exporter)
    assert span.name == "execute_tool ledger.books.lookup"
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "ledger.books.lookup"
    assert attributes["gen_ai.tool.call.id"] == "c-1"
    assert attributes["error.type"] == "tool_error"
    assert span.status.status_code == StatusCode.ERROR


async def test_an_operation_that_never_reaches_post_is_ended_as_an_error_when_it_is_retried() -> (
    None
):
    hooks, exporter = traced(capture_content=False)
    request = LLMRequest(instructions="", input=())
    pre = LLMInvokedPre(task_id="t-1", correlation_id="a-1", request=request)

    await hooks.run(HookPoint(LLM, Phase.PRE), pre)  # the provider call raises: no post
    assert exporter.get_finished_spans() == ()
    await model_call(hooks, "again")  # the activity's retry: same operation, same ids

    failed, retried = exporter.get_finished_spans()
    assert failed.status.status_code == StatusCode.ERROR
    assert dict(failed.attributes or {})["tiny_harness.outcome"] == "abandoned"
    assert retried.status.status_code == StatusCode.UNSET
    assert failed.context.trace_id != 0


async def test_a_model_call_is_logged_once_with_its_finish_reason_and_not_its_words(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Untraced (no telemetry), the same hooks still write each call's record."""
    hooks = untraced(caplog)

    await model_call(hooks, SECRET)

    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert record.getMessage() == "task t-1: llm.invoked chat gpt-test-2026 (120 in, 7 out): stop"
    assert log_fields(record) == {
        "task_id": "t-1",
        "correlation_id": "a-1",
        "operation": "llm.invoked",
        "phase": "post",
        "outcome": "stop",
    }
    assert SECRET not in caplog.text


async def test_a_tool_call_is_logged_with_ok_or_error_and_not_its_arguments_or_result(
    caplog: pytest.LogCaptureFixture,
) -> None:
    hooks = untraced(caplog)

    for error in (False, True):
        await tool_call(hooks, error=error)

    assert [r.getMessage() for r in caplog.records] == [
        "task t-1: tool.invoked ledger.books.lookup: ok",
        "task t-1: tool.invoked ledger.books.lookup: error",
    ]
    assert [log_fields(r)["correlation_id"] for r in caplog.records] == ["c-1", "c-1"]
    assert SECRET not in caplog.text
    assert KEY not in caplog.text


def test_it_listens_at_the_pre_and_post_of_model_and_tool_calls_alone() -> None:
    """Every other point runs no tracing code at all."""
    assert SpanHooks.points == {
        HookPoint(operation, phase)
        for operation in (LLM, TOOL)
        for phase in (Phase.PRE, Phase.POST)
    }

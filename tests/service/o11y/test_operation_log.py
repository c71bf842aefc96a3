"""One structured log record per model and tool call, with the fields an operator filters
on, and nothing of what was said."""

from __future__ import annotations

import logging

import pytest

from tests.support import log_fields
from tiny_harness.harness.hooks import (
    HookPoint,
    LLMInvokedPost,
    Operation,
    Phase,
    ToolInvokedPost,
)
from tiny_harness.harness.models.llm import LLMRequest, LLMResponse, Usage, UserItem
from tiny_harness.harness.tools.definition import ToolCall, ToolResult
from tiny_harness.service.o11y.operation_log import OperationLog

SECRETIVE = "the model must not be quoted in the log"


async def test_a_model_call_is_logged_once_with_its_finish_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="tiny_harness.service.o11y.operation_log")
    ctx = LLMInvokedPost(
        task_id="t-1",
        correlation_id="act-3",
        request=LLMRequest(instructions="", input=(UserItem(message_id="m-1", text=SECRETIVE),)),
        response=LLMResponse(
            output_text=SECRETIVE,
            usage=Usage(input_tokens=812, output_tokens=31),
            model="script",
            finish="tool_calls",
        ),
    )

    assert await OperationLog().handle(HookPoint(Operation.LLM_INVOKED, Phase.POST), ctx) is None

    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert record.getMessage() == "task t-1: llm.invoked chat script: tool_calls (812 in, 31 out)"
    assert log_fields(record) == {
        "task_id": "t-1",
        "correlation_id": "act-3",
        "operation": "llm.invoked",
        "phase": "post",
        "outcome": "tool_calls",
    }
    assert SECRETIVE not in caplog.text


async def test_a_tool_call_is_logged_with_ok_or_error_and_not_its_result(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="tiny_harness.service.o11y.operation_log")
    point = HookPoint(Operation.TOOL_INVOKED, Phase.POST)
    call = ToolCall(call_id="call-1", name="ledger.books.lookup", arguments={"key": SECRETIVE})
    for is_error in (False, True):
        result = ToolResult(call_id="call-1", name=call.name, text=SECRETIVE, is_error=is_error)
        ctx = ToolInvokedPost(task_id="t-1", correlation_id="call-1", call=call, result=result)
        await OperationLog().handle(point, ctx)

    assert [r.getMessage() for r in caplog.records] == [
        "task t-1: tool.invoked ledger.books.lookup: ok",
        "task t-1: tool.invoked ledger.books.lookup: error",
    ]
    assert [log_fields(r)["outcome"] for r in caplog.records] == ["ok", "error"]
    assert SECRETIVE not in caplog.text

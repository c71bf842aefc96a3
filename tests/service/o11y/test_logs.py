"""Log lines: masked in both forms; the JSON form one object per line with the trace and
span ids and the structured fields; a real `serve` run in the JSON form writes nothing
else to stderr."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from temporalio.testing import WorkflowEnvironment

from tests.service.serve_process import ServeProcess
from tiny_harness.harness.security import Redactor
from tiny_harness.service.http import free_port
from tiny_harness.service.o11y.logs import LogFormatter

SECRET = "correct-horse-battery-staple-42"
KEY = "sk-" + "Ab3dEfGh1jKlMnOpQrStUvWx0123456789yzABCDEFGHij"


def record(message: str, *args: object, **extra: object) -> logging.LogRecord:
    made = logging.LogRecord("tiny_harness.test", logging.WARNING, __file__, 1, message, args, None)
    made.__dict__.update(extra)
    return made


def test_a_text_line_is_masked_message_and_arguments_alike() -> None:
    formatter = LogFormatter(Redactor([SECRET]), form="text")

    line = formatter.format(record("token %s and %s", KEY, SECRET))

    assert "WARNING tiny_harness.test: token " in line
    assert KEY not in line
    assert SECRET not in line


def test_a_json_line_carries_the_fields_and_the_current_trace() -> None:
    formatter = LogFormatter(Redactor(), form="json")
    tracer = TracerProvider().get_tracer("test")

    with tracer.start_as_current_span("work") as span:
        line = formatter.format(
            record("task %s moved", "t-1", task_id="t-1", operation="llm.invoked", phase="post")
        )
    outside = json.loads(formatter.format(record("no span here")))

    entry = json.loads(line)
    context = span.get_span_context()
    assert entry["level"] == "WARNING"
    assert entry["logger"] == "tiny_harness.test"
    assert entry["message"] == "task t-1 moved"
    assert entry["trace_id"] == format(context.trace_id, "032x")
    assert entry["span_id"] == format(context.span_id, "016x")
    assert (entry["task_id"], entry["operation"], entry["phase"]) == ("t-1", "llm.invoked", "post")
    assert "trace_id" not in outside
    assert entry["time"].endswith("+00:00")


def test_an_exception_is_in_the_json_line_and_masked_too() -> None:
    formatter = LogFormatter(Redactor(), form="json")
    try:
        raise ValueError(f"bad key {KEY}")
    except ValueError:
        failed = record("call failed")
        failed.exc_info = sys.exc_info()

    entry = json.loads(formatter.format(failed))

    assert "ValueError: bad key" in entry["exception"]
    assert KEY not in entry["exception"]


async def test_serve_in_json_form_writes_only_json_lines(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    env = {
        "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"logs-{tmp_path.name}",
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        "TINY_HARNESS_LOG_FORMAT": "json",
    }
    serve = ServeProcess(tmp_path / "data", free_port(), env)
    await serve.start()
    assert await serve.stop() == 0

    entries = [json.loads(line) for line in serve.lines if line.strip()]
    assert entries
    assert all({"time", "level", "logger", "message"} <= entry.keys() for entry in entries)
    assert any(entry["message"].startswith("a2a: listening on") for entry in entries)

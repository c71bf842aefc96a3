"""One trace per task, from the A2A request to every model and tool call.

A real `tiny-harness serve` subprocess (on the shared Temporal dev server, the scripted
model, the ledger plugin's MCP server over stdio) exports over OTLP/HTTP to a collector on
127.0.0.1 that decodes the real protobuf requests (`otlp_receiver.py`). The client sends a
W3C `traceparent`, so the whole task must be that trace: the server span continues it,
Temporal carries it to the workflow and its activities, and each model and tool call is a
span under its activity's.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.types import StreamResponse
from opentelemetry.trace import SpanKind
from temporalio.testing import WorkflowEnvironment

from tests.service.o11y.otlp_receiver import ReceivedSpan, otlp_receiver
from tests.service.serve_process import ServeProcess
from tests.support import collect, send_request, states
from tiny_harness.harness.tasks.extension import TaskTrace, ext_of
from tiny_harness.service.http import free_port

pytestmark = pytest.mark.timeout(120)

LEDGER = Path(__file__).parents[2] / "fixtures" / "plugins" / "ledger"
SCRIPT = """
turns:
  - text: Planning.
    tool_calls:
      - {name: create_plan, arguments: {steps: [{id: look, name: look it up}]}}
      - {name: ledger.books.lookup, arguments: {key: first}}
  - tool_calls: [{name: ask_participant, arguments: {question: "Which size?"}}]
  - tool_calls: [{name: complete_step, arguments: {step_id: look, output: size M}}]
  - text: Size noted.
"""
# The OTLP enum values, as the protobuf carries them (SpanKind.SERVER is 1 in the API).
OTLP_SERVER = SpanKind.SERVER.value + 1
OTLP_CLIENT = SpanKind.CLIENT.value + 1


def traced_serve(
    temporal_env: WorkflowEnvironment,
    tmp_path: Path,
    collector: str,
    *,
    script: str = SCRIPT,
    name: str = "",
    **extra: str,
) -> ServeProcess:
    """`serve` on the shared dev server, exporting to `collector`; `name` sets its own task
    queue, data directory and service name (two harnesses in one test)."""
    script_file = tmp_path / f"script{name}.yaml"
    script_file.write_text(script)
    env = {
        "TINY_HARNESS_TEMPORAL__ADDRESS": temporal_env.client.service_client.config.target_host,
        "TINY_HARNESS_TEMPORAL__TASK_QUEUE": f"traces-{tmp_path.name}{name}",
        "TINY_HARNESS_HEARTBEAT__ENABLED": "false",
        "TINY_HARNESS_MODEL__SCRIPT": str(script_file),
        "TINY_HARNESS_PLUGINS": str(LEDGER),
        "TINY_HARNESS_O11Y__OTLP_ENDPOINT": collector,
        "TINY_HARNESS_O11Y__SERVICE_NAME": name or "tiny-harness",
        # The ledger's manifest runs a bare `python`: this venv's, which has `mcp`.
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        **extra,
    }
    return ServeProcess(tmp_path / f"data{name}", free_port(), env)


async def ask_and_answer(
    url: str, *, traceparent: str | None = None
) -> tuple[list[StreamResponse], list[StreamResponse]]:
    """Send the script's task ("a shirt"), then answer its question ("M"); both streams.
    With `traceparent`, every request carries it, as a traced client's would."""
    headers = {"traceparent": traceparent} if traceparent else {}
    async with httpx.AsyncClient(timeout=30, headers=headers) as http:
        client = await ClientFactory(
            ClientConfig(streaming=True, httpx_client=http)
        ).create_from_url(url)
        asked = await collect(client.send_message(send_request("a shirt")))
        reply = send_request("M", task_id=asked[0].task.id)
        return asked, await collect(client.send_message(reply))


def ancestors(span: ReceivedSpan, by_id: dict[str, ReceivedSpan]) -> list[str]:
    """The names of `span`'s ancestors, nearest first, as far as the trace has them."""
    names: list[str] = []
    parent = by_id.get(span.parent_span_id)
    while parent is not None:
        names.append(parent.name)
        parent = by_id.get(parent.parent_span_id)
    return names


async def test_a_task_is_one_trace_from_the_request_to_each_model_and_tool_call(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    trace_id = secrets.token_hex(16)
    traceparent = f"00-{trace_id}-{secrets.token_hex(8)}-01"
    viewer = "https://traces.example/trace/{traceId}"  # a link made, never fetched
    async with otlp_receiver() as collector:
        serve = traced_serve(
            temporal_env, tmp_path, collector.url, TINY_HARNESS_O11Y__TRACE_URL=viewer
        )
        await serve.start()
        try:
            asked, done = await ask_and_answer(serve.url, traceparent=traceparent)
            task_id = asked[0].task.id
        finally:
            assert await serve.stop() == 0  # a clean stop flushes what is queued
        spans = await collector.wait_for(lambda s: sum(x.name.startswith("chat ") for x in s) >= 4)

    assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert states(done)[-1] == "TASK_STATE_COMPLETED"
    # The task says which trace it is, and where a person opens it.
    ext = ext_of(asked[0].task)
    assert ext is not None
    assert ext.trace == TaskTrace(trace_id=trace_id, url=f"https://traces.example/trace/{trace_id}")
    ours = [s for s in spans if s.attributes.get("tiny_harness.task_id") == task_id]
    chats = [s for s in ours if s.attributes.get("gen_ai.operation.name") == "chat"]
    tools = [s for s in ours if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    assert len(chats) == 4
    assert sorted(s.attributes["gen_ai.tool.name"] for s in tools) == sorted(
        ["create_plan", "ledger.books.lookup", "ask_participant", "complete_step"]
    )
    # Every span of the task is in the client's trace, from every process that made one.
    assert {s.trace_id for s in ours} == {trace_id}
    assert {s.service for s in ours} == {"tiny-harness"}
    by_id = {s.span_id: s for s in spans if s.trace_id == trace_id}
    for chat in chats:
        assert chat.name == "chat script"
        assert chat.attributes["gen_ai.provider.name"] == "scripted"
        assert chat.attributes["gen_ai.request.model"] == "script"
        assert chat.attributes["gen_ai.response.model"] == "script"
        assert isinstance(chat.attributes["gen_ai.usage.input_tokens"], int)
        assert isinstance(chat.attributes["gen_ai.usage.output_tokens"], int)
        assert chat.attributes["gen_ai.response.finish_reasons"] in (["stop"], ["tool_calls"])
        assert ancestors(chat, by_id)[0] == "RunActivity:invoke_llm"
    for tool in tools:
        assert tool.name == f"execute_tool {tool.attributes['gen_ai.tool.name']}"
        assert tool.attributes["gen_ai.tool.call.id"]
        assert ancestors(tool, by_id)[0] == "RunActivity:invoke_tool"
    # Up the tree: the activity, the workflow's scheduling of it, the update-with-start the
    # handler sent, the A2A SDK's own spans, and the server span of the first request.
    lineage = ancestors(chats[0], by_id)
    assert lineage[:4] == [
        "RunActivity:invoke_llm",
        "StartActivity:invoke_llm",
        "StartUpdateWithStartWorkflow:TaskWorkflow",
        "invoke_agent tiny-harness",
    ]
    assert lineage[-1] == "POST"
    given = [s for s in ours if s.name == "invoke_agent tiny-harness"]
    assert len(given) == 2  # the message that started the task, and the reply
    for task_span in given:
        assert task_span.attributes["gen_ai.operation.name"] == "invoke_agent"
        assert task_span.attributes["gen_ai.agent.name"] == "tiny-harness"
        assert task_span.attributes["gen_ai.conversation.id"] == asked[0].task.context_id
    server = by_id[_root_id(chats[0], by_id)]
    assert server.kind == OTLP_SERVER
    assert server.name == "POST"
    assert not any(s.attributes.get("gen_ai.input.messages") for s in ours)  # contents off
    _assert_operations(ours, tools, by_id)


def _assert_operations(
    ours: list[ReceivedSpan], tools: list[ReceivedSpan], by_id: dict[str, ReceivedSpan]
) -> None:
    """The harness's own operations in the task's trace: the workflow's moments as
    zero-length spans under the workflow's trace, each store write under its activity."""
    call_of = {
        str(s.attributes["gen_ai.tool.name"]): s.attributes["gen_ai.tool.call.id"] for s in tools
    }
    moments = [s for s in ours if s.name in ("plan.created", "step.finished", "help.requested")]
    assert sorted(
        (
            s.name,
            s.attributes["tiny_harness.phase"],
            s.attributes["tiny_harness.outcome"],
            s.attributes["tiny_harness.correlation_id"],
        )
        for s in moments
    ) == [
        ("help.requested", "post", "answered", call_of["ask_participant"]),
        ("help.requested", "pre", "asked", call_of["ask_participant"]),
        ("plan.created", "post", "ok", call_of["create_plan"]),
        ("step.finished", "post", "done", call_of["complete_step"]),
    ]
    for moment in moments:
        assert moment.duration_nanos == 0
        assert moment.attributes["temporalWorkflowID"] == moment.attributes["tiny_harness.task_id"]
        assert "StartUpdateWithStartWorkflow:TaskWorkflow" in ancestors(moment, by_id)
    writes = [s for s in ours if s.name == "persistence.write"]
    assert writes
    for write in writes:
        assert write.attributes["tiny_harness.outcome"] == "stored"
        assert isinstance(write.attributes["tiny_harness.records"], int)
        # A step is written by the persist local activity, or first thing in the one that
        # prepares a model call.
        assert ancestors(write, by_id)[0] in {"RunActivity:persist", "RunActivity:prepare_turn"}
    assert "TASK_STATE_COMPLETED" in {w.attributes["tiny_harness.task.state"] for w in writes}


def _root_id(span: ReceivedSpan, by_id: dict[str, ReceivedSpan]) -> str:
    while span.parent_span_id in by_id:
        span = by_id[span.parent_span_id]
    return span.span_id


async def test_a_dead_collector_fails_no_task_and_serve_still_stops_cleanly(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """Export is the background's business: with nothing listening at the endpoint, the
    task runs to its end, and stopping gives up on the queued spans (exit 0)."""
    nobody = f"http://127.0.0.1:{free_port()}"
    serve = traced_serve(temporal_env, tmp_path, nobody)
    await serve.start()
    try:
        asked, done = await ask_and_answer(serve.url)
    finally:
        stopped = await serve.stop()

    assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert states(done)[-1] == "TASK_STATE_COMPLETED"
    assert stopped == 0


PARENT = """
turns:
  - tool_calls: [{name: spawn_subtask, arguments: {agent: child, name: shirt, goal: order a shirt}}]
  - when: "^order"
    text: Waiting for the sub-task.
  - when: COMPLETED
    text: All done.
"""
CHILD = "turns:\n  - text: Ordered.\n"


async def test_a_task_delegated_to_another_harness_is_one_trace_across_both(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """The stand-in's calls carry the trace on (`traceparent`), and the child continues it."""
    trace_id = secrets.token_hex(16)
    traceparent = f"00-{trace_id}-{secrets.token_hex(8)}-01"
    async with otlp_receiver() as collector:
        child = traced_serve(temporal_env, tmp_path, collector.url, script=CHILD, name="child")
        await child.start()
        agents = json.dumps([{"id": "child", "url": child.url}])
        parent = traced_serve(
            temporal_env,
            tmp_path,
            collector.url,
            script=PARENT,
            name="parent",
            TINY_HARNESS_AGENTS=agents,
        )
        await parent.start()
        try:
            async with httpx.AsyncClient(timeout=30, headers={"traceparent": traceparent}) as http:
                config = ClientConfig(streaming=True, httpx_client=http)
                client = await ClientFactory(config).create_from_url(parent.url)
                events = await collect(client.send_message(send_request("order a shirt")))
        finally:
            assert await parent.stop() == 0
            assert await child.stop() == 0
        spans = await collector.wait_for(
            lambda s: any(x.service == "child" and x.name.startswith("chat ") for x in s)
        )

    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert {s.service for s in chats} == {"parent", "child"}
    assert {s.trace_id for s in chats} == {trace_id}
    # The child's server span hangs under the parent's CLIENT span of the same request,
    # and that one under the stand-in activity that sent it.
    by_id = {s.span_id: s for s in spans if s.trace_id == trace_id}
    requests = [
        s
        for s in by_id.values()
        if s.service == "child" and s.kind == OTLP_SERVER and s.name == "POST"
    ]
    sent = [by_id[s.parent_span_id] for s in requests]
    assert {(s.service, s.kind, s.name) for s in sent} == {("parent", OTLP_CLIENT, "POST")}
    callers = {(by_id[s.parent_span_id].service, by_id[s.parent_span_id].name) for s in sent}
    assert ("parent", "RunActivity:start_agent_task") in callers
    assert {service for service, _ in callers} == {"parent"}
    assert all("url.full" in s.attributes or "http.url" in s.attributes for s in sent)
    # The parent marks the sub-task's spawning and its end, in the same trace.
    spawned = [s for s in by_id.values() if s.name == "subtask.spawned"]
    assert sorted(
        (s.service, s.attributes["tiny_harness.phase"], s.attributes["tiny_harness.outcome"])
        for s in spawned
    ) == [("parent", "post", "completed"), ("parent", "pre", "started")]
    assert {s.attributes["tiny_harness.subtask.agent"] for s in spawned} == {"child"}
    assert len({s.attributes["tiny_harness.correlation_id"] for s in spawned}) == 1


async def test_model_and_tool_calls_are_timed_and_their_tokens_counted_in_metrics(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """The same task's four model calls and four tool calls, as the GenAI histograms the
    collector gets (posted at the latest when serve stops)."""
    async with otlp_receiver() as collector:
        serve = traced_serve(temporal_env, tmp_path, collector.url)
        await serve.start()
        try:
            _, done = await ask_and_answer(serve.url)
        finally:
            assert await serve.stop() == 0
        points = await collector.wait_for_points(
            lambda p: any(x.metric == "gen_ai.client.token.usage" for x in p)
        )

    assert states(done)[-1] == "TASK_STATE_COMPLETED"
    # Cumulative temporality: the newest point of each series holds the run's totals.
    newest = {(p.metric, tuple(sorted(p.attributes.items()))): p for p in points}
    durations = {k[1]: p for k, p in newest.items() if k[0] == "gen_ai.client.operation.duration"}
    chat = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "script",
    }
    chat_key = tuple(sorted(chat.items()))
    assert durations[chat_key].count == 4
    assert durations[chat_key].unit == "s"
    tool_counts = {
        dict(k)["gen_ai.tool.name"]: p.count
        for k, p in durations.items()
        if dict(k)["gen_ai.operation.name"] == "execute_tool"
    }
    assert tool_counts == {
        "create_plan": 1,
        "ledger.books.lookup": 1,
        "ask_participant": 1,
        "complete_step": 1,
    }
    tokens = {
        dict(k[1])["gen_ai.token.type"]: p
        for k, p in newest.items()
        if k[0] == "gen_ai.client.token.usage"
    }
    assert tokens.keys() == {"input", "output"}
    assert tokens["input"].count == 4
    assert tokens["input"].sum > 0

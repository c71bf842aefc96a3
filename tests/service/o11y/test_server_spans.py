"""Every HTTP request is one SERVER span (the A2A SDK's handler opens none of its own), and
a credential in a request's URL never reaches the trace.

A real `tiny-harness serve` subprocess exports to a collector on 127.0.0.1 that decodes the
real OTLP requests; each request carries its own `traceparent`, so its spans are told apart
by trace id.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from temporalio.testing import WorkflowEnvironment

from tests.service.o11y.otlp_receiver import ReceivedSpan, otlp_receiver
from tests.service.o11y.test_traces import OTLP_SERVER, traced_serve
from tests.support import collect, send_request

pytestmark = pytest.mark.timeout(120)

KEY = "sk-" + "ServerSpanQueryKey0123456789abcdefghij"
ANSWER = "turns:\n  - text: Noted.\n"


def traceparent() -> tuple[str, str]:
    trace_id = secrets.token_hex(16)
    return trace_id, f"00-{trace_id}-{secrets.token_hex(8)}-01"


def servers(spans: list[ReceivedSpan], trace_id: str) -> list[ReceivedSpan]:
    """The HTTP server spans of the trace (Temporal's handler spans are SERVER spans too)."""
    return [s for s in spans if s.trace_id == trace_id and s.kind == OTLP_SERVER and is_http(s)]


def is_http(span: ReceivedSpan) -> bool:
    return "http.method" in span.attributes or "http.request.method" in span.attributes


async def test_each_request_is_one_server_span_and_a_credential_in_its_url_is_masked(
    temporal_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    card_trace, card_parent = traceparent()
    task_trace, task_parent = traceparent()
    sent: list[httpx.Request] = []

    async def count(request: httpx.Request) -> None:
        sent.append(request)

    async with otlp_receiver() as collector:
        serve = traced_serve(temporal_env, tmp_path, collector.url, script=ANSWER)
        await serve.start()
        try:
            async with httpx.AsyncClient(timeout=30) as http:
                card = await http.get(
                    f"{serve.url}/.well-known/agent-card.json?access_token={KEY}",
                    headers={"traceparent": card_parent},
                )
                assert card.status_code == 200
            hooks = {"request": [count]}
            headers = {"traceparent": task_parent}
            async with httpx.AsyncClient(timeout=30, headers=headers, event_hooks=hooks) as http:
                config = ClientConfig(streaming=True, httpx_client=http)
                client = await ClientFactory(config).create_from_url(serve.url)
                await collect(client.send_message(send_request("remember this")))
        finally:
            assert await serve.stop() == 0
        spans = await collector.wait_for(
            lambda s: len(servers(s, task_trace)) >= len(sent) and bool(servers(s, card_trace))
        )

    [card_span] = servers(spans, card_trace)
    assert card_span.name == "GET"
    attributes = json.dumps(card_span.attributes)
    assert KEY not in attributes
    assert "access_token=%5Bredacted%3Aquery%5D" in str(card_span.attributes["http.url"])
    task_spans = servers(spans, task_trace)
    assert sorted(s.name for s in task_spans) == sorted(r.method for r in sent)
    # Beside them, the only SERVER spans are Temporal's ("HandleUpdate:inbox", ...): the
    # A2A SDK's handler opens no server span of its own.
    traced = [s for s in spans if s.trace_id == task_trace and s.kind == OTLP_SERVER]
    others = [s.name for s in traced if not is_http(s) and ":" not in s.name]
    assert others == []

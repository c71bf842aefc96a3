"""The served agent card: the SDK's JSON and ETag unchanged, plus Cache-Control,
Last-Modified and If-Modified-Since; its interfaces are exactly the bindings served."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

import httpx
import pytest
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import create_agent_card_routes
from a2a.types import AgentCard, GetTaskRequest
from a2a.utils.errors import TaskNotFoundError
from starlette.applications import Starlette
from temporalio.client import Client

from tests.support import BINDINGS, running_harness
from tiny_harness.service.a2a.card import CARD_CACHE_CONTROL, build_agent_card, card_route
from tiny_harness.service.http import HttpServer, free_port

CARD_PATH = "/.well-known/agent-card.json"
SDK_CARD_PATH = "/sdk-card.json"
MODIFIED = datetime(2026, 3, 1, 12, 30, 15, 987_000, tzinfo=UTC)
ANSWER = "turns:\n  - text: answered\n"
LAST_MODIFIED = "Sun, 01 Mar 2026 12:30:15 GMT"  # MODIFIED, to the second


def card() -> AgentCard:
    return build_agent_card("http://127.0.0.1:8080", model="demo", push=True)


@pytest.fixture
async def served() -> AsyncIterator[httpx.AsyncClient]:
    """Our card route, and the SDK's own beside it (at another path) to compare with."""
    app = Starlette(
        routes=[
            card_route(card(), modified=MODIFIED),
            *create_agent_card_routes(card(), card_url=SDK_CARD_PATH),
        ]
    )
    server = HttpServer(app, host="127.0.0.1", port=free_port())
    async with server, httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        yield http


def http_date(moment: datetime) -> str:
    return format_datetime(moment.astimezone(UTC), usegmt=True)


async def test_card_is_the_sdk_json_and_etag_with_caching_headers(
    served: httpx.AsyncClient,
) -> None:
    ours = await served.get(CARD_PATH)
    sdk = await served.get(SDK_CARD_PATH)

    assert ours.status_code == 200
    assert ours.json() == agent_card_to_dict(card()) == sdk.json()
    assert ours.headers["etag"] == sdk.headers["etag"]
    assert ours.headers["cache-control"] == CARD_CACHE_CONTROL == "public, max-age=300"
    assert ours.headers["last-modified"] == LAST_MODIFIED


@pytest.mark.parametrize("since", [MODIFIED.replace(microsecond=0), MODIFIED + timedelta(days=1)])
async def test_if_modified_since_at_or_after_the_card_is_304(
    served: httpx.AsyncClient, since: datetime
) -> None:
    fresh = await served.get(CARD_PATH)

    answer = await served.get(CARD_PATH, headers={"If-Modified-Since": http_date(since)})

    assert answer.status_code == 304
    assert answer.content == b""
    assert answer.headers["etag"] == fresh.headers["etag"]
    assert answer.headers["cache-control"] == CARD_CACHE_CONTROL
    assert answer.headers["last-modified"] == LAST_MODIFIED


@pytest.mark.parametrize(
    "header",
    [http_date(MODIFIED - timedelta(seconds=1)), "not a date", "Sun, 01 Mar 2026 12:30:15"],
)
async def test_if_modified_since_before_the_card_or_unreadable_is_200(
    served: httpx.AsyncClient, header: str
) -> None:
    answer = await served.get(CARD_PATH, headers={"If-Modified-Since": header})

    assert answer.status_code == 200
    assert answer.json() == agent_card_to_dict(card())
    assert answer.headers["last-modified"] == LAST_MODIFIED


async def test_if_none_match_decides_over_if_modified_since(served: httpx.AsyncClient) -> None:
    etag = (await served.get(CARD_PATH)).headers["etag"]
    since = http_date(MODIFIED)

    stale = await served.get(
        CARD_PATH, headers={"If-None-Match": 'W/"other"', "If-Modified-Since": since}
    )
    matching = await served.get(CARD_PATH, headers={"If-None-Match": etag})

    assert stale.status_code == 200
    assert matching.status_code == 304
    assert matching.headers["last-modified"] == LAST_MODIFIED
    assert matching.headers["cache-control"] == CARD_CACHE_CONTROL


async def test_the_app_card_keeps_its_last_modified_and_lists_exactly_the_served_bindings(
    temporal_client: Client, tmp_path: Path
) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    async with running_harness(temporal_client, tmp_path, ANSWER) as harness:
        first = await harness.http.get(harness.url + CARD_PATH)
        second = await harness.http.get(harness.url + CARD_PATH)
        revalidated = await harness.http.get(
            harness.url + CARD_PATH,
            headers={"If-Modified-Since": first.headers["last-modified"]},
        )
        interfaces = first.json()["supportedInterfaces"]
        for binding in BINDINGS:
            client = await harness.client(binding)
            with pytest.raises(TaskNotFoundError):  # answered by that binding's routes
                await client.get_task(GetTaskRequest(id="no-such-task"))

    assert first.headers["last-modified"] == second.headers["last-modified"]
    assert before <= parsedate_to_datetime(first.headers["last-modified"]) <= datetime.now(UTC)
    assert revalidated.status_code == 304
    served = {"JSONRPC": harness.url + "/", "HTTP+JSON": harness.url + "/rest"}
    assert {i["protocolBinding"]: i["url"] for i in interfaces} == served
    assert len(interfaces) == len(served) == len(BINDINGS)

"""The per-peer rate limit: token buckets on a fake clock, then the real server refusing a
burst with 429 before any route, while another address is still served; and, with keys,
the same limit per authenticated caller, whatever addresses it calls from."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from temporalio.client import Client

from tests.support import RunningHarness, collect, running_harness, send_request
from tiny_harness.config import ServerConfig
from tiny_harness.errors import ConfigError
from tiny_harness.service.a2a.authentication import ApiKeys, key_digest, new_key
from tiny_harness.service.a2a.rate_limit import RateLimit, RateLimiter

ANSWER = "turns:\n  - text: answered\n"
JSONRPC_HEADERS = {"content-type": "application/json", "A2A-Version": "1.0"}
SEND_PARAMS = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


async def workflows_once_seen(harness: RunningHarness, expected: str) -> set[str]:
    """The workflow ids on the harness's queue, once `expected` is visible among them."""
    for _ in range(100):
        seen = set(await harness.workflow_ids())
        if expected in seen:
            return seen
        await asyncio.sleep(0.05)
    return set(await harness.workflow_ids())


class FakeClock:
    """Seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limiter(
    per_second: float, burst: int, *, max_peers: int = 100
) -> tuple[RateLimiter, FakeClock]:
    clock = FakeClock()
    return RateLimiter(RateLimit(per_second, burst), clock=clock, max_peers=max_peers), clock


def test_a_peer_gets_its_burst_then_is_told_how_long_to_wait() -> None:
    limits, _ = limiter(per_second=2, burst=3)

    admitted = [limits.take("10.0.0.1") for _ in range(3)]
    refused = limits.take("10.0.0.1")

    assert admitted == [None, None, None]
    assert refused == pytest.approx(0.5)


def test_tokens_refill_at_the_rate_up_to_the_burst() -> None:
    limits, clock = limiter(per_second=2, burst=3)
    for _ in range(3):
        limits.take("10.0.0.1")

    clock.now += 0.5
    assert limits.take("10.0.0.1") is None
    assert limits.take("10.0.0.1") == pytest.approx(0.5)

    clock.now += 60
    assert [limits.take("10.0.0.1") for _ in range(4)] == [None, None, None, pytest.approx(0.5)]


def test_a_refused_request_takes_no_token() -> None:
    limits, clock = limiter(per_second=1, burst=1)
    limits.take("10.0.0.1")
    for _ in range(5):
        assert limits.take("10.0.0.1") is not None

    clock.now += 1
    assert limits.take("10.0.0.1") is None


def test_each_peer_has_its_own_bucket() -> None:
    limits, _ = limiter(per_second=1, burst=2)
    for _ in range(2):
        limits.take("10.0.0.1")

    assert limits.take("10.0.0.1") is not None
    assert limits.take("10.0.0.2") is None
    assert limits.take("::1") is None


def test_idle_peers_are_forgotten_once_their_bucket_is_full_again() -> None:
    limits, clock = limiter(per_second=10, burst=20)
    for n in range(50):
        limits.take(f"10.0.1.{n}")
    assert len(limits) == 50

    clock.now += 2  # 20 tokens at 10 a second: every bucket is full again
    limits.take("10.0.2.1")

    assert len(limits) == 1


def test_a_flood_of_addresses_never_holds_more_than_max_peers() -> None:
    limits, _ = limiter(per_second=1, burst=5, max_peers=10)

    for n in range(1000):
        limits.take(f"10.1.{n // 256}.{n % 256}")

    assert len(limits) == 10


def test_the_first_refusal_of_a_run_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    limits, clock = limiter(per_second=1, burst=1)
    with caplog.at_level(logging.WARNING, logger="tiny_harness.service.a2a.rate_limit"):
        for _ in range(5):
            limits.take("10.0.0.1")
        clock.now += 1
        limits.take("10.0.0.1")
        limits.take("10.0.0.1")

    assert [r.getMessage() for r in caplog.records] == [
        "rate limit: refusing requests from 10.0.0.1"
    ] * 2


def test_zero_per_second_turns_the_limit_off_and_the_default_is_20_and_40() -> None:
    defaults = ServerConfig()

    assert RateLimit.of(0, 40) is None
    assert RateLimit.of(defaults.rate_limit_per_second, defaults.rate_limit_burst) == RateLimit(
        20, 40
    )


@pytest.mark.parametrize(("per_second", "burst"), [(-1, 1), (float("inf"), 1), (1, 0)])
def test_a_nonsensical_limit_is_a_config_error(per_second: float, burst: int) -> None:
    with pytest.raises(ConfigError):
        RateLimit(per_second, burst)


async def test_a_burst_over_the_limit_is_refused_with_429_before_any_route(
    temporal_client: Client, tmp_path: Path
) -> None:
    limit = RateLimit(per_second=0.01, burst=3)  # a token every 100 s: none comes back here
    async with running_harness(temporal_client, tmp_path, ANSWER, rate_limit=limit) as harness:
        for _ in range(3):
            assert (await harness.http.get(harness.url + "/healthz")).status_code == 200
        refused = [
            await harness.http.post(
                harness.url + "/",
                content=json.dumps(
                    {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": SEND_PARAMS}
                ),
                headers=JSONRPC_HEADERS,
            ),
            await harness.http.post(
                harness.url + "/rest/message:send",
                content=json.dumps(SEND_PARAMS),
                headers=JSONRPC_HEADERS,
            ),
            await harness.http.get(harness.url + "/.well-known/agent-card.json"),
            await harness.http.get(harness.url + "/healthz"),
        ]
        # Another address (all of 127/8 is this machine) has its own bucket: its task runs,
        # and tells a refused request from one slow to show in Temporal's visibility.
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(transport=transport, timeout=30) as other:
            config = ClientConfig(supported_protocol_bindings=["JSONRPC"], httpx_client=other)
            client = await ClientFactory(config).create_from_url(harness.url)
            events = await collect(client.send_message(send_request("control")))
        control = events[0].task.id
        started = await workflows_once_seen(harness, control)

    for answer in refused:
        assert answer.status_code == 429
        assert answer.headers["retry-after"] == "100"
        assert answer.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert started == {control}


async def test_without_a_limit_a_peer_is_never_refused(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with running_harness(temporal_client, tmp_path, ANSWER, rate_limit=None) as harness:
        answers = [
            (await harness.http.get(harness.url + "/healthz")).status_code for _ in range(100)
        ]

    assert set(answers) == {200}


async def test_one_key_from_many_addresses_shares_one_bucket(
    temporal_client: Client, tmp_path: Path
) -> None:
    key = new_key()
    keys = ApiKeys([(key_digest(key), "alice")])
    limit = RateLimit(per_second=0.01, burst=3)  # a token every 100 s: none comes back here
    headers = {"Authorization": f"Bearer {key}"}
    async with running_harness(
        temporal_client, tmp_path, ANSWER, rate_limit=limit, auth=keys, auth_mode="api_key"
    ) as harness:
        answers = []
        for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"):
            transport = httpx.AsyncHTTPTransport(local_address=address)
            async with httpx.AsyncClient(transport=transport, timeout=30) as http:
                answers.append(await http.get(harness.url + "/_monitor", headers=headers))
        # An address with no key spent its own tokens on nothing: it is still let through
        # to the key check, and refused there.
        async with httpx.AsyncClient(
            transport=httpx.AsyncHTTPTransport(local_address="127.0.0.6"), timeout=30
        ) as stranger:
            unkeyed = await stranger.get(harness.url + "/_monitor")

    assert [a.status_code for a in answers[:3]] == [503, 503, 503]  # no heartbeat in tests
    assert answers[3].status_code == 429
    assert "from this caller" in answers[3].json()["error"]["message"]
    assert unkeyed.status_code == 401

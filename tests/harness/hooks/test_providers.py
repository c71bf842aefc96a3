"""`Providers`: the default infrastructure."""

from __future__ import annotations

from datetime import UTC, timedelta

import httpx

from tiny_harness.harness.hooks import default_providers


async def test_default_providers_give_fresh_clients_and_an_aware_utc_clock() -> None:
    providers = default_providers()

    async with providers.http_client_factory() as one, providers.http_client_factory() as two:
        assert isinstance(one, httpx.AsyncClient)
        assert one is not two
    now = providers.clock()
    assert now.utcoffset() == timedelta(0)
    assert now.tzinfo is UTC
    assert 0 <= providers.random.random() < 1

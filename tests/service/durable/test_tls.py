"""TLS to a Temporal cluster: mutual TLS through a real handshake, and every wrong setting a
`ConfigError` naming its variable before anything connects."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from temporalio.client import Client

from tests.service.durable.tls_proxy import Pki, tls_proxy, write_pki
from tiny_harness.config import TemporalConfig
from tiny_harness.errors import ConfigError, TemporalUnavailableError
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.service.durable.client.temporal import TemporalConnection, connect
from tiny_harness.service.durable.client.tls import temporal_tls


def mutual(address: str, pki: Pki, **changes: object) -> TemporalConfig:
    settings: dict[str, object] = {
        "address": address,
        "tls_ca_file": pki.ca,
        "tls_cert_file": pki.client_cert,
        "tls_key_file": pki.client_key,
        "tls_server_name": "localhost",
    }
    return TemporalConfig.model_validate(settings | changes)


async def connect_through_front(
    temporal_client: Client, tmp_path: Path, **changes: object
) -> tuple[str, TemporalConnection | TemporalUnavailableError]:
    """Connect as the harness does through a mutual-TLS front of the dev server, with the
    `mutual` settings and `changes`: the front's address and the connection (with a count
    of workflows made through it), or the error that refused it."""
    pki = write_pki(tmp_path)
    upstream = temporal_client.service_client.config.target_host
    async with tls_proxy(upstream, pki) as address, AsyncExitStack() as stack:
        store = SqliteStore(tmp_path / "store.sqlite3")
        stack.push_async_callback(store.close)
        try:
            connection = await connect(
                mutual(address, pki, **changes), tmp_path, stack, store=store
            )
        except TemporalUnavailableError as error:
            return address, error
        await connection.client.count_workflows()  # a call that crosses the front
        return address, connection


async def test_a_client_certificate_of_the_clusters_ca_gets_through_mutual_tls(
    temporal_client: Client, tmp_path: Path
) -> None:
    address, connection = await connect_through_front(temporal_client, tmp_path)

    assert isinstance(connection, TemporalConnection)
    assert connection.address == address
    assert not connection.embedded


async def test_without_a_client_certificate_the_cluster_refuses_and_the_error_names_it(
    temporal_client: Client, tmp_path: Path
) -> None:
    address, refused = await connect_through_front(
        temporal_client, tmp_path, tls_cert_file=None, tls_key_file=None
    )

    assert isinstance(refused, TemporalUnavailableError)
    assert f"cannot reach Temporal at {address}" in refused.message


@pytest.mark.parametrize(
    ("change", "variable", "says"),
    [
        ({"tls_ca_file": Path("absent.pem")}, "TLS_CA_FILE", "cannot read"),
        ({"tls_cert_file": Path("notes.txt")}, "TLS_CERT_FILE", "is not a PEM file"),
        ({"tls_key_file": None}, "TLS_KEY_FILE", "needs its key"),
        ({"tls_cert_file": None}, "TLS_CERT_FILE", "needs its key"),
        ({"tls": False}, "TLS", "TLS is false"),
    ],
)
def test_a_wrong_tls_setting_is_a_config_error_naming_its_variable(
    tmp_path: Path, change: dict[str, object], variable: str, says: str
) -> None:
    pki = write_pki(tmp_path)
    (tmp_path / "notes.txt").write_text("not a certificate\n")
    resolved = {
        key: tmp_path / value if isinstance(value, Path) else value for key, value in change.items()
    }
    config = mutual("127.0.0.1:7233", pki, **resolved)
    with pytest.raises(ConfigError) as refused:
        temporal_tls(config)
    assert refused.value.variable == f"TINY_HARNESS_TEMPORAL__{variable}"
    assert says in refused.value.message
    assert b"PRIVATE KEY" not in refused.value.message.encode()


def test_with_nothing_set_tls_is_the_sdks_choice_which_turns_it_on_for_an_api_key() -> None:
    assert temporal_tls(TemporalConfig()) is None
    assert temporal_tls(TemporalConfig(api_key="k-123")) is None
    assert temporal_tls(TemporalConfig(tls=False, api_key="k-123")) is False
    assert temporal_tls(TemporalConfig(tls=True)) is True

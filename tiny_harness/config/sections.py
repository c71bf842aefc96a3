"""The small sections of `Settings`: temporal, server, store, loop and heartbeat."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Annotated

from pydantic import AnyHttpUrl, BaseModel, Field, SecretStr, field_validator

from tiny_harness.config.keys import NonEmptyStr, Port
from tiny_harness.harness.settings.duration import Duration


class TemporalConfig(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """How to reach Temporal, or how to start the embedded development server."""

    address: NonEmptyStr | None = None
    """``host:port`` of a Temporal frontend; None starts an embedded dev server in ``serve``."""
    namespace: NonEmptyStr = "default"
    """The Temporal namespace every task's workflow runs in."""
    task_queue: NonEmptyStr = "tiny-harness"
    """The task queue the worker polls and the server starts tasks on; one per deployment."""
    tls: bool | None = None
    """TLS to ``address``: None leaves it to the SDK (on with an API key), true uses the
    system's roots, false none; the ``tls_*`` files below turn it on."""
    tls_ca_file: Path | None = None
    """PEM file of the CA that signed the cluster's certificate (None: the system's roots)."""
    tls_cert_file: Path | None = None
    """PEM client certificate for mutual TLS; needs ``tls_key_file``."""
    tls_key_file: Path | None = None
    """PEM private key of ``tls_cert_file`` (its content is a secret; the path is not)."""
    tls_server_name: NonEmptyStr | None = None
    """The name the cluster's certificate carries, when ``address`` is not that name."""
    api_key: SecretStr | None = None
    """Temporal Cloud API key. Secret: environment only (``TINY_HARNESS_TEMPORAL__API_KEY``)."""
    embedded_port: Port = 7233
    """Frontend port of the embedded dev server; 0 picks a free port."""
    ui: bool = False
    """Start the Temporal web UI together with the embedded dev server."""
    ui_port: Port | None = None
    """Port of the embedded web UI; None means ``embedded_port + 1000``."""
    large_payload_bytes: Annotated[int, Field(ge=1024, le=512 * 1024)] = 128 * 1024
    """Payloads of this many bytes or more are kept in the store, and Temporal carries a
    reference to them (at least 1 KiB; at most 512 KiB, where Temporal starts to warn)."""
    max_cached_workflows: Annotated[int, Field(ge=0)] = 500
    """Runs a worker keeps in memory between their workflow tasks; past it the least recently
    used is evicted and replayed from its history when it next has work (0: none kept)."""


class ServerConfig(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """The A2A HTTP server."""

    host: NonEmptyStr = "127.0.0.1"
    """The address the A2A server listens on (`0.0.0.0` for every interface)."""
    port: Port = 8080
    """The port the A2A server listens on; 0 picks a free one."""
    public_url: AnyHttpUrl | None = None
    """Base URL the agent card advertises; None means ``http://{host}:{port}``."""
    max_request_bytes: Annotated[int, Field(ge=1024)] = 1_048_576
    """Largest request body the server accepts."""
    base_url: AnyHttpUrl | None = None
    """The public base URL remote agents reach this server at: push notifications about
    delegated tasks are registered under it (``<base_url>/a2a/push/<task id>``). None means
    no push is registered, and a parked remote task is followed with SubscribeToTask."""
    sse_keepalive: Annotated[Duration, Field(gt=timedelta(0), le=timedelta(seconds=30))] = (
        timedelta(seconds=15)
    )
    """How often a streaming response sends an SSE comment, so a proxy keeps a stream open
    while it waits on a long step (over 0, at most 30 s)."""
    rate_limit_per_second: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 20.0
    """Requests per second each peer address may make (a token bucket refilled at this
    rate); over it, a request is refused with 429. 0 turns the limit off."""
    rate_limit_burst: Annotated[int, Field(ge=1)] = 40
    """Requests a peer address may make at once: the size of its token bucket."""
    web_ui_dir: Path | None = None
    """The built web renderer served at ``/ui``; None means ``renderers/web/dist`` of the
    checkout the package runs from (where ``make serve`` builds it)."""


class StoreConfig(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """Where task records are kept: a SQLite file (the default, for one host), or the
    PostgreSQL database at `url` (shared by every process of a deployment)."""

    path: Path | None = None
    """SQLite file; None means ``<data_dir>/tiny-harness.sqlite3`` (see `Settings.store_path`).
    Not read when `url` is set."""
    url: SecretStr | None = None
    """PostgreSQL URL (``postgresql://user:password@host:5432/db``). Secret: environment
    only (``TINY_HARNESS_STORE__URL``), since it holds the password."""
    pool_size: int = Field(default=10, ge=1, le=100)
    """Most connections each process opens to PostgreSQL (one more listens for writes)."""

    @field_validator("url")
    @classmethod
    def _url_is_postgres(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(_POSTGRES_SCHEMES):
            raise ValueError("must be a postgresql:// URL")
        return value


_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class LoopConfig(BaseModel, extra="forbid", frozen=True):
    """Bounds of one task's agent loop."""

    max_model_calls: int = Field(default=100, ge=1)
    """A task whose model has been called this often without finishing fails, saying so: a
    model that never stops calling tools cannot run (and bill) forever."""
    max_task_tokens: int | None = Field(default=None, ge=1)
    """A task whose model calls (input plus output tokens, with those of its sub-tasks on
    this harness) used more tokens fails, saying so, and its sub-tasks are cancelled.
    None: no budget."""
    show_call_details: bool = True
    """Each model and tool call is told on the task's stream as it starts and ends; true
    shows a tool call's arguments and result (masked, as everything stored), false only
    names and outcomes. A participant of a task may see what it did."""


class HeartbeatConfig(BaseModel, extra="forbid", frozen=True):
    """The `tiny-harness-heartbeat` schedule: whether the server creates it, how often."""

    enabled: bool = True
    """Keep the heartbeat schedule: pull channels polled, open tasks counted for
    `GET /_monitor`, old store records swept."""
    interval: Annotated[Duration, Field(ge=timedelta(seconds=1))] = timedelta(seconds=30)
    """How often the heartbeat runs (ISO 8601, at least 1 s)."""
    schedule_id: NonEmptyStr = "tiny-harness-heartbeat"
    """Id of the Temporal schedule; each tick's workflow id starts with it. Harnesses that
    share a namespace but not a task queue need different ids."""

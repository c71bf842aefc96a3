"""Running the harness: Temporal (embedded or remote), the worker, and the A2A server.

    serve:  connect/start Temporal ─► store ─► worker ─┬─► heartbeat schedule ─► A2A server
    worker: connect Temporal ─► store ─► worker ───────┘                         │
    server: connect Temporal ─► store ──────────────────► heartbeat schedule ─► A2A server

Each component logs one line with its address when it is up. Shutdown (SIGINT/SIGTERM,
which cancel the main task so every `finally` runs) stops the server, then the worker, then
the embedded Temporal server.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a.types import AgentCard
from starlette.applications import Starlette
from starlette.types import ASGIApp
from temporalio.client import Interceptor

from tiny_harness.config import Settings
from tiny_harness.errors import ConfigError
from tiny_harness.harness.channels.a2a import A2A_CHANNEL_REF, A2AChannel
from tiny_harness.harness.models.factory import ChosenModel, choose_model
from tiny_harness.harness.persistence.push_key import resolve_push_key
from tiny_harness.harness.persistence.store import Store
from tiny_harness.harness.plugins.install import build_harness
from tiny_harness.harness.runtime.harness import Harness
from tiny_harness.harness.security import Redactor
from tiny_harness.service import callers, storage
from tiny_harness.service.a2a.app import create_app
from tiny_harness.service.a2a.card import build_agent_card
from tiny_harness.service.a2a.doorbell import PushReceiver
from tiny_harness.service.a2a.rate_limit import RateLimit
from tiny_harness.service.delegates import register_agents
from tiny_harness.service.durable.activities.task import TaskActivities
from tiny_harness.service.durable.client.gateway import TaskGateway
from tiny_harness.service.durable.client.temporal import TemporalConnection, connect
from tiny_harness.service.durable.client.worker import build_worker
from tiny_harness.service.heartbeat.activities import HeartbeatActivities
from tiny_harness.service.heartbeat.schedule import HeartbeatMonitor, ensure_heartbeat_schedule
from tiny_harness.service.http import HttpServer, free_port
from tiny_harness.service.local_cards import LOCAL_CARDS
from tiny_harness.service.notifications.outbound import Outbound, open_outbound
from tiny_harness.service.o11y.counters import Counters
from tiny_harness.service.o11y.operations import Operations
from tiny_harness.service.o11y.spans import SpanHooks
from tiny_harness.service.web_ui import CHECKOUT_BUILD, UI_PATH, WebUi

if TYPE_CHECKING:  # its SDK is imported only with an OTLP endpoint
    from tiny_harness.service.o11y.telemetry import Telemetry

logger = logging.getLogger("tiny_harness")


def _telemetry(settings: Settings, stack: AsyncExitStack) -> Telemetry | None:
    """The process's telemetry, when an OTLP endpoint is configured; flushed when `stack`
    closes, after everything that makes spans has stopped. Its SDK loads only then."""
    if settings.o11y.otlp_endpoint is None:
        return None
    from tiny_harness.service.o11y.telemetry import open_telemetry

    telemetry = open_telemetry(settings.o11y)
    if telemetry is not None:
        stack.callback(telemetry.shutdown)
    return telemetry


async def _temporal(
    settings: Settings, stack: AsyncExitStack, store: Store, telemetry: Telemetry | None = None
) -> TemporalConnection:
    interceptors: list[Interceptor] = []
    if telemetry is not None:
        from temporalio.contrib.opentelemetry import TracingInterceptor

        # On the client only: a worker built on it takes its interceptors (NOTES N9).
        interceptors.append(TracingInterceptor(telemetry.tracer))
    connection = await connect(
        settings.temporal,
        settings.data_dir,
        stack,
        store=store,
        interceptors=interceptors,
        redactor=_redactor(settings),
    )
    kind = "embedded dev server" if connection.embedded else "cluster"
    logger.info(
        "temporal: %s at %s, namespace %s",
        kind,
        connection.address,
        settings.temporal.namespace,
    )
    if connection.ui_url:
        logger.info("temporal ui: %s", connection.ui_url)
    return connection


def _store(settings: Settings, stack: AsyncExitStack) -> Store:
    """The store, closed when `stack` closes (after the client that keeps payloads in it)."""
    store = storage.open_store(settings, stack)
    logger.info("store: %s", storage.describe(settings))
    return store


def _needs_address(settings: Settings, role: str) -> None:
    """A lone worker or server has nobody to share an embedded Temporal with."""
    if settings.temporal.address is None:
        raise ConfigError(
            f"tiny-harness {role} needs a Temporal address: set TINY_HARNESS_TEMPORAL__ADDRESS",
            variable="TINY_HARNESS_TEMPORAL__ADDRESS",
        )


async def run_worker(settings: Settings) -> None:
    """Run only the worker, against the configured (remote) Temporal.

    Raises `ConfigError` when no Temporal address is configured.
    """
    _needs_address(settings, "worker")
    chosen = choose_model(settings.model)
    async with AsyncExitStack() as stack:
        telemetry = _telemetry(settings, stack)
        store = _store(settings, stack)
        connection = await _temporal(settings, stack, store, telemetry)
        harness = await _harness(settings, chosen, store, stack, telemetry)
        card = _card(settings, chosen.description)
        await register_agents(harness, settings, card, stack)
        gateway = _gateway(settings, connection, store)
        outbound = await _outbound(settings, connection, gateway, stack, _counters(telemetry))
        worker = build_worker(
            connection.client,
            task_queue=settings.temporal.task_queue,
            activities=_task_activities(settings, harness, telemetry),
            heartbeat=_heartbeat_activities(settings, connection, harness),
            push_base_url=_push_base(settings),
            push=outbound.activities,
            max_cached_workflows=settings.temporal.max_cached_workflows,
        )
        logger.info("worker: task queue %s", settings.temporal.task_queue)
        await worker.run()


async def _harness(
    settings: Settings,
    chosen: ChosenModel,
    store: Store,
    stack: AsyncExitStack,
    telemetry: Telemetry | None = None,
) -> Harness:
    """The worker's `Harness`, with every plugin installed."""
    logger.info("model: %s", chosen.description)
    stack.push_async_callback(chosen.llm.aclose)
    harness, installation = await build_harness(
        llm=chosen.llm, store=store, plugins=settings.plugins, data_dir=settings.data_dir
    )
    stack.push_async_callback(harness.close)
    harness.budget = settings.context
    for refused in installation.refused:
        logger.error("plugin refused: %s", refused.message)
    logger.info("plugins: %s", ", ".join(r.plugin for r in installation.reports))
    # In every process: untraced, its spans are no-op ones and only the records are written.
    harness.hooks.register(
        SpanHooks(
            _operations(telemetry),
            chosen.llm.info,
            redactor=_redactor(settings),
            capture_content=settings.o11y.capture_content,
        )
    )
    if telemetry is not None:
        from tiny_harness.service.o11y.metrics import MetricHooks

        harness.hooks.register(MetricHooks(telemetry.meter, chosen.llm.info))
    return harness


def _heartbeat_activities(
    settings: Settings, connection: TemporalConnection, harness: Harness
) -> HeartbeatActivities:
    """Every worker runs heartbeat ticks, whichever process keeps the schedule."""
    return HeartbeatActivities(
        connection.client,
        harness,
        task_queue=settings.temporal.task_queue,
        retention=settings.retention,
        redactor=_redactor(settings),
    )


async def _heartbeat(settings: Settings, connection: TemporalConnection) -> HeartbeatMonitor | None:
    """Create or update the heartbeat schedule when it is enabled; a monitor reading it."""
    config = settings.heartbeat
    if not config.enabled:
        logger.info("heartbeat: disabled")
        return None
    await ensure_heartbeat_schedule(
        connection.client, task_queue=settings.temporal.task_queue, config=config
    )
    every = f"{config.interval.total_seconds():g}s"
    logger.info("heartbeat: schedule %s every %s", config.schedule_id, every)
    return HeartbeatMonitor(connection.client, schedule_id=config.schedule_id)


def _gateway(settings: Settings, connection: TemporalConnection, store: Store) -> TaskGateway:
    return TaskGateway(
        connection.client,
        task_queue=settings.temporal.task_queue,
        store=store,
        retries=settings.retries,
        max_model_calls=settings.loop.max_model_calls,
        max_task_tokens=settings.loop.max_task_tokens,
        show_call_details=settings.loop.show_call_details,
        trace_url=settings.o11y.trace_url,
        prices=settings.model.prices,
        redactor=_redactor(settings),
        searchable=connection.searchable,
    )


def _task_activities(
    settings: Settings, harness: Harness, telemetry: Telemetry | None
) -> TaskActivities:
    """The task activities, masking what they store, counting and tracing what they do."""
    return TaskActivities(
        harness,
        redactor=_redactor(settings),
        counters=_counters(telemetry),
        operations=_operations(telemetry),
    )


def _operations(telemetry: Telemetry | None) -> Operations:
    """The telemetry's tracer's operations, or untraced ones (records only) without it."""
    return Operations(telemetry.tracer if telemetry is not None else None)


def _counters(telemetry: Telemetry | None) -> Counters:
    """The telemetry's counters, or no-op ones without telemetry."""
    return telemetry.counters if telemetry is not None else Counters()


async def _outbound(
    settings: Settings,
    connection: TemporalConnection,
    gateway: TaskGateway,
    stack: AsyncExitStack,
    counters: Counters,
) -> Outbound:
    """Push to our clients: the encrypted config store (in the store's file), the guard."""
    key = resolve_push_key(
        settings.push_key, data_dir=settings.data_dir, embedded=connection.embedded
    )
    configs = storage.push_configs(settings, gateway.store, key, stack)
    return await open_outbound(
        connection.client,
        gateway,
        configs,
        stack,
        task_queue=settings.temporal.task_queue,
        allow=settings.push.allow,
        window=settings.push.delivery_window,
        counters=counters,
    )


def _redactor(settings: Settings) -> Redactor:
    """Masks, besides every credential shape, any of the secrets this process holds."""
    return Redactor(settings.secrets())


def _push_base(settings: Settings) -> str | None:
    """Where remote agents push to: `server.base_url`; None (stand-ins follow) when unset."""
    base = settings.server.base_url
    return str(base).rstrip("/") if base is not None else None


@dataclass(frozen=True)
class RunningHarness:
    """A started harness: where it answers, and its Temporal client and store."""

    url: str
    temporal: TemporalConnection
    store: Store


async def open_harness(
    settings: Settings, stack: AsyncExitStack, *, worker: bool = True
) -> RunningHarness:
    """Start Temporal (embedded unless an address is set), a worker (unless `worker` is
    false: the `server` role, whose tasks run on `tiny-harness worker` processes) and the
    A2A server.

    Everything started is stopped, in reverse order, when `stack` closes. Port 0 for the
    server means a free port, chosen before the card is built so the card names it.
    """
    if settings.server.port == 0:
        server = settings.server.model_copy(update={"port": free_port(settings.server.host)})
        settings = settings.model_copy(update={"server": server})
    chosen = choose_model(settings.model)
    telemetry = _telemetry(settings, stack)
    store = _store(settings, stack)
    connection = await _temporal(settings, stack, store, telemetry)
    task_queue = settings.temporal.task_queue
    harness = await _harness(settings, chosen, store, stack, telemetry)
    card = _card(settings, chosen.description)
    base = _push_base(settings)
    urls = (settings.advertised_url,) if base is None else (settings.advertised_url, base)
    stack.callback(LOCAL_CARDS.announce(urls, card))
    await register_agents(harness, settings, card, stack)
    gateway = _gateway(settings, connection, store)
    outbound = await _outbound(settings, connection, gateway, stack, _counters(telemetry))
    if worker:
        running = build_worker(
            connection.client,
            task_queue=task_queue,
            activities=_task_activities(settings, harness, telemetry),
            heartbeat=_heartbeat_activities(settings, connection, harness),
            push_base_url=base,
            push=outbound.activities,
            max_cached_workflows=settings.temporal.max_cached_workflows,
        )
        await stack.enter_async_context(running)
        logger.info("worker: task queue %s", task_queue)
    monitor = await _heartbeat(settings, connection)
    web_ui = WebUi(settings.server.web_ui_dir or CHECKOUT_BUILD)
    app = create_app(
        gateway,
        card,
        max_request_bytes=settings.server.max_request_bytes,
        monitor=monitor,
        push=PushReceiver(connection.client, counters=_counters(telemetry)),
        outbound=outbound.registrations,
        sse_keepalive=settings.server.sse_keepalive,
        rate_limit=RateLimit.of(
            settings.server.rate_limit_per_second, settings.server.rate_limit_burst
        ),
        redactor=_redactor(settings),
        channel=await harness.registry.get(A2A_CHANNEL_REF, A2AChannel),
        web_ui=web_ui,
        auth=callers.authenticator(settings),
    )
    http = await _listen(_traced(app, telemetry, _redactor(settings)), settings, web_ui, stack)
    return RunningHarness(url=http.url, temporal=connection, store=store)


def _card(settings: Settings, model: str) -> AgentCard:
    return build_agent_card(
        settings.advertised_url, model=model, push=True, auth=settings.auth.mode
    )


def _traced(app: Starlette, telemetry: Telemetry | None, redactor: Redactor) -> ASGIApp:
    """`app`, opening a server span per request when an OTLP endpoint is set."""
    if telemetry is None:
        return app
    from tiny_harness.service.o11y.server import traced

    return traced(app, telemetry.provider, redactor)


async def _listen(
    app: ASGIApp, settings: Settings, web_ui: WebUi, stack: AsyncExitStack
) -> HttpServer:
    """Serve `app` on the configured address until `stack` closes, saying where."""
    http = await stack.enter_async_context(
        HttpServer(app, host=settings.server.host, port=settings.server.port)
    )
    logger.info(
        "a2a: listening on %s, agent card %s/.well-known/agent-card.json",
        http.url,
        settings.advertised_url,
    )
    if web_ui.built:
        logger.info("web ui: %s%s/", settings.advertised_url, UI_PATH)
    else:
        logger.warning("web ui: %s", web_ui.missing)
    return http


async def serve(settings: Settings) -> None:
    """Run the harness until cancelled (SIGINT/SIGTERM)."""
    async with AsyncExitStack() as stack:
        await open_harness(settings, stack)
        await asyncio.Event().wait()


async def run_server(settings: Settings) -> None:
    """Run only the A2A server until cancelled, against the configured (remote) Temporal:
    its tasks run on `tiny-harness worker` processes. Raises `ConfigError` when no Temporal
    address is configured."""
    _needs_address(settings, "server")
    async with AsyncExitStack() as stack:
        await open_harness(settings, stack, worker=False)
        await asyncio.Event().wait()

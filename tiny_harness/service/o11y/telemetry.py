"""`Telemetry`: the process's tracer and meter providers, exporting over OTLP/HTTP protobuf.

Built once per process when `o11y.otlp_endpoint` is set: spans go to `<endpoint>/v1/traces`
and metrics to `<endpoint>/v1/metrics`. The harness hands its tracer and meter to each of
its own users (the span and metric hooks, the Temporal interceptor, the server
middleware); the tracer provider also becomes the process's global one, unless one is set
already, so the spans the SDKs make themselves (the MCP client's, the A2A server's) join
the same traces.

Export never holds up a task. Spans queue in memory (at most `MAX_QUEUED_SPANS`) and a
background thread posts them in batches; when the collector is down or slow the queue
fills and further spans are dropped (the SDK logs it), while the tasks go on. Metrics are
aggregated in memory and posted every `METRIC_INTERVAL_MILLIS` by another thread. Stopping
posts what is still held, waiting at most `EXPORT_TIMEOUT_SECONDS` for each.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Final

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.metrics import Meter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Tracer

from tiny_harness import __version__
from tiny_harness.config import O11yConfig
from tiny_harness.config.o11y import otlp_headers
from tiny_harness.service.o11y.counters import Counters

logger = logging.getLogger(__name__)

TRACES_PATH: Final = "/v1/traces"
METRICS_PATH: Final = "/v1/metrics"
MAX_QUEUED_SPANS: Final = 4096
EXPORT_TIMEOUT_SECONDS: Final = 5.0
"""How long one export (its retries included) may take; also what stopping waits, at most,
for a collector that does not answer."""
EXPORT_INTERVAL_MILLIS: Final = 1000
"""How long a span waits in the queue before its batch is posted, at most."""
METRIC_INTERVAL_MILLIS: Final = 10_000
"""How often the metrics are posted."""


@dataclass(frozen=True)
class Telemetry:
    """The tracer and meter providers with their OTLP exporters, and what the harness uses."""

    provider: TracerProvider
    meters: MeterProvider
    tracer: Tracer
    meter: Meter
    endpoint: str
    """The collector's base URL."""
    counters: Counters
    """The harness's own counters, on `meter`."""

    def shutdown(self) -> None:
        """Post what is held (bounded by the export timeout) and stop the exporters."""
        self.provider.shutdown()
        self.meters.shutdown(timeout_millis=EXPORT_TIMEOUT_SECONDS * 1000)


def open_telemetry(config: O11yConfig) -> Telemetry | None:
    """Telemetry as `config` asks for it, or None when no endpoint is configured."""
    if config.otlp_endpoint is None:
        return None
    base = str(config.otlp_endpoint).rstrip("/")
    headers = otlp_headers(config.otlp_headers)
    resource = Resource.create(
        {"service.name": config.service_name, "service.version": __version__}
    )
    spans = OTLPSpanExporter(
        endpoint=base + TRACES_PATH, headers=headers, timeout=EXPORT_TIMEOUT_SECONDS
    )
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(
        BatchSpanProcessor(
            spans, max_queue_size=MAX_QUEUED_SPANS, schedule_delay_millis=EXPORT_INTERVAL_MILLIS
        )
    )
    metrics = OTLPMetricExporter(
        endpoint=base + METRICS_PATH, headers=headers, timeout=EXPORT_TIMEOUT_SECONDS
    )
    reader = PeriodicExportingMetricReader(metrics, export_interval_millis=METRIC_INTERVAL_MILLIS)
    meters = MeterProvider(metric_readers=[reader], resource=resource, shutdown_on_exit=False)
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        trace.set_tracer_provider(provider)
    # Neither the headers nor a user part of the URL: either may carry credentials.
    url = config.otlp_endpoint
    logger.info("o11y: exporting traces and metrics to %s://%s:%s", url.scheme, url.host, url.port)
    meter = meters.get_meter("tiny_harness", __version__)
    return Telemetry(
        provider,
        meters,
        provider.get_tracer("tiny_harness", __version__),
        meter,
        base,
        Counters(meter),
    )

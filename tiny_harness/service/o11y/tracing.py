"""`Tracing`: the process's tracer provider, exporting spans over OTLP/HTTP protobuf.

Built once per process when `o11y.otlp_endpoint` is set. The harness hands its tracer to
each of its own users (the span hooks, the Temporal interceptor, the server middleware);
the provider also becomes the process's global one, unless one is set already, so the
spans the SDKs make themselves (the MCP client's, the A2A server's) join the same traces.

Export never holds up a task. Spans queue in memory (at most `MAX_QUEUED_SPANS`) and a
background thread posts them in batches; when the collector is down or slow the queue
fills and further spans are dropped (the SDK logs it), while the tasks go on. Stopping
posts what is still queued, waiting at most `EXPORT_TIMEOUT_SECONDS`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Final

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Tracer

from tiny_harness import __version__
from tiny_harness.config import O11yConfig
from tiny_harness.config.o11y import otlp_headers

logger = logging.getLogger(__name__)

TRACES_PATH: Final = "/v1/traces"
"""Where, under the collector's base URL, OTLP/HTTP takes traces."""
MAX_QUEUED_SPANS: Final = 4096
EXPORT_TIMEOUT_SECONDS: Final = 5.0
"""How long one export (its retries included) may take; also what stopping waits, at most,
for a collector that does not answer."""
EXPORT_INTERVAL_MILLIS: Final = 1000
"""How long a span waits in the queue before its batch is posted, at most."""


@dataclass(frozen=True)
class Tracing:
    """A tracer provider with its OTLP exporter, and the tracer the harness uses."""

    provider: TracerProvider
    tracer: Tracer
    endpoint: str
    """Where traces are posted (the collector's base URL + `TRACES_PATH`)."""

    def shutdown(self) -> None:
        """Post what is queued (bounded by the export timeout) and stop the exporter."""
        self.provider.shutdown()


def open_tracing(config: O11yConfig) -> Tracing | None:
    """Tracing as `config` asks for it, or None when no endpoint is configured."""
    if config.otlp_endpoint is None:
        return None
    endpoint = str(config.otlp_endpoint).rstrip("/") + TRACES_PATH
    exporter = OTLPSpanExporter(
        endpoint=endpoint,
        headers=otlp_headers(config.otlp_headers),
        timeout=EXPORT_TIMEOUT_SECONDS,
    )
    resource = Resource.create(
        {"service.name": config.service_name, "service.version": __version__}
    )
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(
        BatchSpanProcessor(
            exporter,
            max_queue_size=MAX_QUEUED_SPANS,
            schedule_delay_millis=EXPORT_INTERVAL_MILLIS,
        )
    )
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        trace.set_tracer_provider(provider)
    # Neither the headers nor a user part of the URL: either may carry credentials.
    url = config.otlp_endpoint
    logger.info("o11y: exporting traces to %s://%s:%s", url.scheme, url.host, url.port)
    return Tracing(provider, provider.get_tracer("tiny_harness", __version__), endpoint)

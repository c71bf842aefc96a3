"""An OTLP/HTTP collector for tests: decodes the exporters' real protobuf requests.

`POST /v1/traces` takes an `ExportTraceServiceRequest` and `POST /v1/metrics` an
`ExportMetricsServiceRequest` (opentelemetry-proto, the version the exporters send); every
span is kept flattened with its resource's service name, and every histogram data point
with its metric's name.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tiny_harness.service.http import HttpServer, free_port

type AttributeValue = str | bool | int | float | list[str | bool | int | float]


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as the collector got it; ids in hex, as trace viewers show them."""

    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    kind: int
    status_code: int
    service: str
    attributes: dict[str, AttributeValue]
    duration_nanos: int = 0


@dataclass(frozen=True)
class ReceivedPoint:
    """One histogram data point: its metric, attributes, count and sum."""

    metric: str
    unit: str
    attributes: dict[str, AttributeValue]
    count: int
    sum: float


@dataclass
class Receiver:
    """Every span received, in arrival order; `url` is the collector's base URL."""

    url: str = ""
    spans: list[ReceivedSpan] = field(default_factory=list[ReceivedSpan])
    points: list[ReceivedPoint] = field(default_factory=list[ReceivedPoint])
    bodies: list[bytes] = field(default_factory=list[bytes])
    """Every export request as it arrived (traces and metrics), for a search of its bytes."""
    requests: int = 0
    arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def wait_for(
        self, holds: Callable[[list[ReceivedSpan]], bool], *, seconds: float = 30.0
    ) -> list[ReceivedSpan]:
        """The spans, once `holds` is true of them."""
        async with asyncio.timeout(seconds), self.arrived:
            await self.arrived.wait_for(lambda: holds(self.spans))
        return list(self.spans)

    async def wait_for_points(
        self, holds: Callable[[list[ReceivedPoint]], bool], *, seconds: float = 30.0
    ) -> list[ReceivedPoint]:
        """The histogram points, once `holds` is true of them."""
        async with asyncio.timeout(seconds), self.arrived:
            await self.arrived.wait_for(lambda: holds(self.points))
        return list(self.points)


def _value(value: AnyValue) -> AttributeValue:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]  # type: ignore[misc]
    scalar: str | bool | int | float = getattr(value, kind or "string_value")
    return scalar


def _spans(request: ExportTraceServiceRequest) -> list[ReceivedSpan]:
    found: list[ReceivedSpan] = []
    for resource_spans in request.resource_spans:
        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                found.append(
                    ReceivedSpan(
                        name=span.name,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_span_id=span.parent_span_id.hex(),
                        kind=span.kind,
                        status_code=span.status.code,
                        service=str(resource.get("service.name", "")),
                        attributes={a.key: _value(a.value) for a in span.attributes},
                        duration_nanos=span.end_time_unix_nano - span.start_time_unix_nano,
                    )
                )
    return found


def _points(request: ExportMetricsServiceRequest) -> list[ReceivedPoint]:
    found: list[ReceivedPoint] = []
    for resource_metrics in request.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                if metric.WhichOneof("data") != "histogram":
                    continue
                for point in metric.histogram.data_points:
                    attributes = {a.key: _value(a.value) for a in point.attributes}
                    found.append(
                        ReceivedPoint(metric.name, metric.unit, attributes, point.count, point.sum)
                    )
    return found


@asynccontextmanager
async def otlp_receiver() -> AsyncIterator[Receiver]:
    """A collector listening on 127.0.0.1 for as long as the block runs."""
    receiver = Receiver()

    async def traces(request: Request) -> Response:
        body = await request.body()
        decoded = ExportTraceServiceRequest.FromString(body)
        async with receiver.arrived:
            receiver.bodies.append(body)
            receiver.requests += 1
            receiver.spans.extend(_spans(decoded))
            receiver.arrived.notify_all()
        return Response(
            ExportTraceServiceResponse().SerializeToString(),
            media_type="application/x-protobuf",
        )

    async def metrics(request: Request) -> Response:
        body = await request.body()
        decoded = ExportMetricsServiceRequest.FromString(body)
        async with receiver.arrived:
            receiver.bodies.append(body)
            receiver.points.extend(_points(decoded))
            receiver.arrived.notify_all()
        return Response(
            ExportMetricsServiceResponse().SerializeToString(),
            media_type="application/x-protobuf",
        )

    port = free_port()
    receiver.url = f"http://127.0.0.1:{port}"
    routes = [
        Route("/v1/traces", traces, methods=["POST"]),
        Route("/v1/metrics", metrics, methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    async with HttpServer(app, host="127.0.0.1", port=port):
        yield receiver

"""`SpanCollector`: a small OTLP/HTTP receiver on 127.0.0.1 that keeps the spans sent to it.

`POST /v1/traces` takes an `ExportTraceServiceRequest` (protobuf), as the harness's
exporter sends it; metrics and logs are accepted and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Self

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tiny_harness.service.http import HttpServer


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as exported: its name and attributes."""

    name: str
    attributes: dict[str, str | int | float | bool]


def _value(value: AnyValue) -> str | int | float | bool:
    kind = value.WhichOneof("value")
    return (
        getattr(value, kind)
        if kind in {"string_value", "int_value", "double_value", "bool_value"}
        else str(value)
    )


class SpanCollector:
    """The receiver for the life of an `async with`."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        routes = [
            Route(f"/v1/{kind}", self._receive, methods=["POST"])
            for kind in ("traces", "metrics", "logs")
        ]
        self._server = HttpServer(Starlette(routes=routes), host="127.0.0.1", port=0)

    @property
    def url(self) -> str:
        """The base URL to give an exporter (`TINY_HARNESS_O11Y__OTLP_ENDPOINT`)."""
        return self._server.url

    def spans_of(self, task_id: str) -> list[ReceivedSpan]:
        """The spans of the task `task_id` received so far."""
        return [s for s in self.spans if s.attributes.get("tiny_harness.task_id") == task_id]

    async def _receive(self, request: Request) -> Response:
        if request.url.path.endswith("/traces"):
            export = ExportTraceServiceRequest.FromString(await request.body())
            for resource in export.resource_spans:
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        attributes = {a.key: _value(a.value) for a in span.attributes}
                        self.spans.append(ReceivedSpan(span.name, attributes))
        body = ExportTraceServiceResponse().SerializeToString()
        return Response(body, media_type="application/x-protobuf")

    async def __aenter__(self) -> Self:
        await self._server.__aenter__()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._server.__aexit__(kind, error, tb)

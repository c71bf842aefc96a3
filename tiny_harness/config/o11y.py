"""`[o11y]`: where traces go, and whether they may carry message contents."""

from __future__ import annotations

from pydantic import AnyHttpUrl, BaseModel, SecretStr, field_validator

from tiny_harness.config.keys import NonEmptyStr


class O11yConfig(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """Traces and metrics over OTLP/HTTP (protobuf). With no endpoint nothing is exported."""

    otlp_endpoint: AnyHttpUrl | None = None
    """A collector's base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it: traces are posted
    to ``<endpoint>/v1/traces``. None turns tracing off."""
    otlp_headers: SecretStr | None = None
    """Headers sent with every export, ``name=value`` pairs separated by commas (the form of
    `OTEL_EXPORTER_OTLP_HEADERS`), such as a collector's ``Authorization``. Secret:
    environment only (``TINY_HARNESS_O11Y__OTLP_HEADERS``)."""
    service_name: NonEmptyStr = "tiny-harness"
    """The ``service.name`` of every span, which tells two harnesses apart in one trace."""
    capture_content: bool = False
    """Record model requests and answers, and tool arguments and results, on the spans
    (masked by the Redactor). Off: spans carry names, ids, usage and outcomes only."""
    trace_url: str | None = None
    """Where a person opens a task's trace: an http(s) URL template with ``{traceId}``, such
    as ``https://jaeger.example/trace/{traceId}``. Each traced task then carries the link in
    its extension data (`trace.url`), and both renderers' timelines show it."""

    @field_validator("trace_url")
    @classmethod
    def _trace_url_is_a_template(cls, value: str | None) -> str | None:
        if value is not None:
            if "{traceId}" not in value:
                raise ValueError("must contain {traceId}")
            if not value.startswith(("https://", "http://")):
                raise ValueError("must be an http(s) URL")
        return value

    @field_validator("otlp_headers")
    @classmethod
    def _headers_are_pairs(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            otlp_headers(value)  # its ValueError never quotes a value
        return value


def otlp_headers(value: SecretStr | None) -> dict[str, str]:
    """The headers of ``name=value,name=value``; ValueError naming the pair's position
    (never its text) when one has no name or no ``=``."""
    if value is None:
        return {}
    headers: dict[str, str] = {}
    for position, pair in enumerate(value.get_secret_value().split(","), start=1):
        if not pair.strip():
            continue
        name, equals, text = pair.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"otlp_headers: pair {position} is not name=value")
        headers[name.strip()] = text.strip()
    return headers

"""What every provider adapter shares on the wire: safe tool names, tool-call arguments, the
HTTP client, and turning a failed call into one of our typed errors.

Providers accept tool names matching `^[a-zA-Z0-9_-]{1,64}$`; ours may hold `.` or `/`
(`calc.add`, `plugin/server.tool`). `WireNames` maps them both ways for one request. This
module holds no provider SDK import and never sees an API key except to scrub it from text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

import httpx2
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from tiny_harness.errors import (
    ProviderRequestError,
    ProviderResponseError,
    RetryableProviderError,
)
from tiny_harness.harness.entities import EntityKind, EntityRef
from tiny_harness.harness.models.llm import (
    LLM,
    AssistantItem,
    FinishReason,
    LLMModelInfo,
    LLMRequest,
    ToolResultItem,
)
from tiny_harness.harness.tools.definition import JsonObject

MAX_WIRE_NAME = 64
_INVALID_CHAR = re.compile(r"[^a-zA-Z0-9_-]")
_HASH_CHARS = 8

REFUSAL_FINISH: FinishReason = "refusal"
"""The finish a refusal or a content-filter stop maps to; the refusal text is the output.
`FinishReason` has no `refusal` literal yet: this is the one place to change when it does."""

REFUSAL_TEXT = "The model declined to answer this request."
"""The output of a refusal or content-filter stop that came with no text of its own."""

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""4xx statuses worth another attempt (timeout, conflict, rate limit); every 5xx is too."""

_DETAIL_LIMIT = 300
_KEY_LIKE = re.compile(r"\b(?:sk|ak|key|pk)-[A-Za-z0-9_\-*.]{6,}")
_JSON_OBJECT: TypeAdapter[JsonObject] = TypeAdapter(JsonObject)


class WireNames:
    """Provider-safe names for the tool names of one request, and the way back.

    Built from every name the request mentions (tools on offer and calls in the history) so
    that no two of them share a wire name. A valid name is sent unchanged; an invalid one has
    each bad character replaced by `_`, and when that result is too long or is shared with
    another name it is cut and suffixed with a short hash of the original name. The mapping
    depends only on the set of names, never on their order.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self._to_wire: dict[str, str] = {}
        unique = sorted(set(names))
        candidates = {name: _sanitize(name) for name in unique}
        counts: dict[str, int] = {}
        for candidate in candidates.values():
            counts[candidate] = counts.get(candidate, 0) + 1
        for name, candidate in candidates.items():
            if candidate == name or (len(candidate) <= MAX_WIRE_NAME and counts[candidate] == 1):
                self._to_wire[name] = candidate
            else:
                self._to_wire[name] = _hashed(name, candidate)
        self._from_wire = {wire: name for name, wire in self._to_wire.items()}
        if len(self._from_wire) != len(self._to_wire):  # a hash collision: vanishingly rare
            raise ValueError("tool names collide on the wire even after hashing")

    @classmethod
    def for_request(cls, request: LLMRequest) -> WireNames:
        """The names of the request's tools and of every tool call in its history."""
        names = [tool.name for tool in request.tools]
        for item in request.input:
            if isinstance(item, AssistantItem):
                names.extend(call.name for call in item.tool_calls)
            elif isinstance(item, ToolResultItem):
                names.append(item.name)
        return cls(names)

    def to_wire(self, name: str) -> str:
        """The provider-safe name; a name not seen at construction is hashed when invalid."""
        known = self._to_wire.get(name)
        if known is not None:
            return known
        candidate = _sanitize(name)
        return candidate if candidate == name else _hashed(name, candidate)

    def from_wire(self, wire_name: str) -> str:
        """Our name for a wire name; an unknown wire name comes back unchanged, so the loop
        reports that no such tool exists."""
        return self._from_wire.get(wire_name, wire_name)


def _sanitize(name: str) -> str:
    return _INVALID_CHAR.sub("_", name) or "_"


def _hashed(name: str, candidate: str) -> str:
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_HASH_CHARS]
    return f"{candidate[: MAX_WIRE_NAME - _HASH_CHARS - 1]}_{digest}"


def parse_arguments(provider: str, raw: str, *, tool: str) -> JsonObject:
    """A tool call's JSON arguments as an object; blank means no arguments.

    Raises `ProviderResponseError` when the text is not a JSON object: a call with arguments
    the model did not mean must never reach a tool.
    """
    if not raw.strip():
        return {}
    try:
        return _JSON_OBJECT.validate_json(raw)
    except ValidationError:
        raise ProviderResponseError(
            f"{provider} returned a call to {tool!r} whose arguments are not a JSON object "
            f"({len(raw)} characters)",
            provider=provider,
        ) from None


def arguments_object(provider: str, value: object, *, tool: str) -> JsonObject:
    """Already-decoded tool-call arguments, checked to be a JSON object."""
    try:
        return _JSON_OBJECT.validate_python(value)
    except ValidationError:
        raise ProviderResponseError(
            f"{provider} returned a call to {tool!r} whose arguments are not a JSON object",
            provider=provider,
        ) from None


def http_client(*, timeout_seconds: float) -> httpx2.AsyncClient:
    """The HTTP client an adapter hands its SDK: one pool per adapter, bounded timeouts."""
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(timeout_seconds, connect=min(timeout_seconds, 10.0)),
        follow_redirects=False,
    )


class _ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="ignore")
    message: str | None = None


class _ErrorBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    error: _ErrorDetail | str | None = None
    message: str | None = None


def error_detail(body: object, *, secret: str | None) -> str | None:
    """The provider's own explanation in an error body, scrubbed of keys and cut short."""
    try:
        parsed = _ErrorBody.model_validate(body)
    except ValidationError:
        return None
    if isinstance(parsed.error, _ErrorDetail):
        text = parsed.error.message
    else:
        text = parsed.error or parsed.message
    if not text:
        return None
    if secret:
        text = text.replace(secret, "[redacted]")
    text = _KEY_LIKE.sub("[redacted]", text)
    return text if len(text) <= _DETAIL_LIMIT else text[: _DETAIL_LIMIT - 1] + "…"


def status_error(
    provider: str, status: int, body: object, *, secret: str | None
) -> RetryableProviderError | ProviderRequestError:
    """The typed error for an HTTP error status: 408, 409, 429 and 5xx are retryable, and so
    is an error reported inside a stream (the status is then the stream's own 200)."""
    if status in (401, 403):
        detail: str | None = "the API key was refused (check TINY_HARNESS_MODEL__API_KEY)"
    else:
        detail = error_detail(body, secret=secret)
    if status < 400:  # an error event inside a stream that had started with 200
        message = f"{provider}: the stream reported an error" + (f": {detail}" if detail else "")
        return RetryableProviderError(message, provider=provider, status=None)
    message = f"{provider} answered HTTP {status}" + (f": {detail}" if detail else "")
    if status in RETRYABLE_STATUSES or status >= 500:
        return RetryableProviderError(message, provider=provider, status=status)
    return ProviderRequestError(message, provider=provider, status=status)


def connection_error(provider: str, *, timed_out: bool) -> RetryableProviderError:
    """The typed error for a call that got no answer: a timeout or a lost connection."""
    what = "timed out" if timed_out else "could not connect, or the connection was lost"
    return RetryableProviderError(f"{provider}: the call {what}", provider=provider, status=None)


class ProviderModel(LLM):
    """What every provider adapter shares: its entity ref, model info and HTTP pool.

    Subclasses set `PROVIDER`, build their SDK client on `self._http`, and implement
    `invoke` and `aclose`.
    """

    PROVIDER: str

    def __init__(
        self,
        *,
        model: str,
        context_window: int,
        max_output_tokens: int | None,
        timeout_seconds: float,
        stream: bool,
    ) -> None:
        self.ref = EntityRef(kind=EntityKind.LLM, id=f"{self.PROVIDER}:{model}")
        self._model = model
        self._context_window = context_window
        self._max_output_tokens = max_output_tokens
        self._stream = stream
        self._http = http_client(timeout_seconds=timeout_seconds)

    @property
    def info(self) -> LLMModelInfo:
        """The provider, model and context window."""
        return LLMModelInfo(
            provider=self.PROVIDER, model=self._model, context_window=self._context_window
        )

"""Streams of the a2a-sdk client that close their HTTP response the moment they end.

The SDK's stream is a chain of async generators; closing the outer one leaves the inner ones,
and the HTTP response they hold, to the garbage collector, so the agent would not see the
connection end. `track_responses` adds a response hook to an httpx client that notes every
response opened while one of our streams takes a step; `closing_stream` closes them itself
when the stream ends, however it ends.

Callers return the generator `closing_stream` gives, never wrap it in another: closing a
wrapper would leave this one (and the response it closes) to the garbage collector.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from contextvars import ContextVar

import httpx
from a2a.types import StreamResponse

__all__ = ["closing_stream", "track_responses"]

_OPENED: ContextVar[list[httpx.Response] | None] = ContextVar("sdk_stream_opened", default=None)
"""The HTTP responses opened while a stream of ours is being advanced."""


async def _note_response(response: httpx.Response) -> None:
    opened = _OPENED.get()
    if opened is not None:
        opened.append(response)


def track_responses(http: httpx.AsyncClient) -> None:
    """Let `closing_stream` see the responses `http` opens (idempotent)."""
    if _note_response not in http.event_hooks["response"]:
        http.event_hooks["response"].append(_note_response)


async def closing_stream(
    open_stream: Callable[[], AsyncIterator[StreamResponse]],
    *,
    errors: tuple[type[BaseException], ...],
    mapped: Callable[[BaseException], BaseException],
    refusal: BaseException | None = None,
) -> AsyncGenerator[StreamResponse]:
    """The SDK stream `open_stream` makes; an error of a type in `errors` is raised as
    `mapped(error)` (its cause dropped); the responses it opened are closed on every exit.
    A `refusal` is raised on the first step, before the stream is opened."""
    if refusal is not None:
        raise refusal
    opened: list[httpx.Response] = []
    stream = open_stream()
    try:
        while True:
            noting = _OPENED.set(opened)
            try:
                event = await anext(stream)
            except StopAsyncIteration:
                return
            except errors as error:
                raise mapped(error) from None
            finally:
                _OPENED.reset(noting)
            yield event
    finally:
        await _close_all(opened)
        if isinstance(stream, AsyncGenerator):
            await stream.aclose()


async def _close_all(responses: Iterable[httpx.Response]) -> None:
    for response in responses:
        await response.aclose()

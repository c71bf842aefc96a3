"""`LOCAL_CARDS`: the cards of the harnesses this process runs, by their public URL.

A process may run several harnesses (a test of delegation between two, or an embedding
application), and one may be configured to delegate to another. While the process starts
nothing listens yet, so fetching the other's card would fail; instead each harness
announces the card it built from its own settings here, and an agent whose URL is one of
them takes that card, as `self` takes its own. Calls still go over HTTP to the other
harness's routes. A harness must be opened before the ones that delegate to it; any URL not
announced is fetched as usual.
"""

from __future__ import annotations

from collections.abc import Callable

from a2a.types import AgentCard


def _key(url: str) -> str:
    return url.rstrip("/")


class LocalCards:
    """Cards announced by the harnesses of this process, until they withdraw them."""

    def __init__(self) -> None:
        self._cards: dict[str, AgentCard] = {}

    def announce(self, urls: tuple[str, ...], card: AgentCard) -> Callable[[], None]:
        """Make `card` the card of every URL in `urls`; returns what withdraws it again."""
        keys = {_key(url) for url in urls}
        for key in keys:
            self._cards[key] = card

        def withdraw() -> None:
            for key in keys:
                if self._cards.get(key) is card:
                    del self._cards[key]

        return withdraw

    def card_at(self, url: str) -> AgentCard | None:
        """The card a harness of this process announced for `url`, if any."""
        return self._cards.get(_key(url))


LOCAL_CARDS = LocalCards()
"""The process's one directory: harnesses in one process see each other through it."""

"""What a model's tokens cost: prices per million tokens, and the cost of one call.

Prices come from configuration (`[model.prices]`), keyed by model name. A provider often
answers with a dated name ("gpt-4o-2024-08-06" for "gpt-4o"), so a price configured for a
name also covers every answered name it is the start of; the longest such name wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Final

from pydantic import BaseModel, Field

from tiny_harness.harness.models.llm import Usage

_PER: Final = 1_000_000
_Price = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class ModelPrice(BaseModel, extra="forbid", frozen=True):
    """US dollars per million tokens of one model."""

    input: _Price
    """Per million input tokens not read from the provider's cache."""
    output: _Price
    """Per million output tokens."""
    cached: _Price | None = None
    """Per million input tokens read from the cache; None: the input price."""

    def cost(self, usage: Usage) -> float:
        """The cost in USD of a call billed `usage` (cached tokens are part of the input)."""
        cached = min(usage.cached_tokens, usage.input_tokens)
        cached_price = self.input if self.cached is None else self.cached
        fresh = usage.input_tokens - cached
        dollars = fresh * self.input + cached * cached_price + usage.output_tokens * self.output
        return dollars / _PER


def price_of(prices: Mapping[str, ModelPrice], model: str) -> ModelPrice | None:
    """The price of `model`: its own, else that of the longest configured name it starts
    with; None when no price covers it."""
    if model in prices:
        return prices[model]
    covering = [name for name in prices if name and model.startswith(name)]
    return prices[max(covering, key=len)] if covering else None

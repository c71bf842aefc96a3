"""Model prices: what a call costs, and which configured price covers an answered name."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tiny_harness.harness.models.llm import Usage
from tiny_harness.harness.models.prices import ModelPrice, price_of


def test_cached_input_is_billed_at_the_cached_price_and_the_rest_at_the_input_price() -> None:
    price = ModelPrice(input=2.0, cached=0.5, output=8.0)
    usage = Usage(input_tokens=1_000_000, cached_tokens=400_000, output_tokens=250_000)
    # 600k fresh at $2, 400k cached at $0.50, 250k out at $8.
    assert price.cost(usage) == pytest.approx(1.2 + 0.2 + 2.0)


def test_without_a_cached_price_cached_input_costs_what_input_does() -> None:
    price = ModelPrice(input=3.0, output=15.0)
    usage = Usage(input_tokens=2_000, cached_tokens=1_500, output_tokens=100)
    assert price.cost(usage) == pytest.approx((2_000 * 3.0 + 100 * 15.0) / 1_000_000)


def test_a_provider_reporting_more_cached_than_input_tokens_is_not_billed_negative() -> None:
    price = ModelPrice(input=1.0, cached=0.1, output=0.0)
    assert price.cost(Usage(input_tokens=10, cached_tokens=50)) == pytest.approx(10 * 0.1 / 1e6)


def test_a_dated_model_name_takes_the_longest_configured_name_it_starts_with() -> None:
    prices = {
        "gpt-4o": ModelPrice(input=2.5, output=10.0),
        "gpt-4o-mini": ModelPrice(input=0.15, output=0.6),
    }
    assert price_of(prices, "gpt-4o-mini-2024-07-18") == prices["gpt-4o-mini"]
    assert price_of(prices, "gpt-4o-2024-08-06") == prices["gpt-4o"]
    assert price_of(prices, "gpt-4o") == prices["gpt-4o"]
    assert price_of(prices, "claude-sonnet-4") is None


@pytest.mark.parametrize("bad", [{"input": -1, "output": 1}, {"input": float("nan"), "output": 1}])
def test_a_negative_or_not_a_number_price_is_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        ModelPrice.model_validate(bad)

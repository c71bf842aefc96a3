"""`Composer` on its own: a digit picks an option only in an empty box while a question
has options, and is text otherwise; the placeholder follows the mode."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from tiny_harness.interaction.tui.widgets.composer import Composer

pytestmark = pytest.mark.timeout(30)


class OneComposer(App[None]):
    """A composer alone, noting the options it picked."""

    def __init__(self) -> None:
        super().__init__()
        self.picked: list[int] = []

    def compose(self) -> ComposeResult:
        yield Composer()

    def on_composer_option_key(self, event: Composer.OptionKey) -> None:
        self.picked.append(event.number)


@pytest.mark.parametrize(
    ("options_open", "typed", "value", "picked"),
    [
        (True, "2", "", [2]),  # an empty box with options: the digit picks
        (False, "2", "2", []),  # no options: the digit is text
        (True, "a2", "a2", []),  # a box with text in it: the digit is text
    ],
)
async def test_a_digit_picks_an_option_only_in_an_empty_box_with_options(
    options_open: bool, typed: str, value: str, picked: list[int]
) -> None:
    app = OneComposer()
    async with app.run_test() as pilot:
        composer = app.query_one(Composer)
        composer.options_open = options_open
        composer.focus()
        await pilot.press(*typed)
        await pilot.pause()
        assert composer.value == value
        assert app.picked == picked


async def test_the_placeholder_says_what_enter_will_do() -> None:
    app = OneComposer()
    async with app.run_test() as pilot:
        composer = app.query_one(Composer)
        assert composer.placeholder.startswith("Message the agent")
        composer.mode = "reply"
        await pilot.pause()
        assert "pick an option" in composer.placeholder

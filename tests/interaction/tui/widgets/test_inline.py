"""A progress line's inline Markdown, drawn as styles instead of shown raw."""

from __future__ import annotations

from tiny_harness.interaction.tui.widgets.inline import inline_markdown


def styled(line: str) -> list[tuple[str, str]]:
    text = inline_markdown(line)
    return [(text.plain[span.start : span.end], str(span.style)) for span in text.spans]


def test_bold_italic_code_and_links_lose_their_marks_and_gain_styles() -> None:
    line = (
        "· I will **confirm the size**, *then* run `order --size M` ([docs](https://x.example/d))"
    )
    assert (
        inline_markdown(line).plain == "· I will confirm the size, then run order --size M (docs)"
    )
    assert styled(line) == [
        ("confirm the size", "bold"),
        ("then", "italic"),
        ("order --size M", "bold reverse"),
        ("docs", "link https://x.example/d underline"),
    ]


def test_what_is_not_a_mark_stays_as_written() -> None:
    for line in ("2 * 3 * 4", "snake_case_name", "a ** b", "[x](javascript:alert(1))", "**open"):
        assert inline_markdown(line).plain == line
        assert styled(line) == []

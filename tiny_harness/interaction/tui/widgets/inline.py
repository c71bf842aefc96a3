"""`inline_markdown`: a line of Markdown as styled terminal text, for lines drawn often.

Progress messages are short, one line each, and a long task draws thousands of them, so
they are not parsed as whole Markdown documents: only the inline marks a model writes in
such a line are drawn (bold, italic, code, links); everything else stays as written.
"""

from __future__ import annotations

import re
from typing import Final

from rich.text import Text

__all__ = ["inline_markdown"]

_MARKS: Final = re.compile(
    r"(?P<code>`[^`\n]+`)"
    r"|(?P<bold>\*\*[^*\n]+\*\*|__[^_\n]+__)"
    r"|(?P<italic>(?<![\w*])\*[^*\s][^*\n]*(?<!\s)\*(?![\w*])|(?<!\w)_[^_\s][^_\n]*(?<!\s)_(?!\w))"
    r"|(?P<link>\[[^\]\n]+\]\((?:https?://|mailto:)[^)\s]+\))"
)


def inline_markdown(line: str) -> Text:
    """`line` with its inline Markdown marks drawn as styles (and the marks taken out)."""
    text = Text()
    at = 0
    for mark in _MARKS.finditer(line):
        text.append(line[at : mark.start()])
        found = mark.group()
        if mark.lastgroup == "code":
            text.append(found[1:-1], style="bold reverse")
        elif mark.lastgroup == "bold":
            text.append(found[2:-2], style="bold")
        elif mark.lastgroup == "italic":
            text.append(found[1:-1], style="italic")
        else:
            label, _, url = found[1:-1].partition("](")
            text.append(label, style=f"link {url} underline")
        at = mark.end()
    text.append(line[at:])
    return text

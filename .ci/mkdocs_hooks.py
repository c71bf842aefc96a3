"""Build hooks of the documentation site (`mkdocs.yml` lists this file under `hooks`).

The configuration page's `<!-- settings-reference -->` marker becomes the reference made
from `Settings` (`tiny_harness.config.reference`), so the page lists every setting the code
has, with its default and description, at every build.
"""

from __future__ import annotations

from typing import Any

from tiny_harness.config.reference import reference_markdown

MARKER = "<!-- settings-reference -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """The page's Markdown, with the settings reference in place of its marker."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, reference_markdown())

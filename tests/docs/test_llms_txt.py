"""`docs/llms.txt`, the site's map for agents, lists every page of the site's navigation
(the strict build already fails on a page left out of the navigation), and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).parents[2]


def pages(nav: object) -> list[str]:
    """Every page file in a `nav` entry of mkdocs.yml."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in pages(item)]
    if isinstance(nav, dict):
        return [page for item in nav.values() for page in pages(item)]
    return []


def test_llms_txt_links_every_page_of_the_navigation_and_only_those() -> None:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    expected = {
        ""
        if page == "index.md"
        else re.sub(r"(README|index)\.md$|\.md$", "", page).rstrip("/") + "/"
        for page in pages(nav)
    }
    linked = set(re.findall(r"\]\(([^)]*)\)", (ROOT / "docs" / "llms.txt").read_text()))

    assert linked == expected - {""}

"""The kinds of page a wiki or docs folder holds, and the mentions each gives (Markdown only, until the other
readers land)."""

from __future__ import annotations

from typing import Literal

from .references import Mention, mentions

PAGE_SUFFIXES = (".md",)


def page_kind(path: str) -> Literal["markdown", "mdx", "rst"] | None:
    return "markdown" if path.lower().endswith(".md") else None


def page_mentions(path: str, page_text: str) -> list[Mention]:
    return mentions(page_text)

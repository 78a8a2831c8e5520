"""Silencing a reference on a page, as linters do, with a comment the docs site does not show:

- `<!-- wikiwarden: ignore -->` on a line: that line's references are not checked;
- `<!-- wikiwarden: ignore-next-line -->`: the next line's;
- `<!-- wikiwarden: ignore-start -->` … `<!-- wikiwarden: ignore-end -->`: every line from one to the other (to the
  page's end when there is no end);
- `<!-- wikiwarden: ignore-file -->`: the whole page's.

MDX writes the same in its own comments (`{/* wikiwarden: ignore */}`), reStructuredText in a comment line
(`.. wikiwarden: ignore-next-line`). Only references are silenced: claims are never. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

from .references import Mention

_MARKER = re.compile(
    r"(?:<!--|\{/\*|^[ \t]*\.\.)[ \t]*wikiwarden:[ \t]*(ignore(?:-next-line|-start|-end|-file)?)(?=\s|-->|\*/|$)",
    re.IGNORECASE | re.MULTILINE,
)

M = TypeVar("M", bound=Mention)


def silenced_lines(page_text: str) -> frozenset[int] | None:
    """The page lines (1-based) whose references a comment silences; None when the whole page is silenced."""
    if "wikiwarden" not in page_text.lower():  # nearly every page: no line scan at all
        return frozenset()
    lines = page_text.split("\n")
    silenced: set[int] = set()
    start: int | None = None
    for number, line in enumerate(lines, 1):
        for marker in _MARKER.finditer(line):
            word = marker.group(1).lower()
            if word == "ignore-file":
                return None
            if word == "ignore":
                silenced.add(number)
            elif word == "ignore-next-line":
                silenced.add(number + 1)
            elif word == "ignore-start" and start is None:
                start = number
            elif word == "ignore-end" and start is not None:
                silenced.update(range(start, number + 1))
                start = None
    if start is not None:
        silenced.update(range(start, len(lines) + 1))
    return frozenset(silenced)


def unsilenced(page_text: str, mentioned: Iterable[M]) -> list[M]:
    """The mentions of a page that no comment silences."""
    silenced = silenced_lines(page_text)
    if silenced is None:
        return []
    return [m for m in mentioned if m.line not in silenced]

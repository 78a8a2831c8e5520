"""Silencing a reference on a page, as linters do, with a comment the docs site does not show:

- `<!-- wikiwarden: ignore -->` on a line: that line's references are not checked;
- `<!-- wikiwarden: ignore-next-line -->`: the next line's;
- `<!-- wikiwarden: ignore-start -->` … `<!-- wikiwarden: ignore-end -->`: every line from one to the other (to the
  page's end when there is no end);
- `<!-- wikiwarden: ignore-file -->`: the whole page's.

MDX writes the same in its own comments (`{/* wikiwarden: ignore */}`). reStructuredText writes them as comments,
which Sphinx renders as nothing only when each stands as a block of its own, a blank line before and after:
`.. wikiwarden: ignore-next-line` before a paragraph (the next line that is not blank is silenced), or
`.. wikiwarden: ignore-start` … `.. wikiwarden: ignore-end` around it; a comment line inside a paragraph is the
paragraph's text, printed. Only references are silenced: claims are never. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # the renderers read the advice without the reference parser
    from .references import Mention

_MARKER = re.compile(
    r"(?:<!--|\{/\*|^[ \t]*\.\.)[ \t]*wikiwarden:[ \t]*(ignore(?:-next-line|-start|-end|-file)?)(?=\s|-->|\*/|$)",
    re.IGNORECASE | re.MULTILINE,
)

M = TypeVar("M", bound="Mention")


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
            elif word == "ignore-next-line":  # the next line with text: a comment block ends with a blank line
                silenced.add(_next_text_line(lines, number))
            elif word == "ignore-start" and start is None:
                start = number
            elif word == "ignore-end" and start is not None:
                silenced.update(range(start, number + 1))
                start = None
    if start is not None:
        silenced.update(range(start, len(lines) + 1))
    return frozenset(silenced)


def _next_text_line(lines: list[str], number: int) -> int:
    """The 1-based number of the first line after line `number` that is not blank (one past the end when none)."""
    for following in range(number, len(lines)):
        if lines[following].strip():
            return following + 1
    return number + 1


def silencing_advice(page: str) -> tuple[str, str]:
    """How to silence a false alarm on `page`, in its own format: (a whole paragraph, its next line). Each renders
    as nothing on the site: an HTML comment in Markdown, a JSX comment in MDX, a comment block of its own in
    reStructuredText (where a comment on a line of text would be printed)."""
    lower = page.lower()
    if lower.endswith(".rst"):
        return (
            "`.. wikiwarden: ignore-start` and `.. wikiwarden: ignore-end` around the paragraph, each a comment of "
            "its own with a blank line before and after",
            "`.. wikiwarden: ignore-next-line` as a comment of its own before it, a blank line before and after",
        )
    if lower.endswith(".mdx"):
        return "`{/* wikiwarden: ignore */}` on its line", "`{/* wikiwarden: ignore-next-line */}` on the line before"
    return "`<!-- wikiwarden: ignore -->` on its line", "`<!-- wikiwarden: ignore-next-line -->` on the line before"


def unsilenced(page_text: str, mentioned: Iterable[M]) -> list[M]:
    """The mentions of a page that no comment silences."""
    silenced = silenced_lines(page_text)
    if silenced is None:
        return []
    return [m for m in mentioned if m.line not in silenced]

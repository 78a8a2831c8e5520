"""The one Markdown parser of the ground modules (CommonMark and tables), and the last pages' tokens kept: a full
check reads each page for the paths it names and for its coverage, and parses it once for both."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # noqa: PLC0415 - imported only when pages are read

    return MarkdownIt("commonmark").enable("table")


@lru_cache(maxsize=8)
def tokens(body: str) -> tuple[Token, ...]:
    """The block and inline tokens of `body` (shared: callers read them, never change them)."""
    return tuple(_parser().parse(body))

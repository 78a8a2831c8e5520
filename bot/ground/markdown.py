"""The one Markdown parser of the ground modules (CommonMark and tables), and the last pages' tokens kept: a full
check reads each page for the paths it names and for its coverage, and parses it once for both."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

    InlineRule = Callable[[StateInline, bool], bool]

# The inline tokens a page's mentions are read from, and where each stands: `token.meta["span"]` is the (start,
# end) of its source in its inline token's `content` (a code span with its backticks, a link from `[` to `)`).
PLACED = ("code_inline", "link_open")


def placed(parser: MarkdownIt) -> MarkdownIt:
    """`parser` made to record where each code span and link stands in its inline token's text (markdown-it keeps
    the lines of blocks only), so that a mention's line is found in the text of its own span, not searched for."""
    from markdown_it import rules_inline  # noqa: PLC0415 - imported only when pages are read

    rules = {
        "backticks": ("`", rules_inline.backtick),
        "link": ("[", rules_inline.link),
        "autolink": ("<", rules_inline.autolink),
    }
    for name, (opening, rule) in rules.items():
        parser.inline.ruler.at(name, _placing(opening, rule))
    return parser


def _placing(opening: str, rule: InlineRule) -> InlineRule:
    def rule_placing(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if state.src[start] != opening:  # the rule's own first test, without a call: most places are not its
            return False
        count = len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            # The rule's token, after the pending text it may have flushed first (and before a link's own tokens).
            for token in state.tokens[count : count + 2]:
                if token.type in PLACED:
                    token.meta["span"] = (start, state.pos)
                    break
        return True

    return rule_placing


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # noqa: PLC0415 - imported only when pages are read

    return placed(MarkdownIt("commonmark").enable("table"))


@lru_cache(maxsize=8)
def block_tokens(body: str) -> tuple[Token, ...]:
    """The block tokens of `body` alone (its code blocks, say): half the time of `tokens`, no inline parsing."""
    return tuple(_blocks_only().parse(body))


@cache
def _blocks_only() -> MarkdownIt:
    from markdown_it import MarkdownIt  # noqa: PLC0415 - imported only when pages are read

    return MarkdownIt("commonmark").enable("table").disable("inline")


@lru_cache(maxsize=8)
def tokens(body: str) -> tuple[Token, ...]:
    """The block and inline tokens of `body` (shared: callers read them, never change them)."""
    return tuple(_parser().parse(body))

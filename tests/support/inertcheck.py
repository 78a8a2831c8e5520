"""Reading what Wikiwarden sends GitHub the way GitHub reads it, to check that untrusted text is inert.

Markdown goes through a real CommonMark parser with GitHub's extensions (markdown-it-py's `gfm-like`: tables,
strikethrough, raw HTML, and autolinks of `http://`, `https://` and `ftp://` URLs as GFM makes them; GFM does not
link bare domains or protocol-relative `//` URLs, so neither does this parser). Then every piece of text a reader
sees (text and inline code) is searched for GitHub's own reference syntax: a mention, an issue or pull request
reference, a URL GitHub would link. The patterns are deliberately wider than GitHub's (an `@` before any letter
or digit, whatever precedes it), so a pass here is a pass there. Code blocks are not searched: GitHub makes no
reference inside them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

WORD_JOINER = "\u2060"
# GitHub's triggers: @login and @org/team (and user@sha, emails), #123 and owner/repo#123, GH-123, URLs.
ACTIVE = re.compile(r"@[^\W_]|#\d|(?i:gh-)\d|(?i:https?|ftp)://|(?i:\bwww)\.")


def _parser() -> MarkdownIt:
    md = MarkdownIt("gfm-like")
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False})
    md.linkify.add("//", None)  # GFM autolinks no protocol-relative URL
    # nor an email whose domain does not start with an ASCII letter or digit (linkify-it takes any Unicode)
    md.linkify.add("mailto:", None)
    return md


MARKDOWN = _parser()


def active(text: str, trusted: Iterable[str] = ()) -> list[str]:
    """What in `text` GitHub would turn into a mention, a reference or a link (`trusted`: our own, allowed)."""
    for allowed in trusted:
        text = text.replace(allowed, "")
    return [found.group() for found in ACTIVE.finditer(text)]


def visible(text: str) -> str:
    """The text as a reader sees it: the word joiners that defuse references are invisible."""
    return text.replace(WORD_JOINER, "")


def tokens(markdown: str) -> list[Token]:
    """Every block and inline token of `markdown`, in order."""
    out: list[Token] = []
    for token in MARKDOWN.parse(markdown):
        out.append(token)
        out.extend(token.children or ())
    return out


@dataclass
class Reading:
    """What a reader of rendered Markdown gets: text, inline code, bold text, headings, links and raw HTML."""

    texts: list[str]
    codes: list[str]
    strong: list[str]
    headings: list[str]
    links: list[str]
    html: list[str]
    types: list[str]


def _strong_runs(children: list[Token]) -> Iterator[str]:
    depth, run = 0, ""
    for child in children:
        if child.type == "strong_open":
            depth, run = depth + 1, ""
        elif child.type == "strong_close":
            depth -= 1
            yield run
        elif depth and child.type in ("text", "code_inline"):
            run += child.content


def read(markdown: str) -> Reading:
    found = Reading([], [], [], [], [], [], [])
    block = list(MARKDOWN.parse(markdown))
    for n, token in enumerate(block):
        found.types.append(token.type)
        if token.type == "html_block":
            found.html.append(token.content)
        if token.type == "inline" and n and block[n - 1].type == "heading_open":
            found.headings.append("".join(c.content for c in token.children or () if c.type in ("text", "code_inline")))
        children = token.children or []
        found.strong.extend(_strong_runs(children))
        for child in children:
            found.types.append(child.type)
            if child.type == "text":
                found.texts.append(child.content)
            elif child.type == "code_inline":
                found.codes.append(child.content)
            elif child.type == "link_open":
                found.links.append(str(child.attrs["href"]))
            elif child.type == "html_inline":
                found.html.append(child.content)
    return found


def assert_inert_markdown(
    markdown: str, *, html: str = r"$^", links: str = r"$^", trusted: Iterable[str] = ()
) -> Reading:
    """No raw HTML but what matches `html`, no link but what matches `links`, and nothing in any text or inline
    code that GitHub would turn into a mention or a reference (but the `trusted` ones)."""
    reading = read(markdown)
    assert [h for h in reading.html if not re.fullmatch(html, h.strip(), re.S)] == []
    assert [link for link in reading.links if not re.fullmatch(links, link)] == []
    assert [a for text in reading.texts + reading.codes for a in active(text, trusted)] == []
    return reading


def assert_inert_plain(text: str, trusted: Iterable[str] = ()) -> None:
    """Plain text (a title, an annotation, a commit message): nothing GitHub would link or notify."""
    assert active(text, trusted) == []

"""Which page text each claim grounds, and how much of a page is grounded.

OpenWiki's sidecar schema v1 has no place for a claim's quote, and Wikiwarden never writes fields outside it, so
quotes live beside the wiki in files of their own: `<wiki>/.wikiwarden/quotes/<page path>.json`, one per page (two
pull requests grounding different pages never touch the same file). A dot folder: OpenWiki neither reads nor
snapshots it. A quote that no longer stands in the page (its prose was rewritten) simply stops counting.

Coverage: a page's paragraphs (and tables and list items), and how many hold a quote of one of its claims.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ..okf.frontmatter import FrontMatterError, Page
from .markdown import tokens

_SPACE = re.compile(r"\s+")
QUOTES_DIR = ".wikiwarden/quotes"
MAX_QUOTES_BYTES = 4 << 20
SCHEMA_VERSION = 1


class QuotesError(ValueError):
    """A quotes file that cannot be used; the message names it and says why."""


def squeezed(text: str) -> str:
    """Text with every run of whitespace one space: a quote may wrap where the page wraps."""
    return _SPACE.sub(" ", text).strip()


def quotes_path(page: str, wiki_dir: str) -> str:
    """`openwiki/queue.md` → `openwiki/.wikiwarden/quotes/queue.json`."""
    relative = page[len(wiki_dir) + 1 :]
    return f"{wiki_dir}/{QUOTES_DIR}/{relative.removesuffix('.md')}.json"


@dataclass(frozen=True)
class Quotes:
    """A page's quotes file: claim id → the page text it grounds, and the `pageVersion` of the page as grounding
    last read it whole (a page that states nothing the code shows is not asked about again until it changes)."""

    quotes: dict[str, str] = field(default_factory=dict)
    grounded: str | None = None


def parse_quotes(data: bytes, path: str) -> Quotes:
    """A quotes file, read strictly (size capped before parsing)."""
    if len(data) > MAX_QUOTES_BYTES:
        raise QuotesError(f"{path}: {len(data):,} bytes; a quotes file is read up to {MAX_QUOTES_BYTES:,}")
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise QuotesError(f"{path}: not valid JSON ({' '.join(str(exc).split())[:120]})") from None
    quotes = value.get("quotes") if isinstance(value, dict) and value.get("schemaVersion") == SCHEMA_VERSION else None
    grounded = value.get("groundedPage") if isinstance(value, dict) else None
    if (
        not isinstance(quotes, dict)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in quotes.items())
        or not (grounded is None or isinstance(grounded, str))
    ):
        raise QuotesError(
            f'{path}: expected {{"schemaVersion": 1, "quotes": {{claim id: quote}}, "groundedPage": page version}}'
        )
    return Quotes(quotes, grounded)


def render_quotes(quotes: Quotes) -> bytes:
    document: dict[str, object] = {"schemaVersion": SCHEMA_VERSION, "quotes": dict(sorted(quotes.quotes.items()))}
    if quotes.grounded is not None:
        document["groundedPage"] = quotes.grounded
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


class Coverage(NamedTuple):
    claims: int
    paragraphs: int  # blocks of prose: paragraphs, list items' paragraphs, tables
    grounded: int  # of those, the ones holding a quote of one of the page's claims

    @property
    def share(self) -> float:
        return self.grounded / self.paragraphs if self.paragraphs else 0.0


def prose_blocks(page_text: str) -> list[str]:
    """The source text of each block of prose of the page body (not headings, code, or front matter)."""
    try:
        body = Page.parse(page_text).body
    except FrontMatterError:
        body = page_text
    lines = body.split("\n")
    blocks = []
    depth = 0  # inside a table, its paragraphs are not blocks of their own
    for token in tokens(body):
        if token.type == "table_open":
            depth += 1
            if token.map:
                blocks.append("\n".join(lines[token.map[0] : token.map[1]]))
        elif token.type == "table_close":
            depth -= 1
        elif token.type == "paragraph_open" and not depth and token.map:
            blocks.append("\n".join(lines[token.map[0] : token.map[1]]))
    return blocks


# A claim without a quote grounds the block of prose holding most of its statement's words, when it holds this
# share of them at least: statements paraphrase the page (OpenWiki's never quote it), so no exact match is asked.
STATEMENT_WORDS_SHARE = 0.5
_WORD = re.compile(r"[a-z_][\w.-]*[a-z0-9_]|[a-z0-9]{3,}")
_COMMON = frozenset(
    {
        "the", "and", "for", "with", "that", "this", "are", "from", "its", "into", "not", "but", "any", "all", "one",
        "each", "when", "then", "than", "only", "also", "has", "have", "was", "were", "been", "can", "may", "must",
        "will", "would", "should", "does", "did", "which", "what", "who", "how", "where", "there", "their", "them",
        "they", "our", "your", "you", "via", "per",
    }
)  # fmt: skip


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _COMMON}


def coverage(blocks: Iterable[str], claims: Sequence[tuple[str, str]], quotes: Mapping[str, str]) -> Coverage:
    """How much of a page its claims ground, from its blocks of prose (`prose_blocks`) and its claims (id and
    statement): a block is grounded when a claim's quote stands in it (or the quote spans it), or, for a claim
    without a quote (grounded by hand, or by OpenWiki), when it holds the most of the claim's statement's words
    of any block, and at least `STATEMENT_WORDS_SHARE` of them."""
    squeezed_blocks = [squeezed(b) for b in blocks]
    wanted = [squeezed(quotes[i]) for i, _ in claims if i in quotes and quotes[i].strip()]
    grounded = {n for n, b in enumerate(squeezed_blocks) if any(q in b or (b and b in q) for q in wanted)}
    unquoted = [statement for i, statement in claims if not (i in quotes and quotes[i].strip())]
    if unquoted and squeezed_blocks:
        block_words = [_words(block) for block in squeezed_blocks]
        for statement in unquoted:
            words = _words(statement)
            if not words:
                continue
            shares = [len(words & found) / len(words) for found in block_words]
            share = max(shares)
            best = shares.index(share)  # the first of the best
            if share >= STATEMENT_WORDS_SHARE:
                grounded.add(best)
    return Coverage(len(claims), len(squeezed_blocks), len(grounded))

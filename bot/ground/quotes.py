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
from collections.abc import Iterable, Mapping
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


def coverage(blocks: Iterable[str], claim_ids: list[str], quotes: Mapping[str, str]) -> Coverage:
    """How much of a page its claims ground, from its blocks of prose (`prose_blocks`): a block is grounded when
    a claim's quote stands in it (or the quote spans it)."""
    wanted = [squeezed(quotes[i]) for i in claim_ids if i in quotes and quotes[i].strip()]
    squeezed_blocks = [squeezed(b) for b in blocks]
    grounded = sum(1 for block in squeezed_blocks if any(q in block or (block and block in q) for q in wanted))
    return Coverage(len(claim_ids), len(squeezed_blocks), grounded)

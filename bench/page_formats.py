"""How long reading a folder of docs pages takes, whatever their kind (Markdown, MDX, reStructuredText).

    python bench/page_formats.py /work/eval/rich/docs/source      # rich's Sphinx docs: 63 .rst pages
    python bench/page_formats.py docs --runs 10                    # best of more runs

Every page under the folder whose suffix is one of `PAGE_SUFFIXES` is read for its mentions and its code blocks,
as a check would read it. The first pass pays for importing the parsers (docutils is imported only when an rst page
is read); later passes are timed from the page text to the readings, with the readings' caches cleared, so each
page is parsed again. Printed: pages (per kind), mentions (per kind), code blocks, and seconds. Target: a small
fraction of a second per page. Nothing is asserted: the figures are printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ground import formats, markdown  # noqa: E402
from bot.ground.formats import PAGE_SUFFIXES, code_blocks, page_kind, page_mentions  # noqa: E402


def clear_caches() -> None:
    """Forget the last pages read, so that a pass parses every page again."""
    formats._read_rst.cache_clear()
    formats._mdx_markdown.cache_clear()
    formats._mdx_tokens.cache_clear()
    markdown.tokens.cache_clear()


def read_all(pages: list[tuple[str, str]]) -> tuple[Counter[str], int]:
    kinds: Counter[str] = Counter()
    blocks = 0
    for path, text in pages:
        kinds.update(mention.kind for mention in page_mentions(path, text))
        blocks += len(code_blocks(path, text))
    return kinds, blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--runs", type=int, default=5, help="timed passes after the first (default 5)")
    args = parser.parse_args()
    files = sorted(p for p in args.folder.rglob("*") if p.is_file() and p.suffix.lower() in PAGE_SUFFIXES)
    pages = [(str(p.relative_to(args.folder)), p.read_text(encoding="utf-8", errors="replace")) for p in files]
    by_kind = Counter(page_kind(path) for path, _ in pages)
    lines = sum(text.count("\n") + 1 for _, text in pages)

    start = time.perf_counter()
    kinds, blocks = read_all(pages)
    first = time.perf_counter() - start
    seconds = []
    for _ in range(args.runs):
        clear_caches()
        start = time.perf_counter()
        read_all(pages)
        seconds.append(time.perf_counter() - start)
    best = min(seconds) if seconds else first

    print(f"folder     {args.folder}")
    print(f"pages      {len(pages)} ({', '.join(f'{kind} {n}' for kind, n in sorted(by_kind.items()))}), {lines} lines")
    print(f"mentions   {sum(kinds.values())} ({', '.join(f'{kind} {n}' for kind, n in sorted(kinds.items()))})")
    print(f"blocks     {blocks} code blocks")
    print(f"first pass {first:.3f} s (parsers imported)")
    if seconds:
        print(f"best pass  {best:.3f} s of {len(seconds)}: {1000 * best / max(1, len(pages)):.1f} ms a page")


if __name__ == "__main__":
    main()

"""How long reading a folder of docs pages takes, whatever their kind (Markdown, MDX, reStructuredText).

    python bench/page_formats.py /work/eval/rich/docs/source      # rich's Sphinx docs: 63 .rst pages
    python bench/page_formats.py docs --runs 10                    # best of more runs
    python bench/page_formats.py --spans 80000 --runs 1            # one page of each kind with 80k code spans

Every page under the folder whose suffix is one of `PAGE_SUFFIXES` is read for its mentions and its code blocks,
as a check would read it. The first pass pays for importing the parsers (docutils is imported only when an rst page
is read); later passes are timed from the page text to the readings, with the readings' caches cleared, so each
page is parsed again. Printed: pages (per kind), mentions (per kind), code blocks, and seconds. Target: a small
fraction of a second per page. Nothing is asserted: the figures are printed.

With `--spans N` the folder is made up: one page of each kind holding N code spans, eight to a line in one
paragraph (a Markdown page, an MDX page inside a JSX element, a reStructuredText page of literals), each a name
of its own. A page's lines must be read once whatever it holds (the first line of a paragraph holding each
span's text was searched for every span: 80k spans took 18 to 38 s, where the parse itself takes under 2 s).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
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


def read_all(pages: list[tuple[str, str]], seconds: dict[str, float] | None = None) -> tuple[Counter[str], int]:
    """Every page read; the mentions by kind and the code blocks found (`seconds` adds up the time by page kind)."""
    kinds: Counter[str] = Counter()
    blocks = 0
    for path, text in pages:
        start = time.perf_counter()
        kinds.update(mention.kind for mention in page_mentions(path, text))
        blocks += len(code_blocks(path, text))
        if seconds is not None:
            kind = str(page_kind(path))
            seconds[kind] = seconds.get(kind, 0.0) + time.perf_counter() - start
    return kinds, blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=5, help="timed passes after the first (default 5)")
    parser.add_argument("--spans", type=int, help="read made-up pages of this many code spans, not a folder")
    args = parser.parse_args()
    if (args.folder is None) == (args.spans is None):
        parser.error("name a folder, or --spans")
    if args.spans is not None:
        with tempfile.TemporaryDirectory() as folder:
            args.folder = Path(folder)
            write_pages(args.folder, args.spans)
            report(args)
    else:
        report(args)


def write_pages(folder: Path, spans: int) -> None:
    """One page of each kind with `spans` code spans, eight to a line, in one paragraph."""
    names = [f"name{n}" for n in range(spans)]  # each once: its line is found only by reading up to it
    rows = [names[n : n + 8] for n in range(0, spans, 8)]
    markdown = "\n".join(" ".join(f"`{name}`" for name in row) for row in rows)
    rst = "\n".join(" ".join(f"``{name}``" for name in row) for row in rows)
    (folder / "page.md").write_text(f"# Spans\n\n{markdown}\n", encoding="utf-8")
    (folder / "page.mdx").write_text(f'import A from "a"\n\n# Spans\n\n<A>\n\n{markdown}\n\n</A>\n', encoding="utf-8")
    (folder / "page.rst").write_text(f"Spans\n=====\n\n{rst}\n", encoding="utf-8")


def report(args: argparse.Namespace) -> None:
    files = sorted(p for p in args.folder.rglob("*") if p.is_file() and p.suffix.lower() in PAGE_SUFFIXES)
    pages = [(str(p.relative_to(args.folder)), p.read_text(encoding="utf-8", errors="replace")) for p in files]
    by_kind = Counter(page_kind(path) for path, _ in pages)
    lines = sum(text.count("\n") + 1 for _, text in pages)

    start = time.perf_counter()
    kinds, blocks = read_all(pages)
    first = time.perf_counter() - start
    seconds, by_kind_best = [], dict[str, float]()
    for _ in range(args.runs):
        clear_caches()
        start, each = time.perf_counter(), dict[str, float]()
        read_all(pages, each)
        seconds.append(time.perf_counter() - start)
        by_kind_best = {kind: min(t, by_kind_best.get(kind, t)) for kind, t in each.items()}
    best = min(seconds) if seconds else first

    print(f"folder     {args.folder}")
    print(f"pages      {len(pages)} ({', '.join(f'{kind} {n}' for kind, n in sorted(by_kind.items()))}), {lines} lines")
    print(f"mentions   {sum(kinds.values())} ({', '.join(f'{kind} {n}' for kind, n in sorted(kinds.items()))})")
    print(f"blocks     {blocks} code blocks")
    print(f"first pass {first:.3f} s (parsers imported)")
    if seconds:
        print(f"best pass  {best:.3f} s of {len(seconds)}: {1000 * best / max(1, len(pages)):.1f} ms a page")
        print(f"by kind    {', '.join(f'{kind} {t:.3f} s' for kind, t in sorted(by_kind_best.items()))} (best of each)")


if __name__ == "__main__":
    main()

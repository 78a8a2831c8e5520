"""The code a wiki names, checked without a model, through any source: what a change removed or renamed that a
page (grounded or not) still names, the paths pages name that do not exist, and how much of each page its claims
ground. `check` adds these to its sweep report.

What it reads is kept to what can matter: a change that removes no definition and no file reads no page; the
rest of the code is read only when a page names something gone, to learn whether another file still defines it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pickle
from collections.abc import Collection, Iterable
from functools import partial

from ..claims.fanout import Child
from ..claims.options import SweepOptions
from ..claims.pages import is_grounded_page
from ..claims.results import BrokenReference, SweepReport
from ..claims.snapshot import Change, Kind, Snapshot
from ..claims.sweep import MAX_SIDECAR_BYTES, Sweeper
from ..ground.findings import broken, clip_lines, gone, may_name, missing_paths, page_coverage
from ..ground.quotes import Quotes, QuotesError, parse_quotes, quotes_path
from ..ground.reading import PageReading, ReadingCache, read_page
from ..ground.references import ChangedCode, dead_after, lookup, mentions, references, resolve
from ..ground.symbols import SymbolIndex, language_of
from ..source import Source


def markdown_pages(snapshot: Snapshot, wiki_dir: str, max_bytes: int) -> list[str]:
    """Every Markdown file of the wiki a person reads (not in dot folders such as `.claims`; none larger than
    `max_bytes`), sorted."""
    found = []
    for path, entry in snapshot.walk(wiki_dir):
        relative = path[len(wiki_dir) + 1 :]
        if (
            entry.kind is Kind.FILE
            and path.endswith(".md")
            and (entry.size is None or entry.size <= max_bytes)
            and not any(s.startswith(".") for s in relative.split("/"))
        ):
            found.append(path)
    return sorted(found)


def code_paths(sweeper: Sweeper, snapshot: Snapshot, paths: Iterable[str]) -> list[str]:
    """The paths evidence may cite whose language the symbol index reads (not the wiki, not ignored, not a
    symlink, within the size limit)."""
    return [
        p
        for p in paths
        if language_of(p) is not None and sweeper.path_problem(p) is None and sweeper.readable(snapshot, p)
    ]


def _line_count(data: bytes) -> int:
    """Lines of a file as OpenWiki counts them (a final newline ends the last line, it opens no new one)."""
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def unread_pages(head: Snapshot, options: SweepOptions, readings: ReadingCache | None) -> list[str]:
    """The pages a full check must read and parse: those whose reading `readings` does not keep."""
    pages = markdown_pages(head, options.wiki_dir, options.max_file_bytes)
    return [page for page in pages if readings is None or readings.recall(head.blob_id(page)) is None]


class ReadApart:
    """Pages read and parsed in a forked child while this process loads and sweeps the wiki.

    Until the sweep's records are shared out, one processor waits while the other loads the wiki, and parsing the
    pages' Markdown starts by importing markdown-it-py (50 ms of a 10k-claim check's 450): a child does both then.
    Start it before the wiki is loaded (a small process to fork), with the pages' bytes already read when they
    come from git (a child never opens git's pipes). A page the child could not read or parse is left out, and a
    child that failed gives nothing: this process reads what is missing, as before, with the same errors."""

    def __init__(self, head: Snapshot, pages: list[str]) -> None:
        self._child = Child(partial(_read_pages, head, pages))

    def take(self) -> dict[str, PageReading]:
        """The readings the child made (read once; none when it failed)."""
        answer = self._child.answer()
        if answer is None:
            return {}
        return pickle.loads(answer)  # noqa: S301 - written by this process's own fork, never read from outside

    def discard(self) -> None:
        self._child.discard()


def read_apart(head: Snapshot, pages: list[str]) -> ReadApart | None:
    """`ReadApart` of `pages`, or None when there are none or no process can be had."""
    if not pages:
        return None
    try:
        return ReadApart(head, pages)
    except OSError:
        return None


def _read_pages(head: Snapshot, pages: list[str]) -> bytes:
    """In a forked child: the readings of `pages`, pickled."""
    made = {}
    for page in pages:
        with contextlib.suppress(Exception):  # this page is read again in the parent, which reports why not
            made[page] = read_page(_text(head.read(page)))
    return pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL)


async def with_references(
    source: Source,
    head: Snapshot,
    change: Change | None,
    options: SweepOptions,
    report: SweepReport,
    readings: ReadingCache | None = None,
    apart: ReadApart | None = None,
) -> SweepReport:
    """`report` with the broken references of `head` (through `change`: what it broke; without one: paths that
    do not exist) and, on a full sweep, every page's coverage. With `readings`, a full sweep reads and parses
    only the pages whose reading is not kept for their blob id, and keeps those it made; with `apart`, it takes
    those a child made meanwhile."""
    wiki_dir = options.wiki_dir
    pages = markdown_pages(head, wiki_dir, options.max_file_bytes)
    head_paths = set(source.files(head))
    if change is None:
        recalled = {
            page: reading
            for page in pages
            if readings is not None and (reading := readings.recall(head.blob_id(page))) is not None
        }
        made = apart.take() if apart is not None else {}
        await source.fetch(head, [page for page in pages if page not in recalled and page not in made])
        claim_ids = {page.page: [c.id for c in page.claims] for page in report.pages if page.error is None}
        unusable = {page.page for page in report.pages if page.error is not None}
        grounded = {p for p in pages if is_grounded_page(p[len(wiki_dir) + 1 :]) and p not in unusable}
        quotes = await _quotes(source, head, options, sorted(grounded))
        found: list[BrokenReference] = []
        measured = []
        for page in pages:  # each page's references, then its coverage: its Markdown is parsed once for both
            reading = recalled.get(page)
            if reading is None:
                reading = made.get(page) or read_page(_text(head.read(page)))
                if readings is not None and (blob := head.blob_id(page)) is not None:
                    readings.keep(blob, reading)
            found.extend(missing_paths(page, reading.mentions, head_paths))
            if page in grounded:
                measured.append(
                    page_coverage(page, reading.blocks, claim_ids.get(page, []), quotes.get(page, Quotes()))
                )
        return dataclasses.replace(report, broken_references=tuple(found), coverage=tuple(measured))
    found = await _broken_by(source, head, change, options, pages, head_paths)
    return dataclasses.replace(report, broken_references=tuple(found))


async def _broken_by(
    source: Source, head: Snapshot, change: Change, options: SweepOptions, pages: list[str], head_paths: set[str]
) -> list[BrokenReference]:
    base = change.base
    base_paths = set(source.files(base))
    sweeper = Sweeper(head, change, options)
    before_files = code_paths(sweeper, base, sorted({f.old_path for f in change.files if f.old_path}))
    after_files = code_paths(sweeper, head, sorted({f.new_path for f in change.files if f.new_path}))
    await source.fetch(base, before_files)
    await source.fetch(head, after_files)
    before = SymbolIndex.of_files({p: base.read(p) for p in before_files}, values=False)
    after = SymbolIndex.of_files({p: head.read(p) for p in after_files}, values=False)
    what = gone(before, after, base_paths, head_paths)
    if not what:
        return []
    await source.fetch(head, pages)
    texts = {page: _text(head.read(page)) for page in pages}
    suspects = [page for page in pages if any(may_name(m, page, what) for m in mentions(texts[page]))]
    if not suspects:
        return []
    others = await _defining(source, head, sweeper, what.names, exclude=change.paths)
    index = SymbolIndex([*before.definitions, *others.definitions])
    code = ChangedCode(base_paths, head_paths, change.paths, before, after)
    dead = dead_after(
        (ref for page in suspects for ref in references(page, texts[page], base_paths, index)),
        code,
        still_defined=lambda qualified: bool(lookup(qualified, others)),
        texts_before=lambda path: _text(base.read(path)).split("\n"),
        texts_after=lambda path: _text(head.read(path)).split("\n"),
    )
    at_head = SymbolIndex([*after.definitions, *others.definitions])
    dead = [d for d in dead if not resolve(d.mention, d.page, head_paths, at_head)]  # moved, or another by its name
    return [
        ref._replace(at=clip_lines(ref.at, lambda path: _line_count(head.read(path))))
        for ref in broken(dead, head_paths)
    ]


async def _defining(
    source: Source, head: Snapshot, sweeper: Sweeper, names: Collection[str], exclude: Collection[str]
) -> SymbolIndex:
    """The definitions of the files the change left alone that may define one of `names` (a file not holding
    the name as text cannot), the same at the base and the head."""
    candidates = [p for p in code_paths(sweeper, head, source.files(head)) if p not in exclude]
    await source.fetch(head, candidates)
    words = {name.rsplit(".", 1)[-1].encode() for name in names}
    return SymbolIndex.of_files(
        {p: data for p in candidates if any(word in (data := head.read(p)) for word in words)}, values=False
    )


async def _quotes(source: Source, head: Snapshot, options: SweepOptions, pages: list[str]) -> dict[str, Quotes]:
    """The quotes kept for each of `pages` that has a readable quotes file (coverage counts a page without one
    as if no quote had been kept)."""
    paths = {page: quotes_path(page, options.wiki_dir) for page in pages}
    present = {
        page: path
        for page, path in paths.items()
        if (e := head.entry(path)) and e.kind is Kind.FILE and (e.size is None or e.size <= MAX_SIDECAR_BYTES)
    }
    await source.fetch(head, sorted(present.values()))
    kept = {}
    for page, path in present.items():
        with contextlib.suppress(QuotesError):
            kept[page] = parse_quotes(head.read(path), path)
    return kept

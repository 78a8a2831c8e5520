"""The code a wiki names, checked without a model, through any source: what a change removed or renamed that a
page (grounded or not) still names, the paths pages name that do not exist, and how much of each page its claims
ground. `check` adds these to its sweep report.

What it reads is kept to what can matter: a change that removes no definition and no file reads no page; the
rest of the code is read only when a page names something gone, to learn whether another file still defines it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import posixpath
import time
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cachetools import LRUCache

from ..claims.errors import UnreadableFileError
from ..claims.ignore import IgnoreRules
from ..claims.options import SweepOptions
from ..claims.pages import is_grounded_page
from ..claims.results import BrokenReference, PageCoverage, SweepReport
from ..claims.snapshot import Change, Kind, Snapshot
from ..claims.sweep import MAX_SIDECAR_BYTES, SnapshotReader
from ..ground.baseline import with_baseline
from ..ground.certainty import PageRules, classified, example_notes
from ..ground.findings import (
    Gone,
    broken,
    clip_lines,
    gone,
    may_name,
    missing_paths,
    page_coverage,
    runtime_notes,
    working_file,
)
from ..ground.formats import page_kind
from ..ground.modules import ModuleMove, module_moves, names_moved, with_module_renames
from ..ground.python.keywords import removed_keywords, suspect_blocks
from ..ground.quotes import Quotes, QuotesError, parse_quotes, quotes_path
from ..ground.reading import PageReading, ReadApart, ReadingCache, live_mentions, read_page
from ..ground.references import (
    ChangedCode,
    DeadReference,
    Mention,
    dead_after,
    lives_on,
    lookup,
    references,
    resolve,
)
from ..ground.routes import Routes, front_matter, front_matter_pages, routes
from ..ground.site import Site
from ..ground.symbols import Definition, SymbolIndex, does_not_parse, language_of
from ..source import Source
from .baseline import read_baseline
from .config import Config
from .site import load_site, site_fragments

if TYPE_CHECKING:
    from ..ground.python.api import PythonApi


@dataclass(frozen=True)
class ReferenceRules:
    """What a repository says of its references: which pages are checked (not history, not excluded), and the
    baseline of references broken before (its path, and what it holds)."""

    pages: PageRules = field(default_factory=PageRules)
    baseline: tuple[str, frozenset[tuple[str, str, str]]] | None = None
    site: Site = field(default_factory=Site)  # the docs site's builder: what it leaves out, its blog's posts

    def checked(self, page: str) -> bool:
        """Whether a page's references are checked as a page's: not history (a blog post is), not excluded by
        the settings or by the site (a fragment the site excludes is checked through the pages including it)."""
        return self.pages.checked(page) and not self.site.left_out(page) and not self.site.is_post(page)


async def reference_rules(source: Source, head: Snapshot, config: Config) -> ReferenceRules:
    """What the settings say of references: the pages checked, and the baseline (read at `head`, the commit or
    tree being checked, by `read_baseline`); BaselineError when the baseline named cannot be used."""
    pages = PageRules.of(config.exclude, config.history)
    site = await load_site(source, head, config.wiki_dir)
    path = config.baseline
    if path is None:
        return ReferenceRules(pages, site=site)
    return ReferenceRules(pages, (path, await read_baseline(source, head, path)), site)


def doc_pages(snapshot: Snapshot, wiki_dir: str, max_bytes: int) -> tuple[list[str], list[tuple[str, int]]]:
    """Every page of the wiki a person reads (a file of a kind `page_kind` reads, not in dot folders such as
    `.claims`), sorted, and those too large to read (over `max_bytes`) with their sizes."""
    found, too_large = [], []
    for path, entry in snapshot.walk(wiki_dir):
        relative = path[len(wiki_dir) + 1 :]
        hidden = any(s.startswith(".") for s in relative.split("/"))
        if entry.kind is not Kind.FILE or page_kind(path) is None or hidden:
            continue
        if entry.size is not None and entry.size > max_bytes:
            too_large.append((path, entry.size))
        else:
            found.append(path)
    return sorted(found), sorted(too_large)


def pages_problem(snapshot: Snapshot, wiki_dir: str) -> str | None:
    """Why a wiki folder that holds files, but no page of a kind Wikiwarden reads, cannot be checked (a check of
    it would pass with nothing checked); None when it holds a page, or nothing at all."""
    found: Counter[str] = Counter()
    for path, entry in snapshot.walk(wiki_dir):
        relative = path[len(wiki_dir) + 1 :]
        if entry.kind is not Kind.FILE or any(s.startswith(".") for s in relative.split("/")):
            continue
        if page_kind(path) is not None:
            return None
        found[posixpath.splitext(path)[1].lower() or posixpath.basename(path)] += 1
    if not found:
        return None
    held = ", ".join(f"{count} {kind}" for kind, count in found.most_common(5))
    return (
        f"{wiki_dir}/ holds no page Wikiwarden reads (Markdown .md, MDX .mdx, reStructuredText .rst), only files of "
        f"other kinds ({held}); name the folder of your docs with --wiki-dir, or `wiki_dir` in .github/wikiwarden.yml"
    )


def site_root(page: str, wiki_dir: str, paths: Collection[str]) -> str:
    """The folder a docs site serves `page` from: the nearest folder above a reStructuredText page holding
    Sphinx's `conf.py` (rich's `docs/source/`), else the wiki folder (MkDocs' `docs_dir`)."""
    if page_kind(page) == "rst":
        folder = posixpath.dirname(page)
        while (folder + "/").startswith(wiki_dir + "/"):
            if f"{folder}/conf.py" in paths:
                return folder
            folder = posixpath.dirname(folder)
    return wiki_dir


def code_paths(reader: SnapshotReader, snapshot: Snapshot, paths: Iterable[str]) -> list[str]:
    """The paths evidence may cite whose language the symbol index reads (not the wiki, not ignored, not a
    symlink, within the size limit)."""
    return [
        p
        for p in paths
        if language_of(p) is not None and reader.path_problem(p) is None and reader.readable(snapshot, p)
    ]


def _line_count(data: bytes) -> int:
    """Lines of a file as OpenWiki counts them (a final newline ends the last line, it opens no new one)."""
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def unread_pages(head: Snapshot, options: SweepOptions, readings: ReadingCache | None) -> list[str]:
    """The pages a full check must read and parse: those whose reading `readings` does not keep."""
    pages = doc_pages(head, options.wiki_dir, options.max_file_bytes)[0]
    return [page for page in pages if readings is None or readings.recall(head.blob_id(page)) is None]


async def with_references(
    source: Source,
    head: Snapshot,
    change: Change | None,
    options: SweepOptions,
    report: SweepReport,
    readings: ReadingCache | None = None,
    apart: ReadApart | None = None,
    rules: ReferenceRules | None = None,
) -> SweepReport:
    """`report` with the broken references of `head` (through `change`: what it broke; without one: paths that
    do not exist), each failing the check only when certain (`bot.ground.certainty`; the rest are notes), on
    the pages `rules` has checked, and, on a full sweep, every page's coverage. With `readings`, a full sweep reads
    and parses only the pages whose reading is not kept for their blob id, and keeps those it made; with `apart`,
    it takes those a child made meanwhile."""
    rules = rules or ReferenceRules()
    every, too_large = doc_pages(head, options.wiki_dir, options.max_file_bytes)
    skipped = tuple((page, _too_large(size, options.max_file_bytes)) for page, size in too_large)
    head_paths = frozenset(source.files(head))  # a frozenset: its folders are gathered once (`is_folder`)
    checked = [p for p in every if rules.checked(p)]
    included = await _included(source, head, rules.site, every, checked, head_paths)
    if change is not None:
        found, texts = await _broken_by(source, head, change, options, checked, head_paths, included)
        return dataclasses.replace(
            report,
            broken_references=_judged(found, rules, texts),
            skipped_pages=skipped,
            referencing_pages=len(checked),
        )
    read = await _readings(source, head, every, readings, apart)
    served = await _routes(source, head, rules.site, head_paths)
    missing = [
        ref._replace(page=page)
        for page, resolved_from in _as_read(checked, included)
        for ref in missing_paths(
            resolved_from,
            read[page].mentions,
            head_paths,
            site_root(resolved_from, options.wiki_dir, head_paths),
            served,
        )
    ]
    found = await _runtime_notes(source, head, missing, options.wiki_dir)
    measured = await _coverage(source, head, options, report, read)
    return dataclasses.replace(
        report,
        broken_references=_judged(
            found, rules, await _texts_of(source, head, {r.page for r in found if r.kind == "code"})
        ),
        coverage=measured,
        skipped_pages=skipped,
        referencing_pages=len(checked),
    )


async def _routes(source: Source, head: Snapshot, site: Site, paths: frozenset[str]) -> Routes:
    """The site's routes at `head`, with the front matter of the pages whose routes it makes (a Docusaurus site's
    docs and posts: fetched only then)."""
    pages = front_matter_pages(site, paths)
    if not pages:
        return routes(site, paths, {} if site.builder is not None else None)
    await source.fetch(head, pages)
    fronts = {}
    for page in pages:
        with contextlib.suppress(UnreadableFileError):
            fronts[page] = front_matter(_text(head.read(page)))
    return routes(site, paths, fronts)


async def _included(
    source: Source, head: Snapshot, site: Site, every: list[str], checked: list[str], paths: frozenset[str]
) -> dict[str, list[str]]:
    """The include fragments the site leaves out, each with the checked pages including it (read only when the site
    leaves a page out: the pages are read for their include lines then)."""
    if not any(site.left_out(page) for page in every):
        return {}
    await source.fetch(head, every)
    texts = {page: _text(head.read(page)) for page in every}
    found = site_fragments(site, texts, paths)
    return {
        page: [p for p in by if p in checked] for page, by in found.items() if site.left_out(page) and page in texts
    }


def _as_read(checked: list[str], included: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(page, the page its links resolve from): each checked page from itself, each fragment from each page that
    includes it (a fragment nothing checked includes is not read)."""
    return [(page, page) for page in checked] + [
        (fragment, page) for fragment, by in sorted(included.items()) for page in by
    ]


async def _readings(
    source: Source, head: Snapshot, pages: list[str], readings: ReadingCache | None, apart: ReadApart | None
) -> dict[str, PageReading]:
    """Each page's reading: kept in `readings` for its blob id, made by the child reading `apart`, else read and
    parsed here (and kept)."""
    recalled = {
        page: reading
        for page in pages
        if readings is not None and (reading := readings.recall(head.blob_id(page))) is not None
    }
    made = apart.take() if apart is not None else {}
    await source.fetch(head, [page for page in pages if page not in recalled and page not in made])
    read: dict[str, PageReading] = {}
    for page in pages:  # each page parsed once, for its references and its coverage
        reading = recalled.get(page)
        if reading is None:
            reading = made.get(page) or read_page(page, _text(head.read(page)))
            if readings is not None and (blob := head.blob_id(page)) is not None:
                readings.keep(blob, reading)
        read[page] = reading
    return read


async def _coverage(
    source: Source, head: Snapshot, options: SweepOptions, report: SweepReport, read: dict[str, PageReading]
) -> tuple[PageCoverage, ...]:
    """The coverage of every grounded Markdown page whose sidecar the sweep could use."""
    wiki_dir = options.wiki_dir
    claims = {page.page: [(c.id, c.statement) for c in page.claims] for page in report.pages if page.error is None}
    unusable = {page.page for page in report.pages if page.error is not None}
    grounded = sorted(
        p for p in read if page_kind(p) == "markdown" and is_grounded_page(p[len(wiki_dir) + 1 :]) and p not in unusable
    )
    quotes = await _quotes(source, head, options, grounded)
    return tuple(
        page_coverage(page, read[page].blocks, claims.get(page, []), quotes.get(page, Quotes())) for page in grounded
    )


def _too_large(size: int, limit: int) -> str:
    return f"{size:,} bytes, over the limit of {limit:,} (--max-file-size, or limits.max_file_bytes): not read"


async def _texts_of(source: Source, head: Snapshot, pages: Collection[str]) -> dict[str, str]:
    """The texts of `pages` (what is said around a mention judges it: `certainty.uncertainty`)."""
    await source.fetch(head, sorted(pages))
    return {page: _text(head.read(page)) for page in pages}


def _judged(
    found: list[BrokenReference], rules: ReferenceRules, texts: dict[str, str] | None = None
) -> tuple[BrokenReference, ...]:
    """Each reference once, certain ones failing and the rest notes (`texts`: the pages' texts, where what a page
    says around a mention judges it), the baseline's notes too."""
    judged = classified(found, texts)
    if rules.baseline is not None:
        path, known = rules.baseline
        judged = with_baseline(judged, known, path)
    return tuple(judged)


async def _runtime_notes(
    source: Source, head: Snapshot, missing: list[BrokenReference], wiki_dir: str
) -> list[BrokenReference]:
    """`missing` with the paths a program makes at run time as notes (`runtime_notes`): git's history is asked
    only about the code spans shaped like a working file."""
    spans = sorted({ref.path for ref in missing if ref.kind == "code"})
    if not spans:
        return missing
    working = [p for p in spans if working_file(p, wiki_dir)]
    committed = await source.ever_committed(head, working) if working else set()
    ignored = await _git_ignored(source, head, spans)
    return runtime_notes(missing, committed, ignored.__contains__, wiki_dir)


async def _git_ignored(source: Source, head: Snapshot, paths: list[str]) -> set[str]:
    """Of `paths`, those the `.gitignore` files at `head` (at the top and in the folders above each) ignore."""
    folders = sorted({folder for path in paths for folder in _folders_above(path)})
    files = {folder: f"{folder}/.gitignore" if folder else ".gitignore" for folder in folders}
    present = {
        folder: path
        for folder, path in files.items()
        if (e := head.entry(path)) is not None and e.kind is Kind.FILE and (e.size or 0) <= MAX_SIDECAR_BYTES
    }
    if not present:
        return set()
    await source.fetch(head, sorted(present.values()))
    rules = {folder: IgnoreRules(_text(head.read(path)), origin=path) for folder, path in present.items()}
    return {
        path
        for path in paths
        for folder in _folders_above(path)
        if folder in rules and rules[folder].ignored(path[len(folder) + 1 :] if folder else path)
    }


def _folders_above(path: str) -> list[str]:
    """The folders holding `path`, from the repository's top ("") down."""
    parts = path.split("/")[:-1]
    return ["", *("/".join(parts[:k]) for k in range(1, len(parts) + 1))]


@dataclass(frozen=True)
class _Changed:
    """What a change did to the code pages can name: the changed files' definitions on both sides, and what went."""

    code: ChangedCode
    gone: Gone
    after_files: list[str]


async def _changed_code(source: Source, head: Snapshot, change: Change, options: SweepOptions) -> _Changed:
    base, head_paths = change.base, frozenset(source.files(head))
    base_paths = frozenset(source.files(base))
    reader = SnapshotReader(head, options)
    before_files = code_paths(reader, base, sorted({f.old_path for f in change.files if f.old_path}))
    after_files = code_paths(reader, head, sorted({f.new_path for f in change.files if f.new_path}))
    await source.fetch(base, before_files)
    await source.fetch(head, after_files)
    before_texts, after_texts = _readable(base, before_files), _readable(head, after_files)
    before = SymbolIndex.of_files(before_texts, values=False)
    after = SymbolIndex.of_files(after_texts, values=False)
    renames = {f.old_path: f.new_path for f in change.files if f.old_path and f.new_path and f.old_path != f.new_path}
    code = ChangedCode(base_paths, head_paths, change.paths, before, after, renames)
    went = gone(before, after, base_paths, head_paths)
    keywords = removed_keywords(_python_texts(before_texts), _python_texts(after_texts))
    return _Changed(code, dataclasses.replace(went, keywords=keywords), after_files)


def _python_texts(files: dict[str, bytes]) -> dict[str, str]:
    return {path: _text(data) for path, data in files.items() if path.endswith((".py", ".pyi"))}


async def _broken_by(
    source: Source,
    head: Snapshot,
    change: Change,
    options: SweepOptions,
    checked: list[str],
    head_paths: frozenset[str],
    included: dict[str, list[str]] | None = None,
) -> tuple[list[BrokenReference], dict[str, str]]:
    """The references of the `checked` pages (and the fragments they include, `included`, read as from each page
    including them) the change broke, and the texts of the pages read: read only when the change removed what a
    page could name."""
    changed = await _changed_code(source, head, change, options)
    if not changed.gone:
        return [], {}
    pairs = _as_read(checked, included or {})
    pages = sorted({page for page, _ in pairs})
    await source.fetch(head, pages)
    base_paths = changed.code.paths_before
    roots = {by: site_root(by, options.wiki_dir, base_paths) for _, by in pairs}
    texts = {page: _text(head.read(page)) for page in pages}
    mentioned = {page: live_mentions(page, texts[page]) for page in pages}
    moves = module_moves(changed.code.renames, base_paths, head_paths)  # modules and packages renamed
    suspects = [
        (page, by)
        for page, by in pairs
        if any(may_name(m, by, changed.gone, roots[by]) or names_moved(m, moves) for m in mentioned[page])
    ]
    block_words = {name.rpartition(".")[2] for name in changed.gone.names} | changed.gone.keywords
    block_words |= {posixpath.splitext(posixpath.basename(p))[0] for p in changed.gone.paths if p.endswith(".py")}
    block_words |= {posixpath.basename(posixpath.dirname(p)) for p in changed.gone.paths if p.endswith("__init__.py")}
    in_blocks = [page for page in pages if suspect_blocks(texts[page], block_words)]
    if not suspects and not in_blocks:
        return [], texts
    found_now = await _dead_mentions(
        source, head, change, options, changed, suspects, mentioned, roots, head_paths, moves
    )
    judged_now = await _python_judged(source, head, change, changed, found_now, in_blocks, texts, block_words)
    return [
        ref for page in pages for ref in example_notes([r for r in judged_now if r.page == page], texts[page])
    ], texts


async def _dead_mentions(
    source: Source,
    head: Snapshot,
    change: Change,
    options: SweepOptions,
    changed: _Changed,
    suspects: list[tuple[str, str]],
    mentioned: dict[str, list[Mention]],
    roots: dict[str, str],
    head_paths: frozenset[str],
    moves: dict[str, ModuleMove],
) -> list[BrokenReference]:
    """The suspect pages' mentions (each page with the page it is read from: a fragment from each page including
    it) of what the change removed or renamed, by the symbol index (Python's judged after)."""
    if not suspects:
        return []
    reader = SnapshotReader(head, options)
    others, exported = await _defining(source, head, reader, changed.gone.names, exclude=change.paths)
    exported |= _exported_lazily(changed.gone.names, _readable(head, changed.after_files))
    index = SymbolIndex([*changed.code.before.definitions, *others.definitions])
    base_paths = changed.code.paths_before
    found = (
        dataclasses.replace(ref, page=page)
        for page, by in suspects
        for ref in references(by, "", base_paths, index, site_root=roots[by], mentioned=mentioned[page])
    )
    dead = dead_after(
        found,
        changed.code,
        still_defined=lambda qualified: bool(lookup(qualified, others)),
        texts_before=lambda path: _text(change.base.read(path)).split("\n"),
        texts_after=lambda path: _text(head.read(path)).split("\n"),
    )
    at_head = SymbolIndex([*changed.code.after.definitions, *others.definitions])
    resolved_from = dict(suspects)  # a fragment's mentions resolve from a page including it
    dead = [
        d
        for d in dead
        if not _reachable(d, head, head_paths, at_head, resolved_from.get(d.page, d.page), roots, exported)
    ]
    dead = with_module_renames(dead, {page: mentioned[page] for page, _ in suspects}, moves, changed.code)
    return [
        ref._replace(at=clip_lines(ref.at, lambda path: _line_count(head.read(path))))
        for ref in broken(dead, head_paths)
    ]


# The APIs griffe loaded, by the files and blob ids they were loaded from: a snapshot's load is paid once in a
# process (a check of a pull request's base and head, a fix after a check).
_APIS: LRUCache[tuple[tuple[str, str], ...], PythonApi] = LRUCache(maxsize=4)


async def _python_judged(
    source: Source,
    head: Snapshot,
    change: Change,
    changed: _Changed,
    found: list[BrokenReference],
    in_blocks: list[str],
    texts: dict[str, str],
    words: set[str],
) -> list[BrokenReference]:
    """`found` judged by the Python API, and the pages' Python blocks the change broke
    (`bot.ground.python.judge`): the packages concerned are loaded with griffe at the base and the head, only when
    a reference or a block names one."""
    from ..ground.python import judge  # noqa: PLC0415 - a check judging no Python reference imports none of it
    from ..ground.python.api import module_names  # noqa: PLC0415
    from ..ground.python.roots import external_roots  # noqa: PLC0415

    base_paths, head_paths = changed.code.paths_before, changed.code.paths_after
    planned = judge.plan(base_paths, head_paths)
    base_modules = module_names(base_paths)
    pages = {page: texts[page] for page in in_blocks}
    packages = judge.packages_named(found, pages, planned, base_modules, words)
    if not packages:
        return found
    roots = external_roots(await _settings(source, head, planned.settings), planned.own)
    base_api = await _api(source, change.base, base_paths, packages, planned.own)
    head_api = await _api(source, head, head_paths, packages, planned.own)
    return judge.evaluate(found, pages, base_api, head_api, roots, base_modules, words)


async def _settings(source: Source, head: Snapshot, paths: Iterable[str]) -> dict[str, str]:
    """The texts of the settings files naming the project's dependencies, each within the size limit."""
    from ..ground.python.roots import MAX_CONFIG_BYTES  # noqa: PLC0415

    present = [
        p
        for p in paths
        if (e := head.entry(p)) is not None and e.kind is Kind.FILE and (e.size or 0) <= MAX_CONFIG_BYTES
    ]
    await source.fetch(head, present)
    return {path: _text(data) for path, data in _readable(head, present).items()}


async def _api(
    source: Source, snapshot: Snapshot, paths: Collection[str], named: Collection[str], own: Collection[str]
) -> PythonApi:
    """The API of the `named` packages at `snapshot`, with the project's other packages (of `own`) they import from
    (`judge.imported_packages`, a few rounds), loaded once per files and blob ids in this process."""
    from ..ground.python import judge  # noqa: PLC0415
    from ..ground.python.api import load_api  # noqa: PLC0415

    packages = set(named)
    files = judge.package_files(paths, packages)
    for _ in range(judge.SIBLING_ROUNDS):
        await source.fetch(snapshot, files)
        texts = {path: _text(data) for path, data in _readable(snapshot, files).items()}
        more = judge.imported_packages(texts, own) - packages
        if not more:
            break
        packages |= more
        files = judge.package_files(paths, packages)
    await source.fetch(snapshot, files)
    key = tuple((path, snapshot.blob_id(path) or "") for path in files)
    if all(blob for _, blob in key) and key in _APIS:
        return _APIS[key]
    texts = {path: _text(data) for path, data in _readable(snapshot, files).items()}
    api = load_api(texts, own=packages, clock=time.monotonic)
    if all(blob for _, blob in key):
        _APIS[key] = api
    return api


def _reachable(
    dead: DeadReference,
    head: Snapshot,
    head_paths: frozenset[str],
    at_head: SymbolIndex,
    by: str,
    roots: dict[str, str],
    exported: set[str],
) -> bool:
    """Whether what a dead reference named is still there for a reader (reading it from page `by`): moved (or
    another by its name), still reachable under its old name (`lives_on`), answered for by a module, or in a file
    that does not parse."""
    if resolve(dead.mention, by, head_paths, at_head, roots[by]):
        return True

    def text(definition: Definition) -> str:
        return "\n".join(_text(head.read(definition.path)).split("\n")[definition.start - 1 : definition.end])

    definition = dead.target.definition
    if lives_on(dead, at_head, text) or _still_exported(dead, exported):
        return True
    return definition is not None and definition.path in head_paths and _unparsable(head, definition.path)


def _unparsable(head: Snapshot, path: str) -> bool:
    return does_not_parse(path, head.read(path))


async def _defining(
    source: Source, head: Snapshot, reader: SnapshotReader, names: Collection[str], exclude: Collection[str]
) -> tuple[SymbolIndex, set[str]]:
    """The definitions of the files the change left alone that may define one of `names` (a file not holding
    the name as text cannot), the same at the base and the head; and the names (and their classes) they export
    lazily."""
    candidates = [p for p in code_paths(reader, head, source.files(head)) if p not in exclude]
    await source.fetch(head, candidates)
    words = {part.encode() for name in names for part in name.split(".")}
    holding = {p: data for p, data in _readable(head, candidates).items() if any(word in data for word in words)}
    return SymbolIndex.of_files(holding, values=False), _exported_lazily(names, holding)


def _readable(snapshot: Snapshot, paths: Iterable[str]) -> dict[str, bytes]:
    """The contents of `paths` the snapshot can produce: a file it cannot (a blob a partial clone lacks, its remote
    out of reach) is left out of what the references are checked against, as a file the change did not touch."""
    found = {}
    for path in paths:
        with contextlib.suppress(UnreadableFileError):
            found[path] = snapshot.read(path)
    return found


def _still_exported(dead: DeadReference, exported: set[str]) -> bool:
    """Whether a module still answers for what a reference named, or for the class that held it (click 8.2's
    deprecated `BaseCommand`, whose `main` its replacement has)."""
    definition = dead.target.definition
    return definition is not None and any(part in exported for part in definition.qualified.split("."))


def _exported_lazily(names: Collection[str], files: dict[str, bytes]) -> set[str]:
    """Of `names`' last segments, those a Python module still exports by name without defining them: a module
    `__getattr__` answering for a name it quotes (a deprecated function kept reachable: click 8.5's
    `get_text_stream`). Such a name still works for the pages that name it."""
    words = {part for name in names for part in name.split(".")}
    found: set[str] = set()
    for path, data in files.items():
        if not path.endswith((".py", ".pyi")) or b"def __getattr__" not in data:
            continue
        found.update(w for w in words if f'"{w}"'.encode() in data or f"'{w}'".encode() in data)
    return found


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

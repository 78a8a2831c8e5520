"""Ground: bring a wiki's (or any docs folder's) pages under claims, through any source and any model.

For each page without claims (or each page named), the symbol index of the repository resolves the page's
references into candidate evidence; the agent proposes the page's claims, each quoting the page and citing code;
the checks decide what is written. Without a model, the same preparation is the report a person grounds from by
hand. A large wiki is grounded in batches: each run takes the next `max_pages` pages that still have no claims,
in OpenWiki's page order, so a later run continues where the last stopped.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..claims.collation import collation_key
from ..claims.options import SweepOptions
from ..claims.pages import page_argument, sidecar_for
from ..claims.sidecar import page_version
from ..claims.snapshot import Kind, Snapshot
from ..claims.snippet import is_snippet
from ..claims.sweep import LoadedPage, SnapshotReader, Wiki, load_wiki
from ..fix.engine import Usage
from ..fix.view import CodeView
from ..fix.work import page_text
from ..ground.build import PageGrounding, ground_page
from ..ground.candidates import candidates
from ..ground.formats import code_blocks, page_kind
from ..ground.quotes import QuotesError, parse_quotes, quotes_path
from ..ground.references import references
from ..ground.snippets import SnippetIndex, block_lines
from ..ground.symbols import SymbolIndex, language_of
from ..ground.work import GroundWork
from ..ground.writing import WritingRules
from ..okf.project import ACTOR
from ..parallel import cyclic_gc_paused
from ..source import Source
from ..source.git import GitRepository, LocalSource
from ..source.localwiki import LocalWiki
from .check import check
from .config import read_config
from .fix import now_iso
from .references import doc_pages
from .site import writing_rules
from .snippets import SnippetBinding, bind_snippets, snippet_sources


class Grounder(Protocol):
    model: str

    async def ground(self, work: GroundWork, view: CodeView, wiki_dir: str) -> Any: ...


@dataclass
class GroundInputs:
    work: list[GroundWork]  # the pages of this run
    waiting: list[str]  # pages without claims left for a later run
    view: CodeView
    index: SymbolIndex
    taken: set[str]  # claim ids in use anywhere in the wiki
    holding: dict[str, bool]  # page → every claim it already has holds at the head
    settled: list[str] = field(default_factory=list)  # pages without claims grounding already read as they are
    other_kinds: list[str] = field(default_factory=list)  # pages claims cannot be kept on (reStructuredText, MDX)
    snippets: SnippetIndex = field(default_factory=lambda: SnippetIndex({}))  # what a code block may copy
    bindable: list[GroundWork] = field(default_factory=list)  # the wiki's other pages, read for their copies
    bound: SnippetBinding | None = None  # the copies bound without a model (a run without one)
    rules: WritingRules = field(default_factory=WritingRules)  # what may be written into the pages


@dataclass
class GroundResult:
    pages: list[PageGrounding] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    waiting: list[str] = field(default_factory=list)
    snippets: SnippetBinding = field(default_factory=SnippetBinding)  # the copied code blocks bound

    @property
    def needs_a_person(self) -> bool:
        return any(p.problem or p.unsupported or p.refused for p in self.pages)


async def prepare_ground(
    source: Source,
    head: Snapshot,
    options: SweepOptions,
    *,
    pages: Sequence[str] = (),
    max_pages: int = 20,
) -> GroundInputs:
    """The pages to ground this run (the named ones, else the next `max_pages` without claims), each with its
    references and candidates, and the code view the agent reads through."""
    wiki_dir = options.wiki_dir
    report = await check(source, head, None, options, references=False)  # also brings in the sidecars
    with cyclic_gc_paused():  # a large wiki is many objects forming no cycles
        wiki = load_wiki(head, options.wiki_dir)
    reader = SnapshotReader(head, options)
    taken = {c.id for page in wiki.pages if page.sidecar for c in page.sidecar.claims}
    holding = {p.page: not any(c.verdict.needs_attention for c in p.claims) and not p.error for p in report.pages}
    chosen, waiting, settled = await _chosen(source, head, wiki, pages, wiki_dir, max_pages)
    loaded = {p.page: p for p in wiki.pages}
    quote_paths = [quotes_path(p, wiki_dir) for p in chosen]
    await source.fetch(head, [*chosen, *quote_paths])
    files = source.files(head)
    rules = CodeView(reader, [])  # what evidence may cite: not the wiki, not ignored, not a symlink
    citable = [p for p in files if rules.problem(p) is None and reader.readable(head, p)]
    code = [p for p in citable if language_of(p) is not None]
    sources = snippet_sources(citable)
    await source.fetch(head, sources)
    index = SymbolIndex.of_files({p: head.read(p) for p in code})
    paths = frozenset(files)  # frozensets: their folders are gathered once (`is_folder`)
    evidence_paths = frozenset(citable)  # candidates are evidence: never the wiki itself, nothing ignored

    async def fetch(wanted: Sequence[str]) -> None:
        await source.fetch(head, wanted)

    view = CodeView(reader, sorted(citable), fetch)  # the tools search every file evidence may cite
    work = []
    for page in sorted(chosen, key=collation_key):
        item, is_page = _page_work(head, page, wiki_dir, loaded.get(page))
        if is_page:
            skip = lambda path: rules.problem(path) is not None  # noqa: E731 - evidence may not cite it
            item.references = references(page, item.text, paths, index, skip=skip)
            item.candidates = candidates(item.references, item.text, evidence_paths, index)
        work.append(item)
    others = [p for p in doc_pages(head, wiki_dir, options.max_file_bytes)[0] if page_kind(p) != "markdown"]
    bindable = await _bindable(source, head, [p for p in loaded if p not in chosen], loaded, wiki_dir)
    blocks = [
        block for item in [*work, *bindable] if item.problem is None for block in code_blocks(item.page, item.text)
    ]
    snippets = SnippetIndex({p: head.read(p) for p in sources}, block_lines(blocks))
    writing = await writing_rules(source, head, wiki_dir, await _history(source, head))
    return GroundInputs(work, waiting, view, index, taken, holding, settled, others, snippets, bindable, rules=writing)


async def _history(source: Source, head: Snapshot) -> tuple[str, ...]:
    """The settings' history patterns (none when the settings cannot be read: the command reading them says why)."""
    try:
        return tuple((await read_config(source, head)).history)
    except (ValueError, OSError):
        return ()


async def _chosen(
    source: Source, head: Snapshot, wiki: Wiki, pages: Sequence[str], wiki_dir: str, max_pages: int
) -> tuple[list[str], list[str], list[str]]:
    """The pages to ground this run, those left for the next, and those grounding read whole already (settled):
    the named pages, else the next `max_pages` without claims."""
    if pages:
        return [page_argument(p, wiki_dir) for p in pages], [], []
    # A page whose only claims are its copied code blocks is still to be grounded: its prose has none.
    copies_only = [
        page.page for page in wiki.pages
        if page.sidecar and page.sidecar.claims and all(is_snippet(c.statement) for c in page.sidecar.claims)
    ]  # fmt: skip
    ungrounded = sorted({*wiki.ungrounded, *copies_only}, key=collation_key)
    settled = await settled_pages(source, head, ungrounded, wiki_dir)
    left = [p for p in ungrounded if p not in settled]
    return left[:max_pages], left[max_pages:], settled


def _page_work(head: Snapshot, page: str, wiki_dir: str, known: LoadedPage | None) -> tuple[GroundWork, bool]:
    """A page to ground, read: its text, its sidecar and its quotes file, and the problem that stops it if any;
    False when it is no page at all (no file of that name)."""
    item = GroundWork(page, sidecar_for(page, wiki_dir), "")
    entry = head.entry(page)
    if entry is None or entry.kind is not Kind.FILE:
        item.problem = f"{page} is not a page of {head.label}"
        return item, False
    item.text, item.problem = page_text(head.read(page))
    if known is not None:
        item.sidecar = known.sidecar
        if known.error:
            item.problem = known.error
    _read_quotes(head, item, quotes_path(page, wiki_dir))
    return item, True


def _read_quotes(head: Snapshot, item: GroundWork, quotes: str) -> None:
    """The page's quotes file, when it has one, into `item` (or the reason it cannot be read as its problem)."""
    if head.entry(quotes) is not None:
        try:
            item.quotes = parse_quotes(head.read(quotes), quotes)
        except QuotesError as exc:
            item.problem = str(exc)


async def _bindable(
    source: Source, head: Snapshot, pages: Sequence[str], loaded: Mapping[str, LoadedPage], wiki_dir: str
) -> list[GroundWork]:
    """The wiki's pages with claims, not grounded this run, read for the code blocks they copy: a block is bound
    on every page, whether or not a model grounds its prose."""
    wanted = [p for p in pages if loaded[p].error is None and head.entry(p) is not None]
    quote_paths = {p: quotes_path(p, wiki_dir) for p in wanted}
    await source.fetch(head, [*wanted, *quote_paths.values()])
    works = []
    for page in sorted(wanted, key=collation_key):
        entry = head.entry(page)
        if entry is None or entry.kind is not Kind.FILE:
            continue
        item = GroundWork(page, sidecar_for(page, wiki_dir), "", sidecar=loaded[page].sidecar)
        item.text, item.problem = page_text(head.read(page))
        _read_quotes(head, item, quote_paths[page])
        works.append(item)
    return works


async def settled_pages(source: Source, head: Snapshot, ungrounded: Sequence[str], wiki_dir: str) -> list[str]:
    """Pages without claims that grounding already read whole as they are now: they state nothing the code shows
    (a person may still name them to ground them again). Only pages with a quotes file are read."""
    known = {page: quotes_path(page, wiki_dir) for page in ungrounded}
    known = {page: path for page, path in known.items() if head.entry(path) is not None}
    await source.fetch(head, [*known, *known.values()])
    settled = []
    for page, path in known.items():
        try:
            grounded = parse_quotes(head.read(path), path).grounded
        except QuotesError:
            continue
        if grounded is not None and grounded == page_version(head.read(page)):
            settled.append(page)
    return settled


async def run_ground(inputs: GroundInputs, grounder: Grounder | None, *, wiki_dir: str, at: str) -> GroundResult:
    """Ground the pages of `inputs` (nothing is asked without a grounder): the files to write and what
    happened to every page."""
    result = GroundResult(model=grounder.model if grounder else None, waiting=list(inputs.waiting))
    taken = set(inputs.taken)
    result.snippets = bind_snippets(
        [*inputs.work, *inputs.bindable], inputs.snippets, taken, inputs.holding, wiki_dir=wiki_dir, at=at,
        rules=inputs.rules,
    )  # fmt: skip
    result.files.update(result.snippets.files)
    for work in inputs.work:
        if work.problem is not None:
            result.pages.append(PageGrounding(work.page, problem=f"{work.problem}: a person must fix the page first"))
            continue
        if grounder is None:
            result.pages.append(PageGrounding(work.page, problem="no model is configured"))
            continue
        decisions = await grounder.ground(work, inputs.view, wiki_dir)
        result.usage.add(decisions.usage)
        if decisions.checked is None:
            result.pages.append(PageGrounding(work.page, problem=decisions.failure))
            continue
        grounded = ground_page(
            work.page, work.text, work.sidecar_path, work.sidecar, decisions.checked, taken, work.quotes,
            wiki_dir=wiki_dir, actor=ACTOR, at=at, existing_hold=inputs.holding.get(work.page, True),
            accepted=decisions.failure is None, okf_front_matter=inputs.rules.okf_front_matter,
        )  # fmt: skip
        if decisions.failure and grounded.problem is None:
            grounded.problem = decisions.failure
        taken.update(c.id for c in grounded.added)
        result.pages.append(grounded)
        result.files.update(grounded.files)
    by_page = {page.page: page for page in result.pages}
    for bound in result.snippets.pages:  # the copies bound on a page are said with what the model grounded there
        if bound.page in by_page:
            by_page[bound.page].added[:0] = bound.added
        elif grounder is not None:
            result.pages.append(bound)
    return result


async def ground_working_tree(
    repo: GitRepository,
    *,
    options: SweepOptions,
    grounder: Grounder | None,
    pages: Sequence[str] = (),
    max_pages: int = 20,
    dry_run: bool = False,
) -> tuple[GroundInputs, GroundResult | None, list[str]]:
    """`wikiwarden ground`: prepare the working tree's pages; with a grounder, ground them and (unless `dry_run`)
    write the files. Without one, only the preparation (the report a person grounds from by hand). What it writes
    it reads and writes under the wiki's lock, as every command writing the wiki does."""
    local = LocalWiki(repo.root, options.wiki_dir)
    with contextlib.nullcontext() if dry_run else local.writing():
        source = LocalSource(repo)
        head = await source.snapshot(None)
        inputs = await prepare_ground(source, head, options, pages=pages, max_pages=max_pages)
        if grounder is None:  # the copied code blocks are bound all the same: no model decides them
            taken = set(inputs.taken)
            inputs.bound = bind_snippets(
                [*inputs.work, *inputs.bindable], inputs.snippets, taken, inputs.holding,
                wiki_dir=options.wiki_dir, at=now_iso(), rules=inputs.rules,
            )  # fmt: skip
            written = sorted(inputs.bound.files)
            if not dry_run:
                for path in written:
                    local.write_file(path, inputs.bound.files[path])
            return inputs, None, written
        result = await run_ground(inputs, grounder, wiki_dir=options.wiki_dir, at=now_iso())
        written = sorted(result.files)
        if not dry_run:
            for path in written:
                local.write_file(path, result.files[path])
    return inputs, result, written

"""The sweep: every claim of the wiki against the head snapshot, through the change from a base if given.

Without a base, each evidence record is checked against its stored version (OpenWiki's algorithm, with
moved text re-anchored). With a base and the change's file list, evidence on touched files is carried
through the diff, and only pages the change can have affected are re-checked: cost follows the change.
Nothing here aborts the sweep: a bad sidecar, resource, symlink, binary or oversized file becomes an
`error` on its page or claim and the sweep goes on.

What the sweep will read is a pure question asked before it runs, so a remote source can fetch it in a few
batches first: `wiki_reads` (the sidecars and the ignore file), then `Sweeper.reads` once the wiki is loaded
(the cited files, and both sides of the change's files when the change touches a cited one).
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from hashlib import sha256
from itertools import compress
from operator import attrgetter
from typing import NamedTuple, overload

from .citations import EvidenceIndex, cited_paths, may_cite
from .collation import collation_key
from .errors import EvidenceResourceError, Problem, SidecarError, UnreadableFileError
from .fanout import Child, slices
from .ignore import IGNORE_FILE, IgnoreRules
from .options import SweepOptions
from .pages import (
    DEFAULT_WIKI_DIR,
    is_grounded_page,
    is_sidecar,
    normalize_wiki_dir,
    page_for,
)
from .resources import (
    SCHEME,
    EvidenceResource,
    check_contained,
    encode_path,
    escapes,
    is_normal_path,
    parse_resource,
    resource_path,
    resource_span,
)
from .results import ClaimResult, EvidenceResult, PageResult, SweepReport
from .sidecar import Claim, EvidenceRecord, Sidecar, parse_sidecar
from .snapshot import Change, Entry, FileChange, Kind, Snapshot
from .text import FileText
from .track import ChangedFile, Tracked, openwiki_verdict, reference_verdict, track
from .verdict_cache import PageBuilder, PageVerdicts, VerdictCache, recall_page, sweep_context
from .verdicts import OpenWikiVerdict, Verdict, worst
from .versions import canonical_anchors, canonical_selected_count, file_version, lines_version

MAX_SIDECAR_BYTES = 16 << 20  # a sidecar of 10,000 claims is about 3 MB; anything far larger is not read
RECORDS_PER_PROCESS = 5_000  # a forked process pays off from about this many records to evaluate (fanout.py)


@dataclass
class LoadedPage:
    """A grounded page's sidecar as read from the head snapshot, or why it could not be used."""

    page: str
    sidecar_path: str
    sidecar: Sidecar | None = None
    error: str | None = None
    skipped: bool = False  # not parsed: a diff-aware sweep found it cannot cite what the change touched


@dataclass
class Wiki:
    wiki_dir: str
    pages: list[LoadedPage] = field(default_factory=list)  # pages with a sidecar (or a broken one)
    ungrounded: list[str] = field(default_factory=list)  # pages with no sidecar, or one with no claims


def load_wiki(
    snapshot: Snapshot,
    wiki_dir: str = DEFAULT_WIKI_DIR,
    wanted: Callable[[str, bytes], bool] | None = None,
    unread: Callable[[str], bool] | None = None,
    read_before: Callable[[str], bool] | None = None,
) -> Wiki:
    """Discover the grounded pages and read their sidecars strictly, in OpenWiki's page order.

    `wanted`, given a sidecar's path and bytes, may decline to parse it, and `unread`, given its path, to read
    it at all: a diff-aware sweep skips the sidecars that cannot cite anything the change touched (known from
    the evidence index before reading, else from the bytes). `read_before`, given its path, says whether these
    very bytes were read before (`parse_sidecar`).
    """
    wiki_dir = normalize_wiki_dir(wiki_dir)
    pages: set[str] = set()
    symlinked: set[str] = set()
    sidecars: list[tuple[str, Entry]] = []
    for path, entry in snapshot.walk(wiki_dir):
        if is_sidecar(path, wiki_dir):
            sidecars.append((path, entry))
        elif is_grounded_page(path[len(wiki_dir) + 1 :]):
            (pages if entry.kind is Kind.FILE else symlinked).add(path)
    wiki = Wiki(wiki_dir)
    with_claims: set[str] = set()
    for sidecar_path, entry in sidecars:
        page = page_for(sidecar_path, wiki_dir)
        loaded = LoadedPage(page, sidecar_path)
        kind = entry.kind
        if kind is Kind.SYMLINK:
            loaded.error = f"{sidecar_path}: the sidecar is a symlink; OpenWiki refuses to read or write through one"
        elif kind is not Kind.FILE:
            loaded.error = f"{sidecar_path}: not a regular file"
        elif page in symlinked:
            loaded.error = f"{page}: the page is a symlink; OpenWiki refuses to persist claims for it"
        elif not is_grounded_page(page[len(wiki_dir) + 1 :]):
            loaded.error = f"{sidecar_path}: sidecar of a reserved page ({page.rsplit('/', 1)[-1]} holds no claims)"
        elif page not in pages:
            loaded.error = f"{sidecar_path}: orphan sidecar, its page {page} does not exist (OpenWiki deletes it)"
        elif _oversized_sidecar(entry.size):
            loaded.error = f"{sidecar_path}: {entry.size:,} bytes; a sidecar is read up to {MAX_SIDECAR_BYTES:,} bytes"
        elif unread is not None and unread(sidecar_path):
            loaded.skipped = True
            with_claims.add(page)
        else:
            try:
                data = snapshot.read(sidecar_path)
            except UnreadableFileError as exc:
                loaded.error = str(exc)
                wiki.pages.append(loaded)
                continue
            if wanted is not None and not wanted(sidecar_path, data):
                loaded.skipped = True
                with_claims.add(page)
            else:
                try:
                    seen = read_before is not None and read_before(sidecar_path)
                    loaded.sidecar = parse_sidecar(data, sidecar_path, read_before=seen)
                    if loaded.sidecar.claims:
                        with_claims.add(page)
                except SidecarError as exc:
                    loaded.error = str(exc)
        wiki.pages.append(loaded)
    wiki.pages.sort(key=lambda p: collation_key(p.page))
    wiki.ungrounded = sorted(pages - with_claims, key=collation_key)
    return wiki


def wiki_reads(
    snapshot: Snapshot,
    wiki_dir: str = DEFAULT_WIKI_DIR,
    change: Change | None = None,
    options: SweepOptions | None = None,
    index: EvidenceIndex | None = None,
) -> list[str]:
    """The files a sweep reads before anything else: the ignore file and every sidecar of the wiki, but those the
    evidence index shows a diff-aware sweep of `change` need not read."""
    wiki_dir = normalize_wiki_dir(wiki_dir)
    touched = change.paths if change is not None and index and is_scoped(change, options or SweepOptions()) else None
    paths = [
        path
        for path, entry in snapshot.walk(wiki_dir)
        if entry.kind is Kind.FILE
        and is_sidecar(path, wiki_dir)
        and not _oversized_sidecar(entry.size)
        and not (touched is not None and index is not None and cannot_cite(snapshot, path, wiki_dir, touched, index))
    ]
    return [IGNORE_FILE, *paths]


def sidecar_blobs(snapshot: Snapshot, wiki_dir: str = DEFAULT_WIKI_DIR) -> list[str]:
    """The blob ids of the wiki's sidecars the snapshot knows without reading them: what to ask the evidence
    index about."""
    wiki_dir = normalize_wiki_dir(wiki_dir)
    blobs = (snapshot.blob_id(path) for path, entry in snapshot.walk(wiki_dir) if is_sidecar(path, wiki_dir))
    return [blob for blob in blobs if blob is not None]


def is_scoped(change: Change | None, options: SweepOptions) -> bool:
    """A diff-aware sweep re-checks only what the change can have affected (unless asked to re-check all, or the
    change edits the ignore file, which can change any claim's verdict)."""
    return change is not None and not options.recheck_all and IGNORE_FILE not in change.paths


def cannot_cite(snapshot: Snapshot, sidecar_path: str, wiki_dir: str, touched: set[str], index: EvidenceIndex) -> bool:
    """Whether the evidence index shows, before reading it, that the sidecar at `sidecar_path` cites nothing of
    `touched` (and neither it nor its page was touched)."""
    if sidecar_path in touched or page_for(sidecar_path, wiki_dir) in touched:
        return False
    blob = snapshot.blob_id(sidecar_path)
    return blob is not None and blob in index and not index.may_cite(blob, touched)


def _oversized_sidecar(size: int | None) -> bool:
    return size is not None and size > MAX_SIDECAR_BYTES


def sweep(
    head: Snapshot, change: Change | None = None, options: SweepOptions | None = None, wiki: Wiki | None = None
) -> SweepReport:
    """Evaluate every claim (or, with a change, every claim it can have affected) and report per page."""
    return Sweeper(head, change, options or SweepOptions()).sweep(wiki)


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """A sweep allocates hundreds of thousands of small objects that never form cycles; left on, the
    cyclic collector traverses them over and over (a third of the time of a 100k-claim sweep). A one-shot
    process (the command line's check) pauses it for the whole command; nested, the outermost resumes it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _promote_young_objects()
            gc.enable()


def _promote_young_objects() -> None:
    """Move every object the sweep allocated to the oldest generation without traversing it.

    Left young, the report's hundreds of thousands of objects (no cycles among them) would be traversed by the
    first collection after the sweep, and again when they reach the next generation, to find nothing. Freezing
    then unfreezing splices the generations into the oldest one. Skipped when the process froze objects of its
    own (a server before forking), which unfreezing would release.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


class _Unreadable(Problem):
    """A file the snapshot lists but cannot produce (a blob a partial clone lacks, its remote out of reach)."""

    __slots__ = ()


class _LazyFiles(Sequence[ChangedFile]):
    """The change's other files, diffed only if a deleted span has to be looked for elsewhere."""

    def __init__(self, sweeper: Sweeper, own: FileChange) -> None:
        self._sweeper = sweeper
        self._own = own
        self._items: list[ChangedFile] | None = None

    def _get(self) -> list[ChangedFile]:
        if self._items is None:
            self._items = [cf for f, cf in self._sweeper.changed_files() if f != self._own and cf.new is not None]
        return self._items

    def unreadable(self) -> Problem | None:
        """When they were looked through: the first of them that could not be read (where the text went is then
        not known), else None."""
        if self._items is None:
            return None
        sweeper = self._sweeper
        assert sweeper.change is not None
        for f, _ in sweeper.changed_files():
            sides = ((sweeper.change.base, f.old_path), (sweeper.head, f.new_path))
            for snapshot, path in sides:
                if f != self._own and path and isinstance(found := sweeper.text(snapshot, path), _Unreadable):
                    return Problem(f"where the text went cannot be told: {found.message}")
        return None

    @overload
    def __getitem__(self, index: int) -> ChangedFile: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ChangedFile]: ...

    def __getitem__(self, index: int | slice) -> ChangedFile | Sequence[ChangedFile]:
        return self._get()[index]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[ChangedFile]:
        return iter(self._get())


# An evidence record to evaluate: its index among the sweep's records, the record, and its parsed resource.
_Filed = tuple[int, EvidenceRecord]  # a record's index among the sweep's, and the record

# What a sweep chose to re-check: each page with the claims of it to evaluate.
Selection = list[tuple[LoadedPage, tuple[Claim, ...]]]


class Sweeper:
    """One sweep's state: file contents read once per snapshot, diffs computed once per changed file."""

    def __init__(
        self,
        head: Snapshot,
        change: Change | None,
        options: SweepOptions,
        *,
        index: EvidenceIndex | None = None,
        verdicts: VerdictCache | None = None,
        processes: int = 1,
    ) -> None:
        self.head = head
        self.change = change
        self.options = options
        self.index = index  # which files each sidecar cites: read to skip sidecars, and taught what is new
        self.verdicts = verdicts  # a full sweep's results kept from earlier sweeps (see `verdict_context`)
        self.processes = processes  # a large full sweep's files are evaluated by this many processes (fanout.py)
        self.records_per_process = RECORDS_PER_PROCESS
        self._read_elsewhere: set[str] = set()  # files a forked child read and evaluated, every record of them
        self.wiki_dir = normalize_wiki_dir(options.wiki_dir)
        self._wiki_prefix = self.wiki_dir + "/"
        self._texts: dict[int, dict[str, FileText | Problem | None]] = {id(head): {}}
        self._resources: dict[str, EvidenceResource | Problem] = {}
        self._paths: dict[str, str] = {}  # a resource's part before `#` → its path (`resource_path`)
        self._head_paths: dict[str, str | None] = {}  # a resource's part before `#` → its file (None: in error)
        self._spans: dict[str, bool] = {}  # a resource's part after `#` → whether it names lines
        self._path_problems: dict[str, Problem | None] = {}
        self._changed: dict[FileChange, ChangedFile] = {}
        self._all_changed: list[tuple[FileChange, ChangedFile]] | None = None
        self._planned: _Plan | None = None
        # Where the last text found elsewhere stood from its hint, carried from file to file: a change that moves
        # every file alike (a header or an import added to each) then finds each file's first moved text at once.
        self._shift = 0
        self.by_old = {f.old_path: f for f in change.files if f.old_path} if change else {}
        self.touched_paths = change.paths if change else set()
        ignore = self.text(head, IGNORE_FILE)
        self.ignore_text = ignore.text if isinstance(ignore, FileText) else ""
        self.ignore = IgnoreRules(self.ignore_text)

    @property
    def verdict_context(self) -> str:
        """The context the verdict cache must have been written under for this sweep to use it."""
        return sweep_context(self.wiki_dir, self.options.max_file_bytes, self.ignore_text)

    # -- reading -------------------------------------------------------------------------------

    def text(self, snapshot: Snapshot, path: str) -> FileText | Problem | None:
        """The file at `path` as text; the problem when it cannot be evidence; None when absent."""
        cache = self._texts.setdefault(id(snapshot), {})
        if path not in cache:
            cache[path] = self._read(snapshot, path)
        return cache[path]

    def readable(self, snapshot: Snapshot, path: str) -> bool:
        """Whether reading `path` means reading its bytes: a regular file within the size limit (anything else is
        decided from its entry alone, so a remote source need not fetch it)."""
        entry = snapshot.entry(path)
        return (
            entry is not None
            and entry.kind is Kind.FILE
            and (entry.size is None or entry.size <= self.options.max_file_bytes)
        )

    def _read(self, snapshot: Snapshot, path: str) -> FileText | Problem | None:
        entry = snapshot.entry(path)
        if entry is None or entry.kind in (Kind.DIRECTORY, Kind.OTHER):
            return None  # OpenWiki: not a regular file resolves to nothing
        if entry.kind is Kind.SYMLINK:
            return Problem(f"{path} is a symlink or lies under one; evidence must be a regular file")
        limit = self.options.max_file_bytes
        if entry.size is not None and entry.size > limit:
            return Problem(f"{path} is larger than the {limit}-byte limit ({entry.size} bytes)")
        try:
            data = snapshot.read(path)
        except UnreadableFileError as exc:
            return _Unreadable(str(exc))
        if len(data) > limit:
            return Problem(f"{path} is larger than the {limit}-byte limit ({len(data)} bytes)")
        text = FileText(data)
        if text.is_binary:
            return Problem(f"{path} is a binary file")
        return text

    def path_problem(self, path: str) -> Problem | None:
        """Why evidence may not cite the file at `path` (a symlink, the wiki, ignored, no valid path), or None."""
        try:
            res = parse_resource(SCHEME + path)
        except ValueError as exc:
            return Problem(str(exc))
        parsed = self.resource(res.canonical)
        return parsed if isinstance(parsed, Problem) else None

    def resource(self, stored: str) -> EvidenceResource | Problem:
        """The stored resource parsed and checked against the evidence rules (once per distinct string)."""
        parsed = self._resources.get(stored)
        if parsed is None:
            parsed = self._resources[stored] = self._parse(stored)
        return parsed

    def _parse(self, stored: str) -> EvidenceResource | Problem:
        """`parse_resource` and the path's problem, from the path part parsed once per file (a wiki cites each
        file under many ranges) and the span part's own memo."""
        head, sep, fragment = stored.partition("#")
        path = self._paths.get(head)
        try:
            if path is None:
                path = self._paths[head] = resource_path(head)
            res = tuple.__new__(EvidenceResource, (path, *resource_span(fragment)) if sep else (path, None, None))
        except EvidenceResourceError:
            try:
                res = parse_resource(stored)  # OpenWiki's reason, worded for the whole resource
            except EvidenceResourceError as exc:
                return Problem(str(exc))
            path = res.path
        problem = self._path_problems.get(path, res)  # the resource itself: not known yet
        if problem is res:
            problem = self._path_problems[path] = self._path_problem(res)
        return problem or res

    def _path_problem(self, res: EvidenceResource) -> Problem | None:
        """Why evidence on this path cannot be used (escape, the wiki itself, ignored), or None."""
        try:
            check_contained(res)
        except EvidenceResourceError as exc:
            return Problem(str(exc))
        return self._file_problem(res.path)

    def _file_problem(self, path: str) -> Problem | None:
        """Why evidence cannot cite a path that stays in the repository (the wiki itself, ignored), or None."""
        if path == self.wiki_dir or path.startswith(self.wiki_dir + "/"):
            return Problem(f"evidence must be code, not the wiki itself: {path}")
        if self.ignore and self.ignore.ignored(path):
            return Problem(f"{path} is excluded by {IGNORE_FILE}")
        return None

    def changed_file(self, change: FileChange) -> ChangedFile:
        cf = self._changed.get(change)
        if cf is None:
            assert self.change is not None
            old = self.text(self.change.base, change.old_path) if change.old_path else None
            new = self.text(self.head, change.new_path) if change.new_path else None
            cf = ChangedFile(
                change.new_path if isinstance(new, FileText) else None,
                old if isinstance(old, FileText) else None,
                new if isinstance(new, FileText) else None,
            )
            self._changed[change] = cf
        return cf

    def changed_files(self) -> list[tuple[FileChange, ChangedFile]]:
        if self._all_changed is None:
            assert self.change is not None
            # A deleted file added no line: never read for this (a partial clone would fetch it for nothing).
            files = [f for f in self.change.files if f.new_path]
            # One batch for each side: a snapshot can read them together, not one by one.
            self.head.prefetch(sorted(f.new_path for f in files if f.new_path))
            self.change.base.prefetch(sorted(f.old_path for f in files if f.old_path))
            self._all_changed = [(f, self.changed_file(f)) for f in files]
        return self._all_changed

    # -- recording (hand-kept claims) ---------------------------------------------------------

    def _readable(self, resource: str) -> tuple[EvidenceResource, FileText]:
        res = self.resource(resource)
        if isinstance(res, Problem):
            raise EvidenceResourceError(res.message)
        text = self.text(self.head, res.path)
        if isinstance(text, Problem):
            raise EvidenceResourceError(text.message)
        if text is None:
            raise EvidenceResourceError(f"{res.path} does not exist (or is not a regular file) in {self.head.label}")
        return res, text

    def record(self, resource: str) -> EvidenceRecord:
        """New evidence for `resource` as it stands now (OpenWiki's `add`: resolved at the hint)."""
        res, text = self._readable(resource)
        if res.start is None or res.end is None:
            return EvidenceRecord(res.canonical, file_version(text))
        if res.end > text.line_count:
            raise EvidenceResourceError(f"{res.canonical}: {res.path} has only {text.line_count} lines")
        return EvidenceRecord(res.canonical, lines_version(text, res.start - 1, res.end))

    def rebaseline(self, record: EvidenceRecord) -> EvidenceRecord:
        """The evidence re-anchored where its text stands now, with the version of that text (`confirm`)."""
        res, text = self._readable(record.resource)
        tracked = reference_verdict(res, record.version, text, res.path)
        if tracked.verdict is Verdict.FRESH:
            return record
        if tracked.resource is None or tracked.version is None:
            raise EvidenceResourceError(
                f"{record.resource} no longer resolves in {self.head.label}: the text and its anchors are gone; "
                "retract the claim or add it again with new evidence"
            )
        return EvidenceRecord(tracked.resource, tracked.version)

    # -- evaluating ----------------------------------------------------------------------------

    def evaluate(self, record: EvidenceRecord) -> EvidenceResult:
        """One evidence record's result (a sweep evaluates its records file by file, through `_evaluate_file`)."""
        res = self.resource(record.resource)
        if isinstance(res, Problem):
            return EvidenceResult(record.resource, record.version, Verdict.ERROR, None, error=res.message)
        result: list[EvidenceResult | None] = [None]
        self._evaluate_file(res.path, [(0, record)], result)
        return result[0]  # type: ignore[return-value]

    def _evaluate_file(self, path: str, records: list[_Filed], results: list[EvidenceResult | None]) -> None:
        """Put the result of each record citing the file at `path` at its index: the file is looked up once, and
        each record's span parsed here (in the process evaluating it: a shared sweep's children parse their own)."""
        current = self.text(self.head, path)
        if type(current) is not FileText or path in self.by_old:
            for index, record in records:
                results[index] = self._evaluate_filed(path, record, current)
            if type(current) is FileText:
                current.forget_hashes()
            return
        # The common cases, answered without the general machinery: fresh where its hint says, or moved unchanged
        # as the file's last text found elsewhere (`found_moved`). This loop runs for every evidence record of a
        # full sweep, so `unchanged_at_hint` and the results are written out here.
        data, offsets = current.data, current.offsets
        lines = len(offsets) - 1
        at = f"{SCHEME}{encode_path(path)}#L"  # the canonical resource of this file, up to its span
        make, fresh, moved, ow_fresh = tuple.__new__, Verdict.FRESH, Verdict.MOVED, OpenWikiVerdict.FRESH
        shift = self._shift  # where the last text found elsewhere stood from its hint: text moves in blocks
        for index, record in records:
            resource, version = record
            _, sep, fragment = resource.partition("#")
            if sep:
                start, end = resource_span(fragment)
                if end <= lines and version[21:85] == sha256(data[offsets[start - 1] : offsets[end]]).hexdigest():
                    if canonical_selected_count(version) == end - start + 1:
                        canonical = f"{at}{start}-L{end}"
                        resource_now = resource if canonical == resource else canonical  # the stored string
                        fields = (resource, version, fresh, ow_fresh, (start, end), resource_now, version)
                        results[index] = make(EvidenceResult, (*fields, False, None, None, None, None))
                        continue
                else:  # not at its hint: unchanged `shift` lines away, as the file's last text found elsewhere?
                    found = found_moved(data, offsets, start - 1 + shift, version)
                    if found is not None:  # moved (never fresh: at its hint, its hash would have matched)
                        first, last = found
                        fields = (resource, version, moved, ow_fresh, found, f"{at}{first}-L{last}", version)
                        results[index] = make(EvidenceResult, (*fields, False, None, None, None, None))
                        continue
            result = results[index] = self._evaluate_filed(path, record, current)
            if sep and result.span is not None:
                shift = result.span[0] - start
        self._shift = shift
        current.forget_hashes()  # every record citing the file is answered

    def _evaluate_filed(self, path: str, record: EvidenceRecord, current: FileText | Problem | None) -> EvidenceResult:
        """A record filed under the file at `path` (`_file`: its path and span parse), evaluated in the
        general case."""
        _, sep, fragment = record.resource.partition("#")
        span = resource_span(fragment) if sep else (None, None)
        return self._evaluate(record, EvidenceResource(path, *span), current)

    def _evaluate_forked(
        self, paths: list[str], by_path: dict[str, list[_Filed]], results: list[EvidenceResult | None], parts: int
    ) -> None:
        """Evaluate the files at `paths` in `parts` processes: forked children answer every slice but the first,
        which this process answers meanwhile. A full sweep's records are independent file by file, and a child
        inherits the loaded wiki, so only its answers travel, in the verdict cache's compact form."""
        chosen = slices([len(by_path[path]) for path in paths], parts)
        own = paths[chosen[0].start : chosen[0].stop]
        children: list[tuple[list[str], Child]] = []
        try:
            for part in chosen[1:]:
                theirs = paths[part.start : part.stop]
                try:
                    children.append((theirs, Child(partial(self._answer, theirs, by_path, results))))
                except OSError:  # the system gives no more processes: this one evaluates the slice
                    own += theirs
            for path in own:
                self._evaluate_file(path, by_path[path], results)
            for theirs, child in children:
                self._take(theirs, by_path, results, child.answer())
        finally:
            for _, child in children:
                child.discard()

    def _answer(
        self, paths: list[str], by_path: dict[str, list[_Filed]], results: list[EvidenceResult | None]
    ) -> bytes:
        """In a forked child: the results of the records citing `paths`, in their order, as the verdict cache
        writes a page (a record answered from no readable file is left out: the parent answers it)."""
        import pickle  # noqa: PLC0415 - only a shared sweep needs it: not at every check's start-up

        texts = self._texts[id(self.head)]
        answers = PageBuilder()
        for path in paths:
            filed = by_path[path]
            self._evaluate_file(path, filed, results)
            file = (path, "") if type(texts.get(path)) is FileText else None
            answers.add_all([file] * len(filed), [results[index] for index, _ in filed])
        return pickle.dumps(answers.build(), protocol=pickle.HIGHEST_PROTOCOL)

    def _take(
        self,
        paths: list[str],
        by_path: dict[str, list[_Filed]],
        results: list[EvidenceResult | None],
        answer: bytes | None,
    ) -> None:
        """Put a child's answers for the records citing `paths` in `results`; a file any of whose records it did
        not answer (or a child that failed) is evaluated here."""
        filed = [record for path in paths for _, record in by_path[path]]
        answered: list[EvidenceResult | None] = [None] * len(filed)
        if answer is not None:
            import pickle  # noqa: PLC0415

            page = pickle.loads(answer)  # noqa: S301 - written by this process's own fork, never read from outside
            answered = recall_page(page, [True] * len(page.files), filed)
        position = 0
        for path in paths:
            mine = by_path[path]
            got = answered[position : position + len(mine)]
            position += len(mine)
            if None in got:
                self._evaluate_file(path, mine, results)
                continue
            for (index, _), result in zip(mine, got, strict=True):
                results[index] = result
            self._read_elsewhere.add(path)

    def _evaluate(
        self, record: EvidenceRecord, res: EvidenceResource, current: FileText | Problem | None
    ) -> EvidenceResult:
        """The general case: the evidence is not (or cannot be) where its hint says, unchanged."""
        change = self.by_old.get(res.path) if self.by_old else None
        if change is not None:
            assert self.change is not None
            new = self.text(self.head, change.new_path) if change.new_path else None
            if isinstance(new, Problem):
                return self._error(record, res, new, touched=self._matched_base(res, record.version, change))
            old = self.text(self.change.base, res.path)
            if isinstance(old, _Unreadable):  # the change cannot be followed without the file's base
                return self._error(record, res, Problem(f"{self.change.base.label}: {old.message}"), touched=False)
            others = _LazyFiles(self, change)
            tracked = track(res, record.version, self.changed_file(change), others)
            unread = others.unreadable()
            if unread is not None:
                return self._error(record, res, unread, touched=self._matched_base(res, record.version, change))
        elif isinstance(current, Problem):
            return self._error(record, res, current, touched=False)
        else:
            # OpenWiki's algorithm on the same file: its verdict is this one, seen without moves.
            path = res.path if current else None
            # `_evaluate_file` tried the hint of lines cited from a file the change left alone.
            hint_checked = res.start is not None and type(current) is FileText
            tracked = reference_verdict(res, record.version, current, path, hint_checked=hint_checked)
            return _result(record, tracked, _OPENWIKI_EQUIVALENT[tracked.verdict])
        ow_text = current if isinstance(current, FileText) else None
        return _result(record, tracked, openwiki_verdict(res, record.version, ow_text))

    def _error(self, record: EvidenceRecord, res: EvidenceResource, problem: Problem, touched: bool) -> EvidenceResult:
        current = self.text(self.head, res.path)
        ow = openwiki_verdict(res, record.version, current) if isinstance(current, FileText) else None
        return EvidenceResult(
            record.resource, record.version, Verdict.ERROR, ow, touched=touched, error=problem.message
        )

    def _matched_base(self, res: EvidenceResource, version: str, change: FileChange) -> bool:
        """Whether the evidence was in order at the base, so the change is what broke it."""
        assert self.change is not None
        old = self.text(self.change.base, change.old_path) if change.old_path else None
        return isinstance(old, FileText) and reference_verdict(res, version, old, res.path).verdict is Verdict.FRESH

    @property
    def scoped(self) -> bool:
        """A diff-aware sweep re-checks only what the change can have affected."""
        return is_scoped(self.change, self.options)

    def load(self) -> Wiki:
        """The wiki's sidecars read and parsed (a 100k-claim wiki is half a million objects: collector paused).
        A diff-aware sweep reads no sidecar the evidence index shows cannot cite the change, and parses none its
        bytes show cannot."""
        if not self.scoped:
            wanted = unread = None
        else:
            wanted = self._may_cite_change
            unread = self._cannot_cite_change if self.index else None
        with cyclic_gc_paused():
            cache = self._cache
            read_before = partial(self._read_before, cache) if cache or self.index is not None else None
            wiki = load_wiki(self.head, self.wiki_dir, wanted, unread, read_before)
        if self.index is not None:  # what parsed without error parses so again: the index keeps it
            blob_id = self.head.blob_id
            for page in wiki.pages:
                if page.sidecar is not None and (blob := blob_id(page.sidecar_path)) is not None:
                    self.index.learn_parsed(blob)
        return wiki

    @property
    def _cache(self) -> VerdictCache | None:
        """The verdict cache, when it was kept under this sweep's context (else none of it is used)."""
        cache = self.verdicts
        return cache if cache is not None and cache.context == self.verdict_context else None

    def _read_before(self, cache: VerdictCache | None, sidecar_path: str) -> bool:
        """Whether a sweep parsed this sidecar's very bytes without error: the evidence index says so, or the
        verdict cache holds its page (kept only for a sidecar a sweep read, under this engine's context)."""
        blob = self.head.blob_id(sidecar_path)
        if blob is None:
            return False
        return (self.index is not None and self.index.parsed(blob)) or (
            cache is not None and cache.page(blob) is not None
        )

    def _cannot_cite_change(self, sidecar_path: str) -> bool:
        return cannot_cite(self.head, sidecar_path, self.wiki_dir, self.touched_paths, self.index or EvidenceIndex())

    def _may_cite_change(self, sidecar_path: str, data: bytes) -> bool:
        """Whether a sidecar can cite a file the change touched, decided on its bytes without parsing (and what
        it cites learnt by the evidence index)."""
        touched = self.touched_paths
        blob = self.head.blob_id(sidecar_path) if self.index is not None else None
        if self.index is not None and blob is not None and blob in self.index:
            cites = self.index.may_cite(blob, touched)
        else:
            cited = cited_paths(data)
            if self.index is not None and blob is not None:
                self.index.learn(blob, cited)
            cites = may_cite(cited, touched)
        return cites or sidecar_path in touched or page_for(sidecar_path, self.wiki_dir) in touched

    def _affected(self, page: str, claims: tuple[Claim, ...], duplicates: dict[tuple[str, str], str]) -> list[Claim]:
        """The claims of a page with a record in error or citing a touched file, or whose id clashes. Decided per
        file (a resource's part before `#`, however many ranges name it) and per span (both memoised): a
        diff-aware sweep asks this of every record of the sidecars it read, and re-checks only a few."""
        touched, head_paths, spans = self.touched_paths, self._head_paths, self._spans
        affected = []
        for claim in claims:
            for record in claim.evidence:
                head, sep, fragment = record.resource.partition("#")
                path = head_paths.get(head, _UNSEEN)
                if path is _UNSEEN:
                    path = self._head_path(head)
                if path is None or path in touched:
                    break
                if sep:
                    parses = spans.get(fragment)
                    if parses is None:
                        parses = spans[fragment] = _span_parses(fragment)
                    if not parses:
                        break
            else:
                if (page, claim.id) not in duplicates:
                    continue
            affected.append(claim)
        return affected

    def _head_path(self, head: str) -> str | None:
        """The file every resource whose part before `#` is `head` cites, whatever its span; None when they are all
        in error (the path does not parse, or cannot be evidence: the reason is worded from the whole resource)."""
        found: str | None = None
        path = head[len(SCHEME) :]
        if head.startswith(SCHEME) and not self.ignore and is_normal_path(path):  # most heads: checked inline
            found = self._paths[head] = path
            if path == self.wiki_dir or path.startswith(self._wiki_prefix):
                found = None  # `_file_problem` words it
        else:
            try:
                path = self._paths[head] = self._paths.get(head) or resource_path(head)
            except EvidenceResourceError:
                pass
            else:
                if not escapes(path) and self._file_problem(path) is None:
                    found = path
        self._head_paths[head] = found
        return found

    def _duplicates(self, wiki: Wiki) -> dict[tuple[str, str], str]:
        """(page, claim id) → why the id is in error: claim ids must be unique across the wiki."""
        counts = Counter(claim.id for page in wiki.pages for claim in (page.sidecar.claims if page.sidecar else ()))
        if len(counts) == counts.total():
            return {}  # the common case, told at C speed
        owners: dict[str, list[str]] = {}
        for page in wiki.pages:
            for claim in page.sidecar.claims if page.sidecar else ():
                if counts[claim.id] > 1:
                    owners.setdefault(claim.id, []).append(page.page)
        return {
            (page, claim_id): "claim id is also used on "
            + ", ".join(p for p in pages if p != page)
            + "; ids must be unique"
            for claim_id, pages in owners.items()
            if len(pages) > 1
            for page in pages
        }

    def select(self, wiki: Wiki, duplicates: dict[tuple[str, str], str]) -> tuple[Selection, int]:
        """What to re-check: everything, or (scoped) the claims citing a touched file, every claim of a page
        whose text or sidecar changed, and claims whose id clashes; and how many pages are left out."""
        chosen: Selection = []
        unaffected_pages = 0
        for page in wiki.pages:
            if page.skipped:
                unaffected_pages += 1
                continue
            claims = page.sidecar.claims if page.sidecar else ()
            whole = not self.scoped or page.page in self.touched_paths or page.sidecar_path in self.touched_paths
            if not whole:
                claims = tuple(self._affected(page.page, claims, duplicates))
            if page.sidecar is not None and not claims and not whole:
                unaffected_pages += 1
                continue
            chosen.append((page, claims))
        return chosen, unaffected_pages

    def deleted_citations(self, wiki: Wiki) -> list[str]:
        """The files the sweep of `wiki` cites that the change shows deleted: where they went, if anywhere, is what
        a source that left renames unlooked for (a partial clone lacking their blobs) is asked (`follow`)."""
        cited = self._plan(wiki).by_path
        return sorted(path for path in cited if (f := self.by_old.get(path)) is not None and f.new_path is None)

    def follow(self, change: Change) -> None:
        """Sweep through `change` instead: the same files, with renames found among them (so the same paths
        touched); nothing has been read through the first one yet."""
        assert self.change is not None and change.paths == self.touched_paths and not self._changed
        self.change = change
        self.by_old = {f.old_path: f for f in change.files if f.old_path}

    def reads(self, wiki: Wiki) -> list[tuple[Snapshot, list[str]]]:
        """Every file the sweep of `wiki` will read, per snapshot: the cited files at the head (but those whose
        every record the verdict cache answers), and when the change touched one of them, both sides of every
        file of the change (a span it deleted is looked for among the lines it added anywhere). Pure: a remote
        source fetches these before `run`."""
        cited = self._plan(wiki).by_path.keys()
        head = set(cited)
        base: set[str] = set()
        if self.change is not None and any(path in self.by_old for path in cited):
            head.update(f.new_path for f in self.change.files if f.new_path)
            # not the old side of a deleted file nothing cites: it added no line anywhere
            base.update(f.old_path for f in self.change.files if f.old_path and (f.new_path or f.old_path in cited))
        reads: list[tuple[Snapshot, list[str]]] = [(self.head, sorted(p for p in head if self.readable(self.head, p)))]
        if self.change is not None and base:
            reads.append((self.change.base, sorted(p for p in base if self.readable(self.change.base, p))))
        return reads

    def _plan(self, wiki: Wiki) -> _Plan:
        """What the sweep of `wiki` evaluates, and the results the verdict cache already holds (made once, for
        `reads` and `run` alike)."""
        if self._planned is None or self._planned.wiki is not wiki:
            duplicates = self._duplicates(wiki)
            chosen, unaffected_pages = self.select(wiki, duplicates)
            records = [record for _, claims in chosen for claim in claims for record in claim.evidence]
            results: list[EvidenceResult | None] = [None] * len(records)
            recalled = self._recall(chosen, records, results)
            by_path, cited = self._file(records, results)
            self._planned = _Plan(
                wiki, duplicates, chosen, unaffected_pages, records, results, recalled, by_path, cited
            )
        return self._planned

    def _file(
        self, records: list[EvidenceRecord], results: list[EvidenceResult | None]
    ) -> tuple[dict[str, list[_Filed]], list[str | None]]:
        """Each record not answered yet filed under the file it cites (its path parsed once per file, its span
        through the span parser's memo, no resource object made); a record in error answered with its error. Also
        the path each record cites, by index (None for one answered already or in error: `_remember` reuses it)."""
        by_path: dict[str, list[_Filed]] = {}
        cited: list[str | None] = [None] * len(records)
        head_paths, spans = self._head_paths, self._spans
        for index, record in enumerate(records):
            if results[index] is not None:
                continue
            # the file it cites through `_head_path`, its span through the span parser's memo (both memoised)
            head, sep, fragment = record.resource.partition("#")
            path = head_paths.get(head, _UNSEEN)
            if path is _UNSEEN:
                path = self._head_path(head)
            if path is not None and sep:
                parses = spans.get(fragment)
                if parses is None:
                    parses = spans[fragment] = _span_parses(fragment)
                if not parses:
                    path = None
            cited[index] = path
            if path is None:
                res = self.resource(record.resource)  # in error: worded from the whole resource
                if isinstance(res, Problem):
                    results[index] = EvidenceResult(
                        record.resource, record.version, Verdict.ERROR, None, error=res.message
                    )
                    continue
                path = res.path
            filed = by_path.get(path)
            if filed is None:
                filed = by_path[path] = []
            filed.append((index, record))
        return by_path, cited

    def sweep(self, wiki: Wiki | None = None) -> SweepReport:
        """Load the wiki (unless given, loaded by this sweeper) and evaluate it, the cyclic collector paused."""
        with cyclic_gc_paused():
            return self.run(wiki if wiki is not None else self.load())

    def run(self, wiki: Wiki) -> SweepReport:
        plan = self._plan(wiki)
        self._planned = None  # its results are filled in now: another run plans afresh
        chosen, results, recalled, by_path = plan.chosen, plan.results, plan.recalled, plan.by_path
        self._prefetch(by_path.keys())
        # File by file, so each file's text stays in the processor's cache while it is used.
        paths = sorted(by_path)
        parts = min(self.processes, sum(map(len, by_path.values())) // self.records_per_process)
        if parts > 1 and self.change is None:
            self._evaluate_forked(paths, by_path, results, parts)
        else:
            for path in paths:
                self._evaluate_file(path, by_path[path], results)
        if recalled is not None:
            self._remember(plan, recalled)
        pages = []
        position = 0
        for page, claims in chosen:
            count = sum(map(len, map(attrgetter("evidence"), claims)))
            pages.append(self._page(page, claims, plan.duplicates, results[position : position + count]))
            position += count
        return SweepReport(
            head=self.head.label,
            base=self.change.base.label if self.change else None,
            wiki_dir=self.wiki_dir,
            pages=tuple(pages),
            ungrounded_pages=tuple(wiki.ungrounded),
            unaffected_pages=plan.unaffected_pages,
        )

    # -- remembering (a full sweep: the evidence index and the verdict cache) -----------------

    def _recall(
        self, chosen: Selection, records: list[EvidenceRecord], results: list[EvidenceResult | None]
    ) -> list[_Recalled] | None:
        """On a full sweep with a verdict cache or an evidence index: each page's sidecar blob id, and the results
        the cache kept for records whose file still has the same blob id (`records`, the chosen claims' records in
        order), put in `results`."""
        if self.change is not None or (self.verdicts is None and self.index is None):
            return None
        cache = self._cache
        recalled: list[_Recalled] = []
        position = 0
        blob_id = self.head.blob_id
        standing = _StillStanding(blob_id)
        for page, claims in chosen:
            mine = records[position : position + sum(map(len, map(attrgetter("evidence"), claims)))]
            blob = blob_id(page.sidecar_path) if page.sidecar is not None else None
            kept = cache.page(blob) if cache is not None and blob is not None else None
            hits = bytearray(len(mine))
            if kept is not None and len(kept) == len(mine):
                valid = list(map(standing.__getitem__, kept.files))
                for i, result in enumerate(recall_page(kept, valid, mine)):
                    if result is not None:
                        results[position + i] = result
                        hits[i] = 1
            if kept is not None and not any(hits):
                assert cache is not None and blob is not None
                cache.release(blob)
                kept = None
            recalled.append(_Recalled(blob, kept, hits))
            position += len(mine)
        return recalled

    def _remember(self, plan: _Plan, recalled: list[_Recalled]) -> None:
        """Teach the evidence index what each new sidecar cites, and keep in the verdict cache every result
        evaluated from a file whose blob id is known (or recalled from it)."""
        files = _KeptFiles(self)  # one (path, blob id) per file, however many records cite it
        position = 0
        for (page, _), (blob, kept, hits) in zip(plan.chosen, recalled, strict=True):
            start, position = position, position + len(hits)
            if blob is None:
                continue
            known = self.index is None or blob in self.index
            if kept is not None and hits.count(0) == 0 and known:
                if self.verdicts is not None:
                    self.verdicts.keep(blob, kept)  # every result recalled: kept as it was
                continue
            paths = plan.cited[start:position]  # the paths `_file` found, reused: 134k records at 100k claims
            kept_files = [files[path] if path is not None else None for path in paths]
            if kept is not None:
                for i in compress(range(len(hits)), hits):  # recalled: the file the cache kept it from
                    file = kept_files[i] = kept.file_of(i)
                    paths[i] = file[0]
            if not known:
                assert self.index is not None
                self.index.learn(blob, self._cites(page, paths))
            if self.verdicts is not None:
                verdicts = PageBuilder()
                verdicts.add_all(kept_files, plan.results[start:position])
                self.verdicts.keep(blob, verdicts.build())

    def _cites(self, page: LoadedPage, paths: list[str | None]) -> frozenset[str] | None:
        """What the evidence index learns a sidecar cites: the paths its records cite, as the sweep filed them. A
        sidecar with a record the sweep refused (in error: ignored, in the wiki, a span or path that does not
        parse) is learnt from its bytes, as a diff-aware sweep learns a sidecar it reads (`_may_cite_change`):
        which sidecars a diff-aware sweep reads decides which claims in error it reports, so the two must agree."""
        if None not in paths:
            return frozenset(paths)  # type: ignore[arg-type] # no None in it
        try:
            return cited_paths(self.head.read(page.sidecar_path))
        except (UnreadableFileError, OSError, LookupError):
            # gone since it was loaded (a working tree edited meanwhile, a remote snapshot's blobs let go): what it
            # cites is not learnt wrong, only not learnt; every diff-aware sweep reads it anew
            return None

    def _prefetch(self, paths: Iterable[str]) -> None:
        """Tell the snapshots every file the sweep will read, so a local repository reads them in one batch."""
        touched = [self.by_old[p] for p in paths if p in self.by_old]
        self.head.prefetch(sorted({*paths, *(f.new_path for f in touched if f.new_path)}))
        if self.change is not None and touched:
            self.change.base.prefetch(sorted(f.old_path for f in touched if f.old_path))

    def _page(
        self,
        page: LoadedPage,
        chosen: tuple[Claim, ...],
        duplicates: dict[tuple[str, str], str],
        results: list[EvidenceResult | None],
    ) -> PageResult:
        """The page's result from its claims' evidence results, in the order of their records."""
        if page.sidecar is None:
            return PageResult(page.page, page.sidecar_path, page.error)
        claims = []
        position = 0
        make = tuple.__new__  # every field given: half the cost of ClaimResult(...), 100k times
        for claim in chosen:
            count = len(claim.evidence)
            evidence: tuple[EvidenceResult, ...] = tuple(results[position : position + count])  # type: ignore[arg-type]
            position += count
            error = duplicates.get((page.page, claim.id)) if duplicates else None
            if count == 1:
                verdict, touched = evidence[0].verdict, evidence[0].touched
            else:
                verdict, touched = worst([e.verdict for e in evidence]), any(e.touched for e in evidence)
            if error:
                verdict = Verdict.ERROR
            claims.append(make(ClaimResult, (claim.id, claim.statement, verdict, touched, evidence, error)))
        return PageResult(page.page, page.sidecar_path, None, tuple(claims))


class _Plan(NamedTuple):
    """A sweep's plan: the claims chosen, their records, the results recalled from the verdict cache or in error
    so far, and the other records filed by the file they cite."""

    wiki: Wiki
    duplicates: dict[tuple[str, str], str]
    chosen: Selection
    unaffected_pages: int
    records: list[EvidenceRecord]
    results: list[EvidenceResult | None]
    recalled: list[_Recalled] | None
    by_path: dict[str, list[_Filed]]  # the records to evaluate, by the file they cite
    cited: list[str | None]  # the file each record cites, by index (`_file`)


class _StillStanding(dict[tuple[str, str], bool]):
    """Whether a file a cache kept, (path, blob id), still has that blob id at the head: asked once per file, looked
    up at C speed for the 138k files the pages of a 100k-record cache list."""

    def __init__(self, blob_id: Callable[[str], str | None]) -> None:
        super().__init__()
        self.blob_id = blob_id

    def __missing__(self, file: tuple[str, str]) -> bool:
        same = self[file] = self.blob_id(file[0]) == file[1]
        return same


class _KeptFiles(dict[str, tuple[str, str] | None]):
    """Path → (path, blob id) of a file whose results the verdict cache may keep: one read (here or by a forked
    child) and known by its blob id; None for any other, decided once per file."""

    def __init__(self, sweeper: Sweeper) -> None:
        super().__init__()
        self._sweeper = sweeper
        self._texts = sweeper._texts[id(sweeper.head)]

    def __missing__(self, path: str) -> tuple[str, str] | None:
        read = type(self._texts.get(path)) is FileText or path in self._sweeper._read_elsewhere
        blob = self._sweeper.head.blob_id(path) if read else None
        file = self[path] = (path, blob) if blob is not None else None
        return file


class _Recalled(NamedTuple):
    """A page of a full sweep with memory: its sidecar's blob id, the verdicts the cache kept for it (when any
    were used) and which of its records took theirs from the cache."""

    blob: str | None
    kept: PageVerdicts | None
    hits: bytearray


_UNSEEN = "\0"  # not in the memo of files yet (None is an answer; a path holding a control character is refused)


def found_moved(data: bytes, offsets: Sequence[int], first: int, version: str) -> tuple[int, int] | None:
    """The lines (1-based, inclusive) of a canonical `version`'s text standing unchanged from line `first`
    (0-based) of the file `data` (its lines starting at `offsets`, then its end), when it stands nowhere else in
    the file: exactly what OpenWiki's `locateUnchangedLineRange` finds then (one span whose first line, last line
    and whole text hash as stored). None when not so; the general algorithm decides then.

    A whole sweep after text moved asks this of every record: one guess, where the file's last text found
    elsewhere says, checked with three hashes and two byte searches, instead of the general search's layers."""
    anchors = canonical_anchors(version)
    if anchors is None or first < 0:
        return None
    count, first_hash, last_hash = anchors
    if first + count >= len(offsets):
        return None
    begin, stop = offsets[first], offsets[first + count]
    text = data[begin:stop]
    if (
        sha256(text).hexdigest() != version[21:85]
        or sha256(data[begin : offsets[first + 1]]).hexdigest().encode() != first_hash
        or (count > 1 and sha256(data[offsets[first + count - 1] : stop]).hexdigest().encode() != last_hash)
        or data.find(text) != begin  # the same bytes earlier: OpenWiki finds several spans (or one elsewhere)
        or data.find(text, begin + 1) != -1  # or later
    ):
        return None
    return first + 1, first + count


def _span_parses(fragment: str) -> bool:
    """Whether a resource's fragment names lines (through the span parser's memo)."""
    try:
        resource_span(fragment)
    except EvidenceResourceError:
        return False
    return True


_OPENWIKI_EQUIVALENT = {
    Verdict.FRESH: OpenWikiVerdict.FRESH,
    Verdict.MOVED: OpenWikiVerdict.FRESH,
    Verdict.STALE: OpenWikiVerdict.STALE,
    Verdict.UNRESOLVED: OpenWikiVerdict.UNRESOLVED,
}


def _result(record: EvidenceRecord, tracked: Tracked, ow: OpenWikiVerdict) -> EvidenceResult:
    stale = tracked.verdict is Verdict.STALE
    gone = tracked.verdict is Verdict.UNRESOLVED
    return EvidenceResult(
        resource=record.resource,
        version=record.version,
        verdict=tracked.verdict,
        openwiki_verdict=ow,
        span=tracked.span,
        resource_now=tracked.resource,
        version_now=tracked.version,
        touched=tracked.diff_aware and tracked.verdict is not Verdict.FRESH,
        error=tracked.error,
        old_text=tracked.old_text if stale or gone else None,
        new_text=tracked.new_text if stale else None,
        anchor=tracked.anchor,
    )

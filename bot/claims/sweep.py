"""The sweep: every claim of the wiki against the head snapshot, through the change from a base if given.

Without a base, each evidence record is checked against its stored version (OpenWiki's algorithm, with
moved text re-anchored). With a base and the change's file list, evidence on touched files is carried
through the diff, and only pages the change can have affected are re-checked: cost follows the change.
Nothing here aborts the sweep: a bad sidecar, resource, symlink, binary or oversized file becomes an
`error` on its page or claim and the sweep goes on.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from .collation import collation_key
from .errors import EvidenceResourceError, SidecarError
from .ignore import IGNORE_FILE, IgnoreRules
from .locate import unchanged_at_hint
from .pages import (
    DEFAULT_WIKI_DIR,
    is_grounded_page,
    is_sidecar,
    normalize_wiki_dir,
    page_for,
)
from .resources import SCHEME, EvidenceResource, check_contained, parse_resource
from .results import ClaimResult, EvidenceResult, PageResult, SweepReport
from .sidecar import Claim, EvidenceRecord, Sidecar, parse_sidecar
from .snapshot import Kind, Snapshot
from .text import FileText
from .track import ChangedFile, Tracked, openwiki_verdict, reference_verdict, track
from .verdicts import OpenWikiVerdict, Verdict, worst
from .versions import file_version, lines_version

DEFAULT_MAX_FILE_BYTES = 1 << 20
_CITED_PATH = re.compile(rb'repo://([^"#\\]*)')


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file of a change: added (no old path), deleted (no new path), modified or renamed."""

    old_path: str | None
    new_path: str | None


@dataclass(frozen=True)
class Change:
    """The base snapshot and the files that differ between it and the head (renames detected)."""

    base: Snapshot
    files: tuple[FileChange, ...]

    @property
    def paths(self) -> set[str]:
        return {p for f in self.files for p in (f.old_path, f.new_path) if p}


@dataclass(frozen=True)
class SweepOptions:
    wiki_dir: str = DEFAULT_WIKI_DIR
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    recheck_all: bool = False  # with a change: re-check the claims it cannot have affected too


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
    snapshot: Snapshot, wiki_dir: str = DEFAULT_WIKI_DIR, wanted: Callable[[str, bytes], bool] | None = None
) -> Wiki:
    """Discover the grounded pages and read their sidecars strictly, in OpenWiki's page order.

    `wanted`, given a sidecar's path and bytes, may decline to parse it: a diff-aware sweep skips the
    sidecars that cannot cite anything the change touched.
    """
    wiki_dir = normalize_wiki_dir(wiki_dir)
    pages: set[str] = set()
    symlinked: set[str] = set()
    sidecars: list[tuple[str, Kind]] = []
    for path, entry in snapshot.walk(wiki_dir):
        if is_sidecar(path, wiki_dir):
            sidecars.append((path, entry.kind))
        elif is_grounded_page(path[len(wiki_dir) + 1 :]):
            (pages if entry.kind is Kind.FILE else symlinked).add(path)
    wiki = Wiki(wiki_dir)
    with_claims: set[str] = set()
    for sidecar_path, kind in sidecars:
        page = page_for(sidecar_path, wiki_dir)
        loaded = LoadedPage(page, sidecar_path)
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
        else:
            data = snapshot.read(sidecar_path)
            if wanted is not None and not wanted(sidecar_path, data):
                loaded.skipped = True
                with_claims.add(page)
            else:
                try:
                    loaded.sidecar = parse_sidecar(data, sidecar_path)
                    if loaded.sidecar.claims:
                        with_claims.add(page)
                except SidecarError as exc:
                    loaded.error = str(exc)
        wiki.pages.append(loaded)
    wiki.pages.sort(key=lambda p: collation_key(p.page))
    wiki.ungrounded = sorted(pages - with_claims, key=collation_key)
    return wiki


def sweep(head: Snapshot, change: Change | None = None, options: SweepOptions | None = None) -> SweepReport:
    """Evaluate every claim (or, with a change, every claim it can have affected) and report per page."""
    options = options or SweepOptions()
    with _cyclic_gc_paused():
        sweeper = Sweeper(head, change, options, normalize_wiki_dir(options.wiki_dir))
        return sweeper.run(sweeper.load())


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """A sweep allocates hundreds of thousands of small objects that never form cycles; left on, the
    cyclic collector traverses them over and over (a third of the time of a 100k-claim sweep)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _LazyFiles(Sequence[ChangedFile]):
    """The change's other files, read only if a deleted span has to be looked for elsewhere."""

    def __init__(self, sweeper: Sweeper, own: FileChange) -> None:
        self._sweeper = sweeper
        self._own = own
        self._items: list[ChangedFile] | None = None

    def _get(self) -> list[ChangedFile]:
        if self._items is None:
            self._items = [cf for f, cf in self._sweeper.changed_files() if f != self._own and cf.new is not None]
        return self._items

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return self._get()[index]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[ChangedFile]:
        return iter(self._get())


class Sweeper:
    """One sweep's state: file contents read once per snapshot, diffs computed once per changed file."""

    def __init__(self, head: Snapshot, change: Change | None, options: SweepOptions, wiki_dir: str) -> None:
        self.head = head
        self.change = change
        self.options = options
        self.wiki_dir = wiki_dir
        self._texts: dict[int, dict[str, FileText | str | None]] = {id(head): {}}
        self._head_texts = self._texts[id(head)]
        self._resources: dict[str, EvidenceResource | str] = {}
        self._canonical: dict[str, str] = {}
        self._path_problems: dict[str, str | None] = {}
        self._changed: dict[FileChange, ChangedFile] = {}
        self._all_changed: list[tuple[FileChange, ChangedFile]] | None = None
        self.by_old = {f.old_path: f for f in change.files if f.old_path} if change else {}
        self.touched_paths = change.paths if change else set()
        ignore = self.text(head, IGNORE_FILE)
        self.ignore = IgnoreRules(ignore.text if isinstance(ignore, FileText) else "")

    # -- reading -------------------------------------------------------------------------------

    def text(self, snapshot: Snapshot, path: str) -> FileText | str | None:
        """The file at `path` as text; an error message when it cannot be evidence; None when absent."""
        cache = self._texts.setdefault(id(snapshot), {})
        if path not in cache:
            cache[path] = self._read(snapshot, path)
        return cache[path]

    def _read(self, snapshot: Snapshot, path: str) -> FileText | str | None:
        entry = snapshot.entry(path)
        if entry is None or entry.kind in (Kind.DIRECTORY, Kind.OTHER):
            return None  # OpenWiki: not a regular file resolves to nothing
        if entry.kind is Kind.SYMLINK:
            return f"{path} is a symlink or lies under one; evidence must be a regular file"
        limit = self.options.max_file_bytes
        if entry.size is not None and entry.size > limit:
            return f"{path} is larger than the {limit}-byte limit ({entry.size} bytes)"
        data = snapshot.read(path)
        if len(data) > limit:
            return f"{path} is larger than the {limit}-byte limit ({len(data)} bytes)"
        text = FileText(data)
        if text.is_binary:
            return f"{path} is a binary file"
        return text

    def resource(self, stored: str) -> EvidenceResource | str:
        parsed = self._resources.get(stored)
        if parsed is None:
            try:
                res = parse_resource(stored)
                problem = self._path_problems.get(res.path, "")
                if problem == "":
                    problem = self._path_problems[res.path] = self._path_problem(res)
                parsed = problem or res
                if problem is None:
                    self._canonical[stored] = res.canonical
            except EvidenceResourceError as exc:
                parsed = str(exc)
            self._resources[stored] = parsed
        return parsed

    def _path_problem(self, res: EvidenceResource) -> str | None:
        """Why evidence on this path cannot be used (escape, the wiki itself, ignored), or None."""
        try:
            check_contained(res)
        except EvidenceResourceError as exc:
            return str(exc)
        if res.path == self.wiki_dir or res.path.startswith(self.wiki_dir + "/"):
            return f"evidence must be code, not the wiki itself: {res.path}"
        if self.ignore and self.ignore.ignored(res.path):
            return f"{res.path} is excluded by {IGNORE_FILE}"
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
            # One batch for each side: a remote snapshot fetches them together, not one by one.
            self.head.prefetch(sorted(f.new_path for f in self.change.files if f.new_path))
            self.change.base.prefetch(sorted(f.old_path for f in self.change.files if f.old_path))
            self._all_changed = [(f, self.changed_file(f)) for f in self.change.files]
        return self._all_changed

    # -- recording (hand-kept claims) ---------------------------------------------------------

    def _readable(self, resource: str) -> tuple[EvidenceResource, FileText]:
        res = self.resource(resource)
        if isinstance(res, str):
            raise EvidenceResourceError(res)
        text = self.text(self.head, res.path)
        if isinstance(text, str):
            raise EvidenceResourceError(text)
        if text is None:
            raise EvidenceResourceError(f"{res.path} does not exist (or is not a regular file) in {self.head.label}")
        return res, text

    def record(self, resource: str) -> EvidenceRecord:
        """New evidence for `resource` as it stands now (OpenWiki's `add`: resolved at the hint)."""
        res, text = self._readable(resource)
        if res.is_whole_file:
            return EvidenceRecord(res.canonical, file_version(text))
        if res.end > text.line_count:  # type: ignore[operator]
            raise EvidenceResourceError(f"{res.canonical}: {res.path} has only {text.line_count} lines")
        return EvidenceRecord(res.canonical, lines_version(text, res.start - 1, res.end))  # type: ignore[operator]

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
        res = self._resources.get(record.resource) or self.resource(record.resource)
        if type(res) is str:
            return EvidenceResult(record.resource, record.version, Verdict.ERROR, None, error=res)
        current = self._head_texts[res.path] if res.path in self._head_texts else self.text(self.head, res.path)
        change = self.by_old.get(res.path) if self.by_old else None
        hint_checked = False
        if change is None and res.start is not None and type(current) is FileText:
            if unchanged_at_hint(current, res.start - 1, res.end, record.version):  # type: ignore[arg-type]
                # The common case, answered without the general machinery: fresh where it says.
                span = (res.start, res.end)
                return EvidenceResult(
                    record.resource,
                    record.version,
                    Verdict.FRESH,
                    OpenWikiVerdict.FRESH,
                    span,
                    self._canonical[record.resource],
                    record.version,
                )
            hint_checked = True
        if change is not None:
            new = self.text(self.head, change.new_path) if change.new_path else None
            if isinstance(new, str):
                return self._error(record, res, new, touched=self._matched_base(res, record.version, change))
            tracked = track(res, record.version, self.changed_file(change), _LazyFiles(self, change))
        elif isinstance(current, str):
            return self._error(record, res, current, touched=False)
        else:
            # OpenWiki's algorithm on the same file: its verdict is this one, seen without moves.
            path = res.path if current else None
            tracked = reference_verdict(res, record.version, current, path, hint_checked=hint_checked)
            return _result(record, tracked, _OPENWIKI_EQUIVALENT[tracked.verdict])
        ow_text = current if isinstance(current, FileText) else None
        return _result(record, tracked, openwiki_verdict(res, record.version, ow_text))

    def _error(self, record: EvidenceRecord, res: EvidenceResource, error: str, touched: bool) -> EvidenceResult:
        current = self.text(self.head, res.path)
        ow = openwiki_verdict(res, record.version, current) if isinstance(current, FileText) else None
        return EvidenceResult(record.resource, record.version, Verdict.ERROR, ow, touched=touched, error=error)

    def _matched_base(self, res: EvidenceResource, version: str, change: FileChange) -> bool:
        """Whether the evidence was in order at the base, so the change is what broke it."""
        assert self.change is not None
        old = self.text(self.change.base, change.old_path) if change.old_path else None
        return isinstance(old, FileText) and reference_verdict(res, version, old, res.path).verdict is Verdict.FRESH

    @property
    def scoped(self) -> bool:
        """A diff-aware sweep re-checks only what the change can have affected."""
        return self.change is not None and not self.options.recheck_all and IGNORE_FILE not in self.touched_paths

    def load(self) -> Wiki:
        return load_wiki(self.head, self.wiki_dir, self._may_cite_change if self.scoped else None)

    def _may_cite_change(self, sidecar_path: str, data: bytes) -> bool:
        """Whether a sidecar can cite a file the change touched, decided on its bytes without parsing.

        Exact, not a guess: without a backslash (a JSON escape) in the file, every resource stands
        literally after `repo://`, so one scan finds every path it cites; a path that does not parse
        counts as citing (its claim must be reported).
        """
        touched = self.touched_paths
        if sidecar_path in touched or page_for(sidecar_path, self.wiki_dir) in touched or b"\\" in data:
            return True
        for raw in set(_CITED_PATH.findall(data)):
            try:
                path = raw.decode()
                # Anything that may not be normalised already (escapes, dot segments, empty ones) is parsed.
                if b"%" in raw or b"./" in raw or b"//" in raw or raw.startswith(b"/") or raw.endswith((b"/", b".")):
                    path = parse_resource(SCHEME + path).path
            except (UnicodeDecodeError, EvidenceResourceError):
                return True
            if path in touched:
                return True
        return False

    def _claim_affected(self, claim: Claim) -> bool:
        for record in claim.evidence:
            res = self.resource(record.resource)
            if type(res) is str or res.path in self.touched_paths:  # type: ignore[union-attr]
                return True
        return False

    def run(self, wiki: Wiki) -> SweepReport:
        owners: dict[str, list[str]] = {}
        for page in wiki.pages:
            for claim in page.sidecar.claims if page.sidecar else ():
                owners.setdefault(claim.id, []).append(page.page)
        duplicates = {
            (page, claim_id): "claim id is also used on "
            + ", ".join(p for p in pages if p != page)
            + "; ids must be unique"
            for claim_id, pages in owners.items()
            if len(pages) > 1
            for page in pages
        }
        # What to re-check: everything, or (scoped) the claims citing a touched file, every claim of a
        # page whose text or sidecar changed, and claims whose id clashes.
        chosen: list[tuple[LoadedPage, tuple[Claim, ...]]] = []
        unaffected_pages = 0
        for page in wiki.pages:
            if page.skipped:
                unaffected_pages += 1
                continue
            claims = page.sidecar.claims if page.sidecar else ()
            whole = not self.scoped or page.page in self.touched_paths or page.sidecar_path in self.touched_paths
            if not whole:
                claims = tuple(c for c in claims if (page.page, c.id) in duplicates or self._claim_affected(c))
            if page.sidecar is not None and not claims and not whole:
                unaffected_pages += 1
                continue
            chosen.append((page, claims))
        records = [record for _, claims in chosen for claim in claims for record in claim.evidence]
        self._prefetch(records)
        # Evaluate file by file, so each file's text stays in the processor's cache while it is used.
        by_file = sorted(records, key=self._record_path)
        evaluated = dict(zip(by_file, map(self.evaluate, by_file), strict=True))
        results = [self._page(page, claims, duplicates, evaluated) for page, claims in chosen]
        return SweepReport(
            head=self.head.label,
            base=self.change.base.label if self.change else None,
            wiki_dir=self.wiki_dir,
            pages=tuple(results),
            ungrounded_pages=tuple(wiki.ungrounded),
            unaffected_pages=unaffected_pages,
        )

    def _record_path(self, record: EvidenceRecord) -> str:
        res = self.resource(record.resource)
        return "" if type(res) is str else res.path  # type: ignore[union-attr]

    def _prefetch(self, records: list[EvidenceRecord]) -> None:
        """Tell the snapshots every file the sweep will read, so remote ones can batch the reads."""
        paths = {res.path for record in records if not isinstance(res := self.resource(record.resource), str)}
        touched = [self.by_old[p] for p in paths if p in self.by_old]
        self.head.prefetch(sorted(paths | {f.new_path for f in touched if f.new_path}))
        if self.change is not None and touched:
            self.change.base.prefetch(sorted(f.old_path for f in touched if f.old_path))

    def _page(
        self,
        page: LoadedPage,
        chosen: tuple[Claim, ...],
        duplicates: dict[tuple[str, str], str],
        evaluated: dict[EvidenceRecord, EvidenceResult],
    ) -> PageResult:
        if page.sidecar is None:
            return PageResult(page.page, page.sidecar_path, page.error)
        claims = []
        for claim in chosen:
            evidence = tuple(map(evaluated.__getitem__, claim.evidence))
            error = duplicates.get((page.page, claim.id)) if duplicates else None
            if error:
                verdict = Verdict.ERROR
            elif len(evidence) == 1:
                verdict = evidence[0].verdict
            else:
                verdict = worst([e.verdict for e in evidence])
            touched = any(e.touched for e in evidence)
            claims.append(ClaimResult(claim.id, claim.statement, verdict, touched, evidence, error))
        return PageResult(page.page, page.sidecar_path, None, tuple(claims))


_OPENWIKI_EQUIVALENT = {
    Verdict.FRESH: OpenWikiVerdict.FRESH,
    Verdict.MOVED: OpenWikiVerdict.FRESH,
    Verdict.STALE: OpenWikiVerdict.STALE,
    Verdict.UNRESOLVED: OpenWikiVerdict.UNRESOLVED,
}


def _result(record: EvidenceRecord, tracked: Tracked, ow: object) -> EvidenceResult:
    stale = tracked.verdict is Verdict.STALE
    gone = tracked.verdict is Verdict.UNRESOLVED
    return EvidenceResult(
        resource=record.resource,
        version=record.version,
        verdict=tracked.verdict,
        openwiki_verdict=ow,  # type: ignore[arg-type]
        span=tracked.span,
        resource_now=tracked.resource,
        version_now=tracked.version,
        touched=tracked.diff_aware and tracked.verdict is not Verdict.FRESH,
        error=tracked.error,
        old_text=tracked.old_text if stale or gone else None,
        new_text=tracked.new_text if stale else None,
        anchor=tracked.anchor,
    )

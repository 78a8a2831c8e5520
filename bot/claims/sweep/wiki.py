"""The wiki as a sweep loads it: the grounded pages and their sidecars read strictly, in OpenWiki's page order, and
which sidecars a sweep reads first (a pure question, asked before it runs, so a remote source can fetch them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..citations import EvidenceIndex
from ..collation import collation_key
from ..errors import SidecarError, UnreadableFileError
from ..ignore import IGNORE_FILE
from ..options import SweepOptions
from ..pages import DEFAULT_WIKI_DIR, is_grounded_page, is_sidecar, normalize_wiki_dir, page_for
from ..sidecar import Claim, Sidecar, parse_sidecar
from ..snapshot import Change, Entry, Kind, Snapshot

MAX_SIDECAR_BYTES = 16 << 20  # a sidecar of 10,000 claims is about 3 MB; anything far larger is not read


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


# What a sweep chose to re-check: each page with the claims of it to evaluate.
Selection = list[tuple[LoadedPage, tuple[Claim, ...]]]

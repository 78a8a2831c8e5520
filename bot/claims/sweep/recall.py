"""What a sweep remembers from earlier ones and teaches for later ones: the evidence index (which files each sidecar
cites, so a diff-aware sweep skips the sidecars that cannot cite the change) and the verdict cache (a full sweep's
results, recalled for records whose file is unchanged)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import attrgetter
from typing import NamedTuple

from ..citations import EvidenceIndex, cited_paths, may_cite
from ..errors import Problem, UnreadableFileError
from ..pages import page_for
from ..results import EvidenceResult
from ..sidecar import EvidenceRecord
from ..snapshot import Snapshot
from ..text import FileText
from ..verdict_cache import PageBuilder, PageVerdicts, VerdictCache, recall_page
from .wiki import LoadedPage, Selection, Wiki, cannot_cite


class Recall:
    """A sweep's memory of `head`: the evidence `index` and the `verdicts` kept under `context` (either may be
    None: nothing remembered of that kind)."""

    def __init__(
        self,
        head: Snapshot,
        wiki_dir: str,
        touched_paths: set[str],
        index: EvidenceIndex | None,
        verdicts: VerdictCache | None,
        context: str,
    ) -> None:
        self.head = head
        self.wiki_dir = wiki_dir
        self.touched_paths = touched_paths
        self.index = index  # which files each sidecar cites: read to skip sidecars, and taught what is new
        self.verdicts = verdicts  # a full sweep's results kept from earlier sweeps
        self.context = context

    def learn_parsed(self, wiki: Wiki) -> None:
        """What parsed without error parses so again: the index keeps it."""
        if self.index is None:
            return
        blob_id = self.head.blob_id
        for page in wiki.pages:
            if page.sidecar is not None and (blob := blob_id(page.sidecar_path)) is not None:
                self.index.learn_parsed(blob)

    @property
    def cache(self) -> VerdictCache | None:
        """The verdict cache, when it was kept under this sweep's context (else none of it is used)."""
        cache = self.verdicts
        return cache if cache is not None and cache.context == self.context else None

    def read_before(self, cache: VerdictCache | None, sidecar_path: str) -> bool:
        """Whether a sweep parsed this sidecar's very bytes without error: the evidence index says so, or the
        verdict cache holds its page (kept only for a sidecar a sweep read, under this engine's context)."""
        blob = self.head.blob_id(sidecar_path)
        if blob is None:
            return False
        return (self.index is not None and self.index.parsed(blob)) or (
            cache is not None and cache.page(blob) is not None
        )

    def cannot_cite_change(self, sidecar_path: str) -> bool:
        return cannot_cite(self.head, sidecar_path, self.wiki_dir, self.touched_paths, self.index or EvidenceIndex())

    def may_cite_change(self, sidecar_path: str, data: bytes) -> bool:
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

    def recall(
        self, chosen: Selection, records: list[EvidenceRecord], results: list[EvidenceResult | None]
    ) -> list[Recalled] | None:
        """On a full sweep (never asked of another) with a verdict cache or an evidence index: each page's sidecar
        blob id, and the results the cache kept for records whose file still has the same blob id (`records`, the
        chosen claims' records in order), put in `results`."""
        if self.verdicts is None and self.index is None:
            return None
        cache = self.cache
        recalled: list[Recalled] = []
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
            recalled.append(Recalled(blob, kept, hits))
            position += len(mine)
        return recalled

    def remember(
        self,
        chosen: Selection,
        cited: list[str | None],
        results: list[EvidenceResult | None],
        recalled: list[Recalled],
        files: dict[str, tuple[str, str] | None],
    ) -> None:
        """Teach the evidence index what each new sidecar cites, and keep in the verdict cache every result
        evaluated from a file whose blob id is known (or recalled from it)."""
        position = 0
        for (page, _), (blob, kept, hits) in zip(chosen, recalled, strict=True):
            start, position = position, position + len(hits)
            if blob is None:
                continue
            known = self.index is None or blob in self.index
            if kept is not None and hits.count(0) == 0 and known:
                if self.verdicts is not None:
                    self.verdicts.keep(blob, kept)  # every result recalled: kept as it was
                continue
            paths = cited[start:position]  # the paths the planner filed, reused: 134k at 100k claims
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
                verdicts.add_all(kept_files, results[start:position])
                self.verdicts.keep(blob, verdicts.build())

    def _cites(self, page: LoadedPage, paths: list[str | None]) -> frozenset[str] | None:
        """What the evidence index learns a sidecar cites: the paths its records cite, as the sweep filed them. A
        sidecar with a record the sweep refused (in error: ignored, in the wiki, a span or path that does not
        parse) is learnt from its bytes, as a diff-aware sweep learns a sidecar it reads (`may_cite_change`):
        which sidecars a diff-aware sweep reads decides which claims in error it reports, so the two must agree."""
        if None not in paths:
            return frozenset(paths)  # type: ignore[arg-type] # no None in it
        try:
            return cited_paths(self.head.read(page.sidecar_path))
        except (UnreadableFileError, OSError, LookupError):
            # gone since it was loaded (a working tree edited meanwhile, a remote snapshot's blobs let go): what it
            # cites is not learnt wrong, only not learnt; every diff-aware sweep reads it anew
            return None


class _StillStanding(dict[tuple[str, str], bool]):
    """Whether a file a cache kept, (path, blob id), still has that blob id at the head: asked once per file, looked
    up at C speed for the 138k files the pages of a 100k-record cache list."""

    def __init__(self, blob_id: Callable[[str], str | None]) -> None:
        super().__init__()
        self.blob_id = blob_id

    def __missing__(self, file: tuple[str, str]) -> bool:
        same = self[file] = self.blob_id(file[0]) == file[1]
        return same


class KeptFiles(dict[str, tuple[str, str] | None]):
    """Path → (path, blob id) of a file whose results the verdict cache may keep: one read (here or by a forked
    child) and known by its blob id; None for any other, decided once per file."""

    def __init__(self, head: Snapshot, texts: dict[str, FileText | Problem | None], elsewhere: set[str]) -> None:
        super().__init__()
        self._blob_id = head.blob_id
        self._texts = texts
        self._elsewhere = elsewhere

    def __missing__(self, path: str) -> tuple[str, str] | None:
        read = type(self._texts.get(path)) is FileText or path in self._elsewhere
        blob = self._blob_id(path) if read else None
        file = self[path] = (path, blob) if blob is not None else None
        return file


class Recalled(NamedTuple):
    """A page of a full sweep with memory: its sidecar's blob id, the verdicts the cache kept for it (when any
    were used) and which of its records took theirs from the cache."""

    blob: str | None
    kept: PageVerdicts | None
    hits: bytearray

"""The read planner: which claims a sweep re-checks, their records filed by the file they cite, and so which files it
will read (a pure question, asked before the sweep runs, so a remote source can fetch them in a few batches)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import NamedTuple

from ..errors import Problem
from ..options import SweepOptions
from ..results import EvidenceResult
from ..sidecar import Claim, EvidenceRecord
from ..snapshot import Snapshot
from ..verdicts import Verdict
from .evaluator import Evaluator, Filed
from .reader import UNSEEN, SnapshotReader, span_parses
from .recall import Recalled
from .wiki import Selection, Wiki, is_scoped

# Recall from memory: the chosen pages, their records and the results so far → what was recalled (None: nothing)
RecallResults = Callable[[Selection, list[EvidenceRecord], list[EvidenceResult | None]], list[Recalled] | None]


class Plan(NamedTuple):
    """A sweep's plan: the claims chosen, their records, the results recalled from the verdict cache or in error
    so far, and the other records filed by the file they cite."""

    wiki: Wiki
    duplicates: dict[tuple[str, str], str]
    chosen: Selection
    unaffected_pages: int
    records: list[EvidenceRecord]
    results: list[EvidenceResult | None]
    recalled: list[Recalled] | None
    by_path: dict[str, list[Filed]]  # the records to evaluate, by the file they cite
    cited: list[str | None]  # the file each record cites, by index (`ReadPlanner.file`)


class ReadPlanner:
    """What a sweep of a wiki evaluates, read through `reader`, through the change `evaluator` follows; the results
    `recall` holds already are filled in (made once per wiki, for `reads` and the sweep alike)."""

    def __init__(
        self, reader: SnapshotReader, evaluator: Evaluator, options: SweepOptions, recall: RecallResults
    ) -> None:
        self.reader = reader
        self.evaluator = evaluator
        self.options = options
        self.recall = recall
        self.planned: Plan | None = None

    @property
    def scoped(self) -> bool:
        """A diff-aware sweep re-checks only what the change can have affected."""
        return is_scoped(self.evaluator.change, self.options)

    def _affected(self, page: str, claims: tuple[Claim, ...], duplicates: dict[tuple[str, str], str]) -> list[Claim]:
        """The claims of a page with a record in error or citing a touched file, or whose id clashes. Decided per
        file (a resource's part before `#`, however many ranges name it) and per span (both memoised): a
        diff-aware sweep asks this of every record of the sidecars it read, and re-checks only a few."""
        reader = self.reader
        touched, head_paths, spans = self.evaluator.touched_paths, reader.head_paths, reader.spans
        affected = []
        for claim in claims:
            for record in claim.evidence:
                head, sep, fragment = record.resource.partition("#")
                path = head_paths.get(head, UNSEEN)
                if path is UNSEEN:
                    path = reader.head_path(head)
                if path is None or path in touched:
                    break
                if sep:
                    parses = spans.get(fragment)
                    if parses is None:
                        parses = spans[fragment] = span_parses(fragment)
                    if not parses:
                        break
            else:
                if (page, claim.id) not in duplicates:
                    continue
            affected.append(claim)
        return affected

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
            whole = (
                not self.scoped
                or page.page in self.evaluator.touched_paths
                or page.sidecar_path in self.evaluator.touched_paths
            )
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
        cited = self.plan(wiki).by_path
        return sorted(
            path for path in cited if (f := self.evaluator.by_old.get(path)) is not None and f.new_path is None
        )

    def reads(self, wiki: Wiki) -> list[tuple[Snapshot, list[str]]]:
        """Every file the sweep of `wiki` will read, per snapshot: the cited files at the head (but those whose
        every record the verdict cache answers), and when the change touched one of them, both sides of every
        file of the change (a span it deleted is looked for among the lines it added anywhere). Pure: a remote
        source fetches these before `run`."""
        cited = self.plan(wiki).by_path.keys()
        change, readable, snapshot = self.evaluator.change, self.reader.readable, self.reader.snapshot
        head = set(cited)
        base: set[str] = set()
        if change is not None and any(path in self.evaluator.by_old for path in cited):
            head.update(f.new_path for f in change.files if f.new_path)
            # not the old side of a deleted file nothing cites: it added no line anywhere
            base.update(f.old_path for f in change.files if f.old_path and (f.new_path or f.old_path in cited))
        reads: list[tuple[Snapshot, list[str]]] = [(snapshot, sorted(p for p in head if readable(snapshot, p)))]
        if change is not None and base:
            reads.append((change.base, sorted(p for p in base if readable(change.base, p))))
        return reads

    def plan(self, wiki: Wiki) -> Plan:
        """What the sweep of `wiki` evaluates, and the results the verdict cache already holds (made once, for
        `reads` and `run` alike)."""
        if self.planned is None or self.planned.wiki is not wiki:
            duplicates = self._duplicates(wiki)
            chosen, unaffected_pages = self.select(wiki, duplicates)
            records = [record for _, claims in chosen for claim in claims for record in claim.evidence]
            results: list[EvidenceResult | None] = [None] * len(records)
            recalled = self.recall(chosen, records, results) if self.evaluator.change is None else None
            by_path, cited = self.file(records, results)
            self.planned = Plan(wiki, duplicates, chosen, unaffected_pages, records, results, recalled, by_path, cited)
        return self.planned

    def file(
        self, records: list[EvidenceRecord], results: list[EvidenceResult | None]
    ) -> tuple[dict[str, list[Filed]], list[str | None]]:
        """Each record not answered yet filed under the file it cites (its path parsed once per file, its span
        through the span parser's memo, no resource object made); a record in error answered with its error. Also
        the path each record cites, by index (None for one answered already or in error): `Recall.remember` reuses
        it."""
        by_path: dict[str, list[Filed]] = {}
        cited: list[str | None] = [None] * len(records)
        reader = self.reader
        head_paths, spans = reader.head_paths, reader.spans
        for index, record in enumerate(records):
            if results[index] is not None:
                continue
            # the file it cites through `head_path`, its span through the span parser's memo (both memoised)
            head, sep, fragment = record.resource.partition("#")
            path = head_paths.get(head, UNSEEN)
            if path is UNSEEN:
                path = reader.head_path(head)
            if path is not None and sep:
                parses = spans.get(fragment)
                if parses is None:
                    parses = spans[fragment] = span_parses(fragment)
                if not parses:
                    path = None
            cited[index] = path
            if path is None:
                res = reader.resource(record.resource)  # in error: worded from the whole resource
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

    def prefetch(self, paths: Iterable[str]) -> None:
        """Tell the snapshots every file the sweep will read, so a local repository reads them in one batch."""
        touched = [self.evaluator.by_old[p] for p in paths if p in self.evaluator.by_old]
        self.reader.snapshot.prefetch(sorted({*paths, *(f.new_path for f in touched if f.new_path)}))
        if self.evaluator.change is not None and touched:
            self.evaluator.change.base.prefetch(sorted(f.old_path for f in touched if f.old_path))

"""The sweep, composed: a reader of the head, an evaluator through the change, a read planner, the memory of earlier
sweeps, and the processes it is handed (`Parallel`). It only computes: the collector's policy and any other process
come from the `Parallel` it is given (by default none, the collector left alone)."""

from __future__ import annotations

from functools import partial
from operator import attrgetter

from ..citations import EvidenceIndex
from ..options import SweepOptions
from ..parallel import SERIAL, Parallel
from ..results import ClaimResult, EvidenceResult, PageResult, SweepReport
from ..sidecar import Claim
from ..snapshot import Change, Snapshot
from ..verdict_cache import VerdictCache, sweep_context
from ..verdicts import Verdict, worst
from .evaluator import Evaluator
from .planner import ReadPlanner
from .reader import SnapshotReader
from .recall import KeptFiles, Recall
from .shared import RECORDS_PER_PROCESS, SharedEvaluation
from .wiki import LoadedPage, Wiki, load_wiki


def sweep(
    head: Snapshot, change: Change | None = None, options: SweepOptions | None = None, wiki: Wiki | None = None
) -> SweepReport:
    """Evaluate every claim (or, with a change, every claim it can have affected) and report per page."""
    return Sweeper(head, change, options or SweepOptions()).sweep(wiki)


class Sweeper:
    """One sweep: file contents read once per snapshot (`reader`), diffs computed once per changed file
    (`evaluator`), what to evaluate planned once per wiki (`planner`), what earlier sweeps left used (`memory`)."""

    def __init__(
        self,
        head: Snapshot,
        change: Change | None,
        options: SweepOptions,
        *,
        index: EvidenceIndex | None = None,
        verdicts: VerdictCache | None = None,
        parallel: Parallel = SERIAL,
    ) -> None:
        self.head = head
        self.options = options
        self.parallel = parallel  # a large full sweep's files are shared among its processes (`SharedEvaluation`)
        self.records_per_process = RECORDS_PER_PROCESS
        self.reader = SnapshotReader(head, options)
        self.wiki_dir = self.reader.wiki_dir
        self.evaluator = Evaluator(self.reader, change)
        context = sweep_context(self.wiki_dir, options.max_file_bytes, self.reader.ignore_text)
        self.memory = Recall(head, self.wiki_dir, self.evaluator.touched_paths, index, verdicts, context)
        self.planner = ReadPlanner(self.reader, self.evaluator, options, self.memory.recall)

    @property
    def change(self) -> Change | None:
        return self.evaluator.change

    @property
    def index(self) -> EvidenceIndex | None:
        """Which files each sidecar cites: read to skip sidecars, and taught what is new."""
        return self.memory.index

    @property
    def verdicts(self) -> VerdictCache | None:
        """A full sweep's results kept from earlier sweeps (used when kept under `verdict_context`)."""
        return self.memory.verdicts

    @verdicts.setter
    def verdicts(self, verdicts: VerdictCache | None) -> None:
        self.memory.verdicts = verdicts

    @property
    def verdict_context(self) -> str:
        """The context the verdict cache must have been written under for this sweep to use it."""
        return self.memory.context

    def load(self) -> Wiki:
        """The wiki's sidecars read and parsed (a 100k-claim wiki is half a million objects: the collector quiet).
        A diff-aware sweep reads no sidecar the evidence index shows cannot cite the change, and parses none its
        bytes show cannot."""
        memory = self.memory
        if not self.planner.scoped:
            wanted = unread = None
        else:
            wanted = memory.may_cite_change
            unread = memory.cannot_cite_change if memory.index else None
        with self.parallel.quiet():
            cache = memory.cache
            read_before = partial(memory.read_before, cache) if cache or memory.index is not None else None
            wiki = load_wiki(self.head, self.wiki_dir, wanted, unread, read_before)
        memory.learn_parsed(wiki)
        return wiki

    def reads(self, wiki: Wiki) -> list[tuple[Snapshot, list[str]]]:
        """Every file the sweep of `wiki` will read, per snapshot (`ReadPlanner.reads`): pure, asked before `run`."""
        return self.planner.reads(wiki)

    def deleted_citations(self, wiki: Wiki) -> list[str]:
        """The files the sweep of `wiki` cites that the change shows deleted (`ReadPlanner.deleted_citations`)."""
        return self.planner.deleted_citations(wiki)

    def follow(self, change: Change) -> None:
        """Sweep through `change` instead: the same files, with renames found among them (so the same paths
        touched); nothing has been read through the first one yet."""
        self.evaluator.follow(change)

    def sweep(self, wiki: Wiki | None = None) -> SweepReport:
        """Load the wiki (unless given, loaded by this sweeper) and evaluate it, the collector quiet."""
        with self.parallel.quiet():
            return self.run(wiki if wiki is not None else self.load())

    def run(self, wiki: Wiki) -> SweepReport:
        plan = self.planner.plan(wiki)
        self.planner.planned = None  # its results are filled in now: another run plans afresh
        chosen, results, recalled, by_path = plan.chosen, plan.results, plan.recalled, plan.by_path
        self.planner.prefetch(by_path.keys())
        # File by file, so each file's text stays in the processor's cache while it is used.
        paths = sorted(by_path)
        parts = min(self.parallel.processes, sum(map(len, by_path.values())) // self.records_per_process)
        if parts > 1 and self.change is None:
            SharedEvaluation(self.evaluator, self.parallel).evaluate(paths, by_path, results, parts)
        else:
            evaluate_file = self.evaluator.evaluate_file
            for path in paths:
                evaluate_file(path, by_path[path], results)
        if recalled is not None:
            texts = self.reader.texts[id(self.head)]
            kept = KeptFiles(self.head, texts, self.evaluator.read_elsewhere)
            self.memory.remember(chosen, plan.cited, results, recalled, kept)
        pages = []
        position = 0
        for page, claims in chosen:
            count = sum(map(len, map(attrgetter("evidence"), claims)))
            pages.append(page_result(page, claims, plan.duplicates, results[position : position + count]))
            position += count
        return SweepReport(
            head=self.head.label,
            base=self.change.base.label if self.change else None,
            wiki_dir=self.wiki_dir,
            pages=tuple(pages),
            ungrounded_pages=tuple(wiki.ungrounded),
            unaffected_pages=plan.unaffected_pages,
        )


def page_result(
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

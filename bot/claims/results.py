"""What a sweep found: per evidence record, per claim, per page, and for the whole wiki."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from operator import itemgetter
from typing import NamedTuple

from .verdicts import OpenWikiVerdict, Verdict


class EvidenceResult(NamedTuple):
    resource: str  # as stored in the sidecar
    version: str  # as stored in the sidecar
    verdict: Verdict
    openwiki_verdict: OpenWikiVerdict | None  # None when the evidence could not be evaluated at all
    span: tuple[int, int] | None = None  # current 1-based inclusive lines, at resource_now's path
    resource_now: str | None = None  # where the evidence stands now; differs from `resource` when re-anchored
    version_now: str | None = None  # the version to store with resource_now
    touched: bool = False  # this change altered evidence that matched the base commit
    error: str | None = None
    old_text: str | None = None  # stale (or unresolved) evidence: the recorded text ...
    new_text: str | None = None  # ... and what stands in its place now
    anchor: tuple[str, int] | None = None  # unresolved evidence: (path, line) where its text stood


class ClaimResult(NamedTuple):
    """A claim's result (a tuple, as a wiki holds 100k of them: a frozen dataclass costs five times as much to make)."""

    id: str
    statement: str
    verdict: Verdict  # the worst of its evidence
    touched: bool  # the change altered at least one of its evidence records
    evidence: tuple[EvidenceResult, ...]
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PageResult:
    page: str
    sidecar: str
    error: str | None = None  # the sidecar could not be used: none of its claims were evaluated
    claims: tuple[ClaimResult, ...] = ()


class BrokenReference(NamedTuple):
    """A code span or link of a page naming what is gone: a definition or file the change removed or renamed, or
    (a full sweep) a path that does not exist. It fails the check only when it is certain (`attention`); else it
    is a note, and `note` says why."""

    page: str
    line: int  # the page line the mention stands on
    text: str  # the span or link, as written
    target: str  # what it named: a definition's qualified name, or a path
    path: str  # the file the target was in (the path itself when the target is a path)
    what: str  # "removed", "renamed" or "missing" (no such path)
    renamed_to: str | None = None  # the new qualified name or path, when renamed
    at: tuple[str, int] | None = None  # where the head shows it: the renamed or emptied file and line
    kind: str = "code"  # how the page names it: a code span ("code") or a link ("link")
    attention: bool = True  # it fails the check; False: a note (`note` says why it does not)
    note: str | None = None


class PageCoverage(NamedTuple):
    """How much of a page its claims ground: its claims, its blocks of prose, and those holding a claim's quote."""

    page: str
    claims: int
    paragraphs: int
    grounded: int


@dataclass(frozen=True, repr=False)
class SweepReport:
    head: str
    base: str | None
    wiki_dir: str
    pages: tuple[PageResult, ...]
    ungrounded_pages: tuple[str, ...] = ()
    unaffected_pages: int = 0  # diff-aware sweep: pages citing nothing the change touched, not re-checked
    broken_references: tuple[BrokenReference, ...] = ()
    coverage: tuple[PageCoverage, ...] = ()  # every page's, when the check measured it
    skipped_pages: tuple[tuple[str, str], ...] = ()  # (page, why) pages the check could not read: too large
    referencing_pages: int = 0  # pages whose references (code spans and links) the check read
    summary: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        # Counted at C speed: a wiki's every claim, one verdict and one flag each (a loop reading `.value` was slower).
        claims = list(chain.from_iterable(page.claims for page in self.pages))
        by_verdict = Counter(map(itemgetter(2), claims))
        touched = sum(map(itemgetter(3), claims))
        summary = {v.value: by_verdict[v] for v in Verdict}
        summary.update(
            claims=len(claims),
            touched=touched,
            pages=len(self.pages),
            page_errors=sum(1 for p in self.pages if p.error),
            ungrounded_pages=len(self.ungrounded_pages),
            unaffected_pages=self.unaffected_pages,
            broken_references=sum(1 for ref in self.broken_references if ref.attention),
            reference_notes=sum(1 for ref in self.broken_references if not ref.attention),
        )
        object.__setattr__(self, "summary", summary)

    def __repr__(self) -> str:
        # Not every claim: asyncio.run (3.11) formats its main task's result while restoring the SIGINT handler,
        # and a 100k-claim report's full repr cost seconds of every check.
        return (
            f"SweepReport(head={self.head!r}, base={self.base!r}, wiki_dir={self.wiki_dir!r}, summary={self.summary})"
        )

    @property
    def mode(self) -> str:
        return "full" if self.base is None else "diff"

    @cached_property
    def needs_attention(self) -> bool:
        """True when any claim is stale, unresolved or in error, a page could not be read, or a page names code
        that is gone for certain (a broken reference that is only a note does not count)."""
        summary = self.summary  # counted already: no second pass over 100k claims
        return bool(summary["broken_references"] or summary["page_errors"]) or any(
            summary[verdict.value] for verdict in Verdict if verdict.needs_attention
        )

    def claims(self) -> list[tuple[PageResult, ClaimResult]]:
        return [(page, claim) for page in self.pages for claim in page.claims]

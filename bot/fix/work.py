"""What a fix has to do, read off a sweep: per page, the claims to re-anchor and the claims to decide."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..claims.results import ClaimResult, PageResult, SweepReport
from ..claims.sidecar import Claim, Sidecar, parse_sidecar
from ..claims.verdicts import Verdict
from ..okf.frontmatter import FrontMatterError, Page

REANCHOR = (Verdict.MOVED, Verdict.COSMETIC)  # re-anchored without a model


@dataclass
class ClaimWork:
    claim: Claim
    result: ClaimResult

    @property
    def decidable(self) -> bool:
        """Stale or unresolved evidence can be decided (by the agent); an error cannot."""
        return self.result.verdict in (Verdict.STALE, Verdict.UNRESOLVED)


@dataclass
class PageWork:
    page: str
    sidecar_path: str
    sidecar: Sidecar
    text: str  # the page as it is
    results: dict[str, ClaimResult] = field(default_factory=dict)  # every claim the sweep evaluated, by id
    to_decide: list[ClaimWork] = field(default_factory=list)  # claims the change made stale or unresolved
    errors: list[ClaimWork] = field(default_factory=list)  # claims in error: reported, not decided
    over_cap: list[ClaimWork] = field(default_factory=list)  # left for a later run (claims-per-run cap)
    problem: str | None = None  # why the page's text cannot be edited (not UTF-8, unreadable front matter)
    data: bytes = b""  # the page's bytes as they are

    @property
    def has_work(self) -> bool:
        reanchor = any(r.verdict in REANCHOR for r in self.results.values())
        return bool(self.to_decide or self.errors or self.over_cap or reanchor)


def _wanted(report: SweepReport, result: ClaimResult) -> bool:
    """With a base, the claims the change touched that need attention; without one, every claim that does."""
    return result.verdict.needs_attention and (report.base is None or result.touched)


def pages_with_work(report: SweepReport) -> list[PageResult]:
    """The pages a fix will open: some claim to re-anchor or to decide (their files must be readable)."""
    return [
        page
        for page in report.pages
        if not page.error and any(c.verdict in REANCHOR or _wanted(report, c) for c in page.claims)
    ]


def _page_text(data: bytes) -> tuple[str, str | None]:
    """The page's text, and why it cannot be edited safely, if it cannot."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", "replace"), f"the page is not UTF-8 ({exc.reason} at byte {exc.start})"
    try:
        Page.parse(text).fields()
    except FrontMatterError as exc:
        return text, f"the page's front matter cannot be read ({exc})"
    return text, None


def plan_work(report: SweepReport, read: Callable[[str], bytes], cap: int) -> list[PageWork]:
    """The pages to work on, their sidecars and text read through `read`. At most `cap` claims are decided
    in one run; the rest wait, counted."""
    work: list[PageWork] = []
    decided = 0
    for page_result in pages_with_work(report):
        sidecar = parse_sidecar(read(page_result.sidecar), page_result.sidecar)
        stored = {c.id: c for c in sidecar.claims}
        data = read(page_result.page)
        text, problem = _page_text(data)
        item = PageWork(page_result.page, page_result.sidecar, sidecar, text, problem=problem, data=data)
        for result in page_result.claims:
            claim = stored.get(result.id)
            if claim is None:
                continue
            item.results[result.id] = result
            if not _wanted(report, result):
                continue
            claim_work = ClaimWork(claim, result)
            if not claim_work.decidable:
                item.errors.append(claim_work)
            elif decided < cap:
                item.to_decide.append(claim_work)
                decided += 1
            else:
                item.over_cap.append(claim_work)
        if item.has_work:
            work.append(item)
    return work

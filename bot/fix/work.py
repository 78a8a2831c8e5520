"""What a fix has to do, read off a sweep: per page, the claims to re-anchor, the claims to decide, and
everything else the check says needs attention, so the fix reports all of it too."""

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
    carried: list[ClaimWork] = field(default_factory=list)  # stale before the change: reported, not decided
    problem: str | None = None  # why the page's text cannot be edited (not UTF-8, unreadable front matter)
    data: bytes = b""  # the page's bytes as they are

    @property
    def has_work(self) -> bool:
        reanchor = any(r.verdict in REANCHOR for r in self.results.values())
        return bool(self.to_decide or self.errors or self.over_cap or self.carried or reanchor)


def _wanted(report: SweepReport, result: ClaimResult, decide_all: bool) -> bool:
    """The claims to decide: with a base, those the change made stale (unless `decide_all`); without one, every
    claim that needs attention."""
    return result.verdict.needs_attention and (decide_all or report.base is None or result.touched)


def pages_with_work(report: SweepReport) -> list[PageResult]:
    """The pages a fix will open: some claim to re-anchor, or that needs attention (to decide or to report);
    their files must be readable."""
    return [
        page
        for page in report.pages
        if not page.error and any(c.verdict in REANCHOR or c.verdict.needs_attention for c in page.claims)
    ]


def page_errors(report: SweepReport) -> list[tuple[str, str]]:
    """(page, why) for every page whose sidecar the check could not use: none of its claims was checked, so a
    fix must say so as the check does."""
    return [(page.page, page.error) for page in report.pages if page.error]


def page_text(data: bytes) -> tuple[str, str | None]:
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


def plan_work(
    report: SweepReport, read: Callable[[str], bytes], cap: int, *, decide_all: bool = False
) -> list[PageWork]:
    """The pages to work on, their sidecars and text read through `read`. At most `cap` claims are decided
    in one run; the rest wait, counted. Claims in error, and (with a base, unless `decide_all`) claims that
    needed attention before the change, are not decided but reported."""
    work: list[PageWork] = []
    decided = 0
    for page_result in pages_with_work(report):
        sidecar = parse_sidecar(read(page_result.sidecar), page_result.sidecar)
        stored = {c.id: c for c in sidecar.claims}
        data = read(page_result.page)
        text, problem = page_text(data)
        item = PageWork(page_result.page, page_result.sidecar, sidecar, text, problem=problem, data=data)
        for result in page_result.claims:
            claim = stored.get(result.id)
            if claim is None:
                continue
            item.results[result.id] = result
            if not result.verdict.needs_attention:
                continue
            claim_work = ClaimWork(claim, result)
            if not claim_work.decidable:
                item.errors.append(claim_work)
            elif not _wanted(report, result, decide_all):
                item.carried.append(claim_work)
            elif decided < cap:
                item.to_decide.append(claim_work)
                decided += 1
            else:
                item.over_cap.append(claim_work)
        if item.has_work:
            work.append(item)
    return work

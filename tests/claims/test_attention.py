"""What needs attention: the `--attention-only` filter over every format, and the findings CI annotates (their
rule, level, place and fingerprint)."""

from __future__ import annotations

import json

import pytest
from citools import demo_reports

from bot.claims.attention import Place, attention_only, findings
from bot.claims.report import FORMATS, render, render_markdown, render_text, report_json
from bot.claims.results import BrokenReference, ClaimResult, EvidenceResult, PageCoverage, PageResult, SweepReport
from bot.claims.verdicts import OpenWikiVerdict, Verdict


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[SweepReport, SweepReport]:
    return demo_reports(tmp_path_factory.mktemp("demo") / "repo")


def _verdicts(report: SweepReport) -> list[str]:
    return [claim.verdict.value for _, claim in report.claims()]


def test_the_filter_keeps_what_needs_attention_and_the_whole_summary(demo) -> None:
    diff, _ = demo
    shown = attention_only(diff)
    assert _verdicts(diff) != _verdicts(shown)
    assert sorted(_verdicts(shown)) == ["error", "stale", "stale", "unresolved"]
    assert [p.page for p in shown.pages] == ["openwiki/configuration.md", "openwiki/workers.md"]  # queue.md: all fine
    assert shown.broken_references == diff.broken_references
    assert shown.summary == diff.summary and shown.summary is not diff.summary
    assert shown.needs_attention and shown.base == diff.base
    stale = next(c for _, c in shown.claims() if c.verdict is Verdict.STALE)
    assert stale in [c for _, c in diff.claims()]  # a claim is kept whole


def test_the_filter_drops_pages_without_claims_and_coverage_but_never_an_unreadable_sidecar() -> None:
    fresh = EvidenceResult("repo://a.py#L1-L1", "v", Verdict.FRESH, OpenWikiVerdict.FRESH, span=(1, 1))
    pages = (
        PageResult(
            "openwiki/a.md", "openwiki/.claims/a.json", None, (ClaimResult("c1", "A.", Verdict.FRESH, False, (fresh,)),)
        ),
        PageResult("openwiki/b.md", "openwiki/.claims/b.json", "invalid JSON"),
    )
    report = SweepReport(
        "working tree", None, "openwiki", pages, ungrounded_pages=("openwiki/c.md",),
        coverage=(PageCoverage("openwiki/a.md", 1, 2, 1),),
    )  # fmt: skip
    shown = attention_only(report)
    assert [p.page for p in shown.pages] == ["openwiki/b.md"]
    assert shown.ungrounded_pages == () and shown.coverage == ()
    assert shown.summary == report.summary and shown.summary["ungrounded_pages"] == 1


def test_text_lists_only_what_needs_attention(demo) -> None:
    diff, _ = demo
    full, only = render_text(diff), render(diff, "text", attention_only=True)
    assert only == render_text(diff, attention_only=True) and render(diff, "text") == full
    assert full.splitlines()[1] == only.splitlines()[1]  # the same counts
    assert "Only what needs attention is listed." in only and "Only what needs attention" not in full
    assert "moved" in full.split("\n", 2)[2] and "↪" in full
    assert "↪" not in only and "≈" not in only and "openwiki/queue.md" not in only
    assert "✗ stale" in only and "? unresolved" in only and "! error" in only and "Broken references (1)" in only


def test_markdown_lists_only_what_needs_attention(demo) -> None:
    diff, _ = demo
    full, only = render_markdown(diff), render(diff, "markdown", attention_only=True)
    assert "### Moved or cosmetic: a fix re-anchors them, nothing to decide (4)" in full
    assert "Moved or cosmetic" not in only and "_Only what needs attention is listed._" in only
    assert "### Made stale by this change (4)" in only and "### Broken references (1)" in only
    assert full.split("\n", 5)[:5] == only.split("\n", 5)[:5]  # the summary and the table of counts


def test_json_says_it_was_filtered(demo) -> None:
    _, full_sweep = demo
    document = json.loads(render(full_sweep, "json", attention_only=True))
    assert document == report_json(full_sweep, attention_only=True)
    assert document["attention_only"] is True and json.loads(render(full_sweep, "json"))["attention_only"] is False
    assert document["summary"] == full_sweep.summary and document["needs_attention"] is True
    claims = [c for p in document["pages"] for c in p["claims"]]
    assert claims and all(c["verdict"] in ("stale", "unresolved", "error") for c in claims)
    assert document["coverage"] == [] and report_json(full_sweep)["coverage"]  # the full sweep measured it


def test_each_format_has_its_default_and_an_unknown_one_is_refused(demo) -> None:
    diff, _ = demo
    assert FORMATS == ("text", "markdown", "json", "github", "sarif")
    assert render(diff, "github") == render(diff, "github", attention_only=True)
    assert render(diff, "github") != render(diff, "github", attention_only=False)
    assert render(diff, "markdown") == render_markdown(diff)
    with pytest.raises(ValueError, match="unknown report format 'xml'"):
        render(diff, "xml")


def test_findings_are_placed_on_the_code_else_on_the_page_or_its_sidecar(demo) -> None:
    diff, _ = demo
    placed = [(f.rule, f.level, f.place, f.page) for f in findings(diff)]
    workers = Place("openwiki/workers.md")
    assert placed == [
        ("error", "error", Place("openwiki/configuration.md"), Place("openwiki/configuration.md")),
        ("stale", "error", Place("src/taskq/retry.py", 5, 5), workers),
        ("stale", "error", Place("src/taskq/retry.py", 8, 9), workers),
        ("unresolved", "error", workers, workers),
        ("broken-reference", "error", Place("openwiki/workers.md", 8, 8), Place("openwiki/workers.md", 8, 8)),
    ]


def _report(*, base: str | None, touched: bool) -> SweepReport:
    gone = EvidenceResult(
        "repo://src/q.py#L3-L4", "v", Verdict.UNRESOLVED, OpenWikiVerdict.UNRESOLVED, touched=touched,
        anchor=("src/q.py", 3),
    )  # fmt: skip
    claim = ClaimResult("claim_1", "Q drains.", Verdict.UNRESOLVED, touched, (gone,))
    twice = ClaimResult("claim_2", "Q is a queue.", Verdict.ERROR, touched, (), error="the id is also used on x.md")
    page = PageResult("openwiki/q.md", "openwiki/.claims/q.json", None, (claim, twice))
    unreadable = PageResult("openwiki/u.md", "openwiki/.claims/u.json", "invalid JSON")
    ref = BrokenReference("openwiki/q.md", 4, "drain()", "Q.drain", "src/q.py", "renamed", "Q.flush", ("src/q.py", 9))
    return SweepReport("v2", base, "openwiki", (page, unreadable), broken_references=(ref,))


def test_levels_follow_what_fails_the_check() -> None:
    def levels(report: SweepReport) -> list[tuple[str, str]]:
        return [(f.rule, f.level) for f in findings(report)]

    assert levels(_report(base="v1", touched=False)) == [  # stale before this change: not its doing
        ("unresolved", "warning"),
        ("error", "warning"),
        ("unreadable-sidecar", "error"),
        ("broken-reference", "error"),
    ]
    assert {level for _, level in levels(_report(base="v1", touched=True))} == {"error"}
    assert {level for _, level in levels(_report(base=None, touched=False))} == {"error"}  # no change to blame


def test_anchors_sidecars_and_references_are_where_findings_stand() -> None:
    unresolved, claim_error, sidecar, reference = findings(_report(base="v1", touched=True))
    assert (
        claim_error.place == Place("openwiki/.claims/q.json") and "the id is also used on x.md" in claim_error.message
    )
    assert unresolved.place == Place("src/q.py", 3, 3) and "this change deleted it" in unresolved.message
    assert sidecar.place == Place("openwiki/.claims/u.json") and sidecar.page == Place("openwiki/u.md")
    assert reference.place == Place("src/q.py", 9, 9) and reference.page == Place("openwiki/q.md", 4, 4)
    assert "renamed by this change to Q.flush" in reference.message


def test_fingerprints_name_the_finding_not_its_place() -> None:
    first = findings(_report(base="v1", touched=True))
    moved = _report(base="v1", touched=True)
    page = moved.pages[0]
    [claim, twice] = page.claims
    evidence = claim.evidence[0]._replace(anchor=("src/elsewhere.py", 40))
    claim = ClaimResult(claim.id, claim.statement, claim.verdict, True, (evidence,))
    again = SweepReport(
        "v3", "v1", "openwiki", (PageResult(page.page, page.sidecar, None, (claim, twice)), moved.pages[1])
    )
    second = findings(again)
    assert first[0].place != second[0].place and first[0].fingerprint == second[0].fingerprint
    assert len({f.fingerprint for f in first}) == len(first)
    other = claim.evidence[0]._replace(resource="repo://src/q.py#L5-L6")
    changed = ClaimResult(claim.id, claim.statement, claim.verdict, True, (other,))
    third = findings(SweepReport("v3", "v1", "openwiki", (PageResult(page.page, page.sidecar, None, (changed,)),)))
    assert third[0].fingerprint != first[0].fingerprint  # another evidence record: another finding

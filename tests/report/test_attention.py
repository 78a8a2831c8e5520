"""What needs attention: the `--attention-only` filter over every format, and the findings CI annotates (their
rule, level, place and fingerprint)."""

from __future__ import annotations

import json

import pytest
from citools import demo_reports

from bot.claims.results import BrokenReference, ClaimResult, EvidenceResult, PageCoverage, PageResult, SweepReport
from bot.claims.verdicts import OpenWikiVerdict, Verdict
from bot.report.attention import Finding, Place, attention_only, findings
from bot.report.check import FORMATS, render, render_markdown, render_text, report_json


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


# -- the findings' words: each says what happened to what, and what to do --------------------------------------


def _one(evidence: EvidenceResult, *, statement: str = "Q drains.", base: str | None = "v1") -> SweepReport:
    claim = ClaimResult("claim_1", statement, evidence.verdict, evidence.touched, (evidence,))
    return SweepReport(
        "v2", base, "openwiki", (PageResult("openwiki/q.md", "openwiki/.claims/q.json", None, (claim,)),)
    )


def _evidence(verdict: Verdict, **fields: object) -> EvidenceResult:
    openwiki = OpenWikiVerdict.FRESH if verdict in (Verdict.MOVED, Verdict.COSMETIC) else OpenWikiVerdict.STALE
    return EvidenceResult("repo://src/q.py#L3-L4", "v", verdict, openwiki, **fields)


def test_a_statement_is_shown_up_to_a_thousand_characters() -> None:
    for statement, shown in [("x" * 999 + "y", "x" * 999 + "y"), ("x" * 999 + "yz", "x" * 999 + "y")]:
        [finding] = findings(_one(_evidence(Verdict.STALE, span=(3, 4)), statement=statement))
        assert finding.message.split("\n\n")[0] == shown


def test_stale_evidence_is_placed_on_its_lines_else_on_the_page() -> None:
    on_lines = _evidence(Verdict.STALE, span=(5, 6), resource_now="repo://src/q.py#L5-L6")
    [finding] = findings(_one(on_lines))
    assert finding.place == Place("src/q.py", 5, 6)
    assert finding.message == (
        "Q drains.\n\nClaim claim_1 on openwiki/q.md cites repo://src/q.py#L3-L4. This code is its evidence, and it "
        "changed. Re-verify the claim, then correct or retract it."
    )
    assert finding.title == "Wiki claim stale: openwiki/q.md" and finding.level == "warning"
    # a whole file (no lines), or no place known now: the page, in other words
    for evidence in (
        _evidence(Verdict.STALE, resource_now="repo://src/q.py"),
        _evidence(Verdict.STALE, span=(5, 6)),
        _evidence(Verdict.STALE, span=(5, 6), resource_now="repo://src/q.py#L0-L1"),  # not a resource
    ):
        [finding] = findings(_one(evidence))
        assert finding.place == Place("openwiki/q.md") == finding.page
        assert "Its evidence changed. Re-verify" in finding.message


def test_unresolved_evidence_is_placed_where_its_text_stood() -> None:
    [finding] = findings(_one(_evidence(Verdict.UNRESOLVED, anchor=("src/old.py", 7), touched=True)))
    assert finding.place == Place("src/old.py", 7, 7) and finding.level == "error"
    assert finding.message.endswith(
        "Its text stood here, and this change deleted it. Retarget the claim's evidence or retract the claim."
    )
    [finding] = findings(_one(_evidence(Verdict.UNRESOLVED)))
    assert finding.place == Place("openwiki/q.md")
    assert "Its text or its file is gone. Retarget" in finding.message


def test_evidence_in_error_says_why_on_the_page() -> None:
    in_error = _evidence(Verdict.ERROR, span=(3, 4), resource_now="repo://src/q.py#L3-L4", error="a symlink.")
    [finding] = findings(_one(in_error._replace(touched=True)))
    assert finding.place == Place("openwiki/q.md") and finding.rule == "error"  # never the file it may not name
    assert finding.message.endswith(
        "cites repo://src/q.py#L3-L4. It cannot be checked: a symlink. Mend the claim's evidence or retract the claim."
    )
    [finding] = findings(_one(_evidence(Verdict.ERROR)))
    assert "It cannot be checked: no reason given. Mend" in finding.message


def test_moved_and_cosmetic_evidence_are_notes_only_when_asked_for_and_say_which() -> None:
    moved = _evidence(Verdict.MOVED, span=(8, 9), resource_now="repo://src/q.py#L8-L9")
    cosmetic = _evidence(Verdict.COSMETIC, span=(3, 4), resource_now="repo://src/q.py#L3-L4")
    assert findings(_one(moved)) == [] and findings(_one(cosmetic)) == []
    [note] = findings(_one(moved), reanchored=True)
    assert (note.rule, note.level, note.place, note.page) == (
        "reanchored", "note", Place("src/q.py", 8, 9), Place("openwiki/q.md"),
    )  # fmt: skip
    assert note.title == "Wiki claim moved: openwiki/q.md"
    assert note.message.startswith(
        "Claim claim_1 on openwiki/q.md cited repo://src/q.py#L3-L4: the same text stands here now. Nothing to decide: "
    )
    [note] = findings(_one(cosmetic), reanchored=True)
    assert note.title == "Wiki claim cosmetic: openwiki/q.md"
    assert ": the same text but for line endings or spaces stands here now. Nothing to decide: " in note.message
    assert findings(_one(moved._replace(span=None)), reanchored=True) == []  # nowhere to put it


def _reference(**fields: object) -> Finding:
    ref = BrokenReference("openwiki/q.md", 4, "drain()", "Q.drain", "src/q.py", "removed")._replace(**fields)
    [finding] = findings(SweepReport("v2", "v1", "openwiki", (), broken_references=(ref,)))
    return finding


def test_a_broken_references_words_name_its_target_and_what_to_do() -> None:
    removed = _reference()
    assert removed.message == (
        "openwiki/q.md names drain() (Q.drain) on line 4: removed by this change. Correct the page, or, if the page "
        "is right, silence it with <!-- wikiwarden: ignore --> on its line."
    )
    assert (removed.level, removed.place, removed.title) == (
        "error", Place("openwiki/q.md", 4, 4), "Wiki reference broken: openwiki/q.md",
    )  # fmt: skip
    assert _reference(text="Q.drain").message.startswith("openwiki/q.md names Q.drain on line 4: removed")
    renamed = _reference(what="renamed", renamed_to="Q.flush", at=("src/q.py", 9))
    assert renamed.place == Place("src/q.py", 9, 9) and renamed.page == Place("openwiki/q.md", 4, 4)
    assert renamed.message.endswith(
        "renamed by this change to Q.flush. `wikiwarden fix` rewrites the mention to the new name; or, if the page is "
        "right, silence it with <!-- wikiwarden: ignore --> on its line."
    )
    assert "Correct the page" in _reference(what="renamed").message  # renamed to nothing known: a person decides


def test_a_reference_that_is_only_a_note_says_why() -> None:
    note = _reference(attention=False, note="a path git ignores.")
    assert (note.level, note.title) == ("note", "Wiki reference to check: openwiki/q.md")
    assert note.message.endswith("removed by this change. Only a note, not failing the check: a path git ignores.")
    assert _reference(attention=False).message.endswith("Only a note, not failing the check: not certain.")
    only = SweepReport("v2", "v1", "openwiki", (), broken_references=(note.reference,))
    assert findings(only, notes=False) == [] and findings(only) == [note]

"""Report rendering: the markdown a check run shows (cut safely), the text report, the JSON document."""

from __future__ import annotations

import json

from bot.claims.report import render_json, render_markdown, render_text, report_json
from bot.claims.results import ClaimResult, EvidenceResult, PageResult, SweepReport
from bot.claims.verdicts import OpenWikiVerdict, Verdict


def _stale(n: int) -> ClaimResult:
    evidence = EvidenceResult(
        resource=f"repo://src/m{n}.py#L1-L3",
        version="v",
        verdict=Verdict.STALE,
        openwiki_verdict=OpenWikiVerdict.STALE,
        span=(1, 4),
        resource_now=f"repo://src/m{n}.py#L1-L4",
        version_now="v2",
        touched=True,
        old_text="a = 1\n```\nb = 2\n",
        new_text="a = 2\n```\nb = 2\nc = 3\n",
    )
    return ClaimResult(f"claim_{n:032x}", f"Statement number {n} | with a pipe <b>", Verdict.STALE, True, (evidence,))


def _report(claims: int) -> SweepReport:
    pages = (PageResult("openwiki/a.md", "openwiki/.claims/a.json", None, tuple(_stale(n) for n in range(claims))),)
    broken = PageResult("openwiki/b.md", "openwiki/.claims/b.json", "openwiki/.claims/b.json: invalid JSON")
    return SweepReport("head", "base", "openwiki", (*pages, broken), unaffected_pages=3)


def test_summary_counts() -> None:
    report = _report(5)
    assert report.summary["stale"] == 5 and report.summary["touched"] == 5
    assert report.summary["page_errors"] == 1 and report.needs_attention


def test_markdown_sections_and_escaping() -> None:
    text = render_markdown(_report(2))
    assert "### Made stale by this change (2)" in text
    assert "### Unreadable sidecars (1)" in text
    assert "\\| with a pipe &lt;b&gt;" in text
    assert "````diff" in text  # the evidence contains ``` so the fence is longer
    assert "| fresh | moved | cosmetic | stale | unresolved | error |" in text


def test_markdown_is_cut_below_the_limit_with_fences_closed() -> None:
    full = render_markdown(_report(400))
    assert len(full) > 65_535
    cut = render_markdown(_report(400), limit=65_535)
    assert len(cut) <= 65_535
    assert "the report was cut here" in cut
    body = cut.split("_…the report was cut")[0]
    assert body.count("<details>") == body.count("</details>")
    fences = [line.strip() for line in body.splitlines() if line.strip().startswith("````")]
    assert len(fences) % 2 == 0
    assert render_markdown(_report(1), limit=65_535) == render_markdown(_report(1))


def test_text_report_marks_what_the_change_did() -> None:
    text = render_text(_report(1))
    assert "[this change]" in text and "openwiki/a.md" in text and "! error" in text
    assert "3 pages cite nothing it touched" in text


def test_json_document_is_stable() -> None:
    document = json.loads(render_json(_report(1)))
    assert document == report_json(_report(1))
    assert list(document) == [
        "format_version",
        "mode",
        "head",
        "base",
        "wiki_dir",
        "summary",
        "needs_attention",
        "pages",
        "ungrounded_pages",
    ]
    claim = document["pages"][0]["claims"][0]
    assert list(claim) == ["id", "statement", "verdict", "touched", "error", "evidence"]
    assert list(claim["evidence"][0]) == [
        "resource",
        "verdict",
        "openwiki_verdict",
        "span",
        "resource_now",
        "version_now",
        "touched",
        "error",
        "old_text",
        "new_text",
    ]
    assert claim["evidence"][0]["span"] == [1, 4]

"""Report rendering: the markdown a check run shows (cut safely), the text report, the JSON document."""

from __future__ import annotations

import json

import pytest
from inertcheck import assert_inert_markdown, read, tokens, visible

import bot.report.check as report_module
from bot.claims.results import ClaimResult, EvidenceResult, PageResult, SweepReport
from bot.claims.verdicts import OpenWikiVerdict, Verdict
from bot.report.check import (
    render_json,
    render_json_bytes,
    render_markdown,
    render_text,
    report_json,
    summary_line,
)


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
        "attention_only",  # added in format 1: whether the lists below hold only what needs attention
        "pages",
        "ungrounded_pages",
        "broken_references",  # added in format 1 (fields are only ever added within a format version)
        "coverage",
        "skipped_pages",  # added in format 1: pages too large to read
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


HOSTILE = "cc @octocat: closes #1, fixes other/repo#2 <img src=x onerror=alert(1)> | **b** [x](javascript:alert(1))"


def _hostile_report() -> SweepReport:
    stale = _stale(1)
    evidence = stale.evidence[0]._replace(resource="repo://src/`@x`#3.py#L1-L3", resource_now=None)
    errored = EvidenceResult(
        "repo://src/e.py#L1", "v", Verdict.ERROR, None, error="src/@octocat #4.py is a symlink <b>", touched=True
    )
    moved = EvidenceResult(
        "repo://src/m.py#L1-L1", "v", Verdict.MOVED, OpenWikiVerdict.FRESH, span=(2, 2),
        resource_now="repo://src/m.py#L2-L2", version_now="v", touched=True,
        old_text="</details>\n```````\n", new_text="</details>\n ```````\n<details>\n",
    )  # fmt: skip
    claim = ClaimResult("claim_`@octocat`</details>#5", HOSTILE, Verdict.STALE, True, (evidence, errored, moved))
    page = PageResult("openwiki/@octocat closes #6 `x`|<b>.md", "openwiki/.claims/x.json", None, (claim,))
    broken = PageResult("openwiki/b.md", "openwiki/.claims/@acme/core #7.json", "fixes #8 <script>|")
    return SweepReport("head", "base", "openwiki", (page, broken), unaffected_pages=1)


def test_markdown_of_a_hostile_wiki_is_inert_and_keeps_each_string_in_its_place() -> None:
    markdown = render_markdown(_hostile_report())
    reading = assert_inert_markdown(markdown, html=r"<details><summary>what changed</summary>|</details>")
    assert [visible(s) for s in reading.strong] == [summary_line(_hostile_report()), HOSTILE]
    codes = {visible(c) for c in reading.codes}
    assert {
        "openwiki/@octocat closes #6 `x`|<b>.md",
        "claim_`@octocat`</details>#5",
        "repo://src/`@x`#3.py#L1-L3",
    } <= codes
    assert "openwiki/.claims/@acme/core #7.json" in codes
    texts = [visible(t) for t in reading.texts]
    assert " — src/@octocat #4.py is a symlink <b>" in texts and ": fixes #8 <script>|" in texts
    assert "1 page cites nothing it touched." in markdown
    fences = [t.content for t in tokens(markdown) if t.type == "fence"]
    assert any(" ```````" in f and "<details>" in f for f in fences)  # the diff stays code, whole


def test_markdown_cut_inside_a_diff_closes_exactly_the_details_it_opened() -> None:
    """A diff line reading `<details>` is code: cutting the report after it must not close a details twice."""
    evidence = _stale(1).evidence[0]._replace(old_text="a\n<details>\nb\n", new_text="a\n<details>\nc\n")
    claims = (ClaimResult("claim_1", "s", Verdict.STALE, True, (evidence,)), _stale(2))  # the second: room to cut
    report = SweepReport(
        "head", "base", "openwiki", (PageResult("openwiki/a.md", "openwiki/.claims/a.json", None, claims),)
    )
    full = render_markdown(report)
    assert len(full) > full.index("-b") + 200
    for limit in range(full.index("what changed"), len(full)):
        html = "".join(read(render_markdown(report, limit=limit)).html)
        assert html.count("<details>") == html.count("</details>"), limit


def test_text_report_is_plain_words_with_counts_that_agree() -> None:
    long = "Statement with a | pipe and <b> that goes on " + "and on " * 20
    report = SweepReport(
        "head", "base", "openwiki",
        (PageResult("openwiki/a.md", "openwiki/.claims/a.json", None, (ClaimResult("claim_1", long, Verdict.STALE, True, (_stale(1).evidence[0],)),)),),
        unaffected_pages=1,
    )  # fmt: skip
    text = render_text(report)
    assert "1 claim on 1 page: 1 stale; 1 touched by this change" in text
    assert "1 page cites nothing it touched" in text
    assert "\\|" not in text and "&lt;" not in text
    [line] = [line for line in text.splitlines() if "claim_1" in line]
    statement = line.split("claim_1  ", 1)[1].removesuffix("  [this change]")
    assert statement.endswith("…") and len(statement) <= 90 and long.startswith(statement[:-1])


HOSTILE = "@octocat closes #1 <img src=x> `x` | y"


def test_broken_references_and_coverage_render_inert_and_counted() -> None:
    from bot.claims.results import BrokenReference, PageCoverage

    report = SweepReport(
        head="h",
        base="b",
        wiki_dir="openwiki",
        pages=(),
        broken_references=(
            BrokenReference(
                f"openwiki/{HOSTILE}.md", 3, HOSTILE, "Q.drain", "src/q.py", "renamed", "Q.flush", ("src/q.py", 4)
            ),
            BrokenReference("openwiki/a.md", 9, "src/x.py", "src/x.py", "src/x.py", "removed"),
        ),
        coverage=(PageCoverage(f"openwiki/{HOSTILE}.md", 2, 4, 1),),
    )
    assert summary_line(report).endswith("; 2 broken references")
    markdown = render_markdown(report)
    assert_inert_markdown(markdown, html=r"<details><summary>per page</summary>|</details>")
    assert "### Broken references (2)" in markdown
    assert "renamed by this change to Q.flush" in visible(markdown)
    assert "line 9: " in markdown and ": removed by this change" in markdown
    text = render_text(report)
    assert "  ✗ openwiki/a.md:9  src/x.py: removed by this change\n" in text
    assert "Coverage: claims on 1 of 1 page; 25% of 4 paragraphs carry a grounded quote" in text
    rows = [line for line in markdown.splitlines() if line.startswith("| ") and "openwiki/" in visible(line)]
    assert len(rows) == 1 and rows[0].count(" | ") == 3  # the hostile page name stays in its cell


def test_a_reports_repr_costs_nothing_per_claim() -> None:
    """asyncio.run, on Python 3.11, formats the main task's repr (with its result: the report) when it restores the
    SIGINT handler; a full repr of a 100k-claim report cost seconds of every check."""
    small, large = repr(_report(1)), repr(_report(5000))
    assert len(small) < 300 and len(large) - len(small) == 3 * len("000")  # stale, claims, touched: 1 → 5000
    assert large.startswith("SweepReport(head='head', base='base', wiki_dir='openwiki'") and "'stale': 5000" in large


def test_the_json_written_a_page_at_a_time_is_the_whole_documents() -> None:
    report = _report(30)
    for attention_only in (False, True):
        document = report_json(report, attention_only)
        expected = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        assert render_json_bytes(report, attention_only) == expected.encode()
        assert render_json(report, attention_only) == expected
    empty = SweepReport("head", None, "openwiki", ())
    assert json.loads(render_json(empty))["pages"] == [] and '"pages": [],' in render_json(empty)


def test_markdown_with_a_limit_renders_no_claim_past_the_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """The App's check run holds 65,535 characters: a sweep that re-anchored 100k claims rendered all of them (tens
    of megabytes, seconds) to keep the first few hundred."""
    report = _report(5000)
    whole = render_markdown(report)
    rendered: list[str] = []
    real = report_module._md_claim
    monkeypatch.setattr(report_module, "_md_claim", lambda page, claim: rendered.append(claim.id) or real(page, claim))
    cut = render_markdown(report, limit=20_000)
    assert cut == report_module._truncate(whole, 20_000) and len(cut) <= 20_000
    assert cut.count("claim_") < len(rendered) <= cut.count("claim_") + 2  # the claims shown, and the one cut

"""The check run's content, decided without I/O (`bot.github.content.check_output.check_output`, `failure_output`, `explain`):
title, summary, annotations, the Fix wiki and Ground wiki buttons and the conclusion, for every kind of outcome:
stale claims, pages without claims, references to code that is gone."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from gidgethub import BadRequest, GitHubBroken, RateLimitExceeded
from gidgethub.sansio import RateLimit
from inertcheck import assert_inert_markdown, assert_inert_plain, visible

from bot.claims.results import BrokenReference, ClaimResult, EvidenceResult, PageResult, SweepReport
from bot.claims.verdicts import OpenWikiVerdict, Verdict
from bot.github.content.check_output import (
    FIX_ACTION,
    FORK_NOTE,
    GROUND_ACTION,
    SUMMARY_LIMIT,
    check_output,
    explain,
    failure_output,
)
from bot.usecases.config_file import Limits, RepoConfig

PAGE, SIDECAR = "openwiki/queue.md", "openwiki/.claims/queue.json"
RES = "repo://src/q.py#L3-L4"


def evidence(verdict: Verdict, *, touched: bool = True, **fields: object) -> EvidenceResult:
    ow = {Verdict.STALE: OpenWikiVerdict.STALE, Verdict.UNRESOLVED: OpenWikiVerdict.UNRESOLVED}.get(
        verdict, OpenWikiVerdict.FRESH
    )
    values: dict[str, object] = {"span": (3, 4), "resource_now": RES, "version_now": "v2"}
    values.update(fields)
    return EvidenceResult(RES, "v1", verdict, ow, touched=touched, **values)  # type: ignore[arg-type]


def claim(n: int, *records: EvidenceResult, statement: str = "pop takes the oldest task") -> ClaimResult:
    verdict = max((r.verdict for r in records), key=list(Verdict).index)
    return ClaimResult(f"claim_{n}", statement, verdict, any(r.touched for r in records), records)


def report(*claims: ClaimResult, base: str | None = "v1 (abc)", errors: int = 0) -> SweepReport:
    pages = [PageResult(PAGE, SIDECAR, None, claims)] if claims else []
    pages += [
        PageResult(f"openwiki/broken{n}.md", f"openwiki/.claims/broken{n}.json", "not JSON") for n in range(errors)
    ]
    return SweepReport(head="main (def)", base=base, wiki_dir="openwiki", pages=tuple(pages))


STALE = evidence(
    Verdict.STALE,
    old_text="def pop(self):\n    return self.items.pop(0)",
    new_text="def pop(self):\n    return self.items.pop()",
)
GONE = evidence(Verdict.UNRESOLVED, span=None, resource_now=None, version_now=None, anchor=("src/q.py", 7))
MOVED = evidence(Verdict.MOVED, resource_now="repo://src/q.py#L9-L10", span=(9, 10))


def test_nothing_cited_by_the_change_succeeds() -> None:
    output = check_output(report(), RepoConfig())
    assert (output.conclusion, output.title) == ("success", "No wiki claim cites what this change touched")
    assert output.annotations == [] and output.actions == []


def test_claims_that_hold_succeed_and_say_how_many() -> None:
    output = check_output(report(claim(1, evidence(Verdict.FRESH, touched=False))), RepoConfig())
    assert (output.conclusion, output.title) == ("success", "1 affected claim holds")
    two = report(claim(1, evidence(Verdict.FRESH, touched=False)), claim(2, evidence(Verdict.FRESH, touched=False)))
    assert check_output(two, RepoConfig()).title == "All 2 affected claims hold"


def test_moved_evidence_is_for_a_fix_to_re_anchor_not_a_problem() -> None:
    output = check_output(report(claim(1, MOVED)), RepoConfig())
    assert (output.conclusion, output.title) == ("success", "1 to re-anchor")
    assert output.annotations == [] and output.actions == []
    assert "### Moved or cosmetic: a fix re-anchors them, nothing to decide (1)" in output.summary


def test_a_stale_claim_gets_the_repositorys_conclusion_an_annotation_with_the_diff_and_the_button() -> None:
    output = check_output(report(claim(1, STALE), claim(2, MOVED)), RepoConfig(conclusion="failure"))
    assert output.conclusion == "failure"
    assert output.title == "1 stale, 1 to re-anchor · this change made claims stale"
    assert output.actions == [FIX_ACTION]
    [note] = output.annotations
    assert {k: note[k] for k in ("path", "start_line", "end_line", "annotation_level")} == {
        "path": "src/q.py", "start_line": 3, "end_line": 4, "annotation_level": "warning",
    }  # fmt: skip
    assert note["title"] == f"Wiki claim stale: {PAGE}"
    assert note["message"].startswith("pop takes the oldest task\n\nThis code was the evidence for claim claim_1")
    assert "The change rewrote it" in note["message"]
    assert note["raw_details"].splitlines()[-2:] == ["-    return self.items.pop(0)", "+    return self.items.pop()"]


def test_unresolved_evidence_is_annotated_where_its_text_stood() -> None:
    output = check_output(report(claim(1, GONE)), RepoConfig())
    [note] = output.annotations
    assert (note["path"], note["start_line"], note["end_line"]) == ("src/q.py", 7, 7)
    assert "The change deleted it here" in note["message"] and "raw_details" not in note
    assert output.conclusion == "neutral" and output.actions == [FIX_ACTION]


def test_claims_already_stale_before_the_change_do_not_fail_it() -> None:
    output = check_output(report(claim(1, evidence(Verdict.STALE, touched=False))), RepoConfig())
    assert output.conclusion == "success" and output.annotations == [] and output.actions == []


def test_an_error_needs_attention_but_offers_no_fix() -> None:
    broken = evidence(Verdict.ERROR, span=None, resource_now=None, error="src/q.py is a binary file")
    output = check_output(report(claim(1, broken)), RepoConfig())
    assert (output.conclusion, output.title) == ("neutral", "1 error · this change made claims stale")
    assert output.actions == [] and output.annotations == []


def test_an_unreadable_sidecar_needs_attention() -> None:
    output = check_output(report(errors=2), RepoConfig())
    assert (output.conclusion, output.title) == ("neutral", "2 unreadable sidecars")
    assert check_output(report(errors=1), RepoConfig()).title == "1 unreadable sidecar"


def test_a_forks_pull_request_gets_no_button_and_a_note_instead() -> None:
    output = check_output(report(claim(1, STALE)), RepoConfig(), fork=True, pull_request=True)
    assert output.actions == [] and output.summary.endswith(FORK_NOTE)
    assert not check_output(report(claim(1, MOVED)), RepoConfig(), fork=True).summary.endswith(FORK_NOTE)


def test_pull_requests_get_the_button_unless_the_repository_turned_it_off() -> None:
    stale = report(claim(1, STALE))
    assert check_output(stale, RepoConfig(), pull_request=True).actions == [FIX_ACTION]
    assert check_output(stale, RepoConfig(fix_pull_requests=False), pull_request=True).actions == []
    assert check_output(stale, RepoConfig(fix_pull_requests=False)).actions == [FIX_ACTION]  # a push's run


def test_annotations_past_the_limit_are_left_out_and_the_summary_says_so() -> None:
    many = report(*(claim(n, STALE) for n in range(7)))
    output = check_output(many, RepoConfig(limits=Limits(max_annotations=5)))
    assert len(output.annotations) == 5
    assert output.summary.endswith("\n\n_2 more annotations were left out (limit 5)._\n")
    assert len(check_output(many, RepoConfig()).annotations) == 7
    one_more = check_output(many, RepoConfig(limits=Limits(max_annotations=6)))
    assert one_more.summary.endswith("\n\n_1 more annotation was left out (limit 6)._\n")


def test_the_summary_and_title_stay_within_githubs_limits() -> None:
    long = "x" * 400
    huge = report(*(claim(n, STALE, statement=long * 5) for n in range(200)))
    output = check_output(huge, RepoConfig(), fork=True)
    assert len(output.summary) <= SUMMARY_LIMIT and output.summary.endswith(FORK_NOTE)
    assert len(output.title) <= 255


def test_a_failure_is_told_in_words() -> None:
    output = failure_output("Wikiwarden could not check this commit", "GitHub did not answer in time.")
    assert (output.conclusion, output.title, output.summary) == (
        "failure", "Wikiwarden could not check this commit", "GitHub did not answer in time.",
    )  # fmt: skip
    assert output.annotations == [] and output.actions == []


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (RateLimitExceeded(RateLimit(limit=5000, remaining=0, reset_epoch=0)), "rate limit for this installation"),
        (GitHubBroken(HTTPStatus.BAD_GATEWAY), "GitHub answered 502 (Bad Gateway) and kept doing so after retries."),
        (BadRequest(HTTPStatus.NOT_FOUND), "GitHub answered 404 (Not Found)"),
        (TimeoutError(), "GitHub did not answer in time."),
        (KeyError("secret-token"), "internal error (KeyError)"),
    ],
)
def test_explain_says_what_went_wrong_without_a_trace_or_a_secret(exc: BaseException, words: str) -> None:
    text = explain(exc)
    assert words in text and "secret-token" not in text and "Traceback" not in text


HOSTILE = "cc @octocat @acme/core: closes #1, fixes other/repo#2, GH-3 <img src=x onerror=alert(1)> | **b** `x`"
HOSTILE_PAGE = "openwiki/@octocat fixes #4 `x`|<b>.md"
HOSTILE_ID = "claim_`@acme/core`</details>#5"


def test_hostile_statements_ids_and_pages_are_inert_in_the_summary_the_title_and_annotations() -> None:
    hostile = ClaimResult(HOSTILE_ID, HOSTILE, Verdict.STALE, True, (STALE,))
    broken = PageResult("openwiki/x.md", "openwiki/.claims/@octocat #6.json", "closes #7 <b>|")
    sweep = SweepReport(
        "main (def)", "v1 (abc)", "openwiki", (PageResult(HOSTILE_PAGE, SIDECAR, None, (hostile,)), broken)
    )
    output = check_output(sweep, RepoConfig(), fork=True, pull_request=True)
    assert_inert_plain(output.title)
    summary = assert_inert_markdown(output.summary, html=r"<details><summary>what changed</summary>|</details>")
    assert [visible(s) for s in summary.strong][1:] == [HOSTILE]
    assert {HOSTILE_PAGE, HOSTILE_ID, RES, "openwiki/.claims/@octocat #6.json"} <= {visible(c) for c in summary.codes}
    assert any(visible(t) == ": closes #7 <b>|" for t in summary.texts)
    [note] = output.annotations
    assert_inert_plain(note["title"])
    assert_inert_plain(note["message"])
    assert visible(note["title"]) == f"Wiki claim stale: {HOSTILE_PAGE}"
    assert visible(note["message"]).startswith(f"{HOSTILE}\n\nThis code was the evidence for claim {HOSTILE_ID} on ")


def test_a_failure_carrying_untrusted_words_is_inert() -> None:
    explanation = ".github/wikiwarden.yml: `@octocat closes #1`: Extra inputs are not permitted\n<b>"
    output = failure_output("Wikiwarden could not check this commit: @octocat #2", explanation)
    assert_inert_plain(output.title)
    reading = assert_inert_markdown(output.summary)
    assert visible("".join(reading.texts)) == " ".join(explanation.split())


# -- pages without claims, and references to code that is gone --------------------------------------------------

UNGROUNDED = tuple(f"openwiki/page{n:02}.md" for n in range(25))


def ungrounded(*pages: str, base: str | None = "v1 (abc)") -> SweepReport:
    return SweepReport(head="main (def)", base=base, wiki_dir="openwiki", pages=(), ungrounded_pages=pages)


def test_pages_without_claims_are_listed_and_get_the_ground_wiki_button() -> None:
    output = check_output(ungrounded(*UNGROUNDED[:2]), RepoConfig())
    assert output.actions == [GROUND_ACTION]
    assert output.conclusion == "success"  # a page without claims is not wrong, only unchecked
    assert output.title == "No wiki claim cites what this change touched · 2 pages without claims"
    assert "### Pages without claims (2)\n\n- `openwiki/page00.md`\n- `openwiki/page01.md`\n" in output.summary
    assert "**Ground wiki** opens a pull request proposing their claims, 20 pages a run." in output.summary


def test_the_list_of_pages_without_claims_is_capped_and_says_how_many_more() -> None:
    output = check_output(ungrounded(*UNGROUNDED), RepoConfig(limits=Limits(max_pages_per_ground=5)))
    listed = [line for line in output.summary.splitlines() if line.startswith("- `openwiki/page")]
    assert listed == [f"- `{page}`" for page in UNGROUNDED[:20]]
    assert "- …and 5 more\n" in output.summary
    assert "its claims, 5 pages a run." not in output.summary and "5 pages a run." in output.summary
    one = check_output(ungrounded(UNGROUNDED[0]), RepoConfig(limits=Limits(max_pages_per_ground=1)))
    assert "### Pages without claims (1)" in one.summary and "1 page a run." in one.summary
    assert one.title.endswith(" · 1 page without claims")


def test_the_ground_wiki_button_follows_the_repositorys_choice_and_never_reaches_a_fork() -> None:
    pages = ungrounded(*UNGROUNDED[:3])
    assert check_output(pages, RepoConfig(ground="auto")).actions == [GROUND_ACTION]
    assert check_output(pages, RepoConfig(ground="button"), pull_request=True).actions == [GROUND_ACTION]
    off = check_output(pages, RepoConfig(ground="off"))
    assert off.actions == [] and "`ground: off`" in off.summary and "### Pages without claims (3)" in off.summary
    fork = check_output(pages, RepoConfig(), fork=True, pull_request=True)
    assert fork.actions == [] and "comes from a fork" in fork.summary
    assert check_output(ungrounded(), RepoConfig()).actions == []  # every page has claims: nothing to ground


def test_both_buttons_when_claims_are_stale_and_pages_have_none() -> None:
    sweep = SweepReport(
        "main (def)", "v1 (abc)", "openwiki", (PageResult(PAGE, SIDECAR, None, (claim(1, STALE),)),),
        ungrounded_pages=UNGROUNDED[:1],
    )  # fmt: skip
    output = check_output(sweep, RepoConfig())
    assert output.actions == [FIX_ACTION, GROUND_ACTION]
    assert output.title == "1 stale · this change made claims stale · 1 page without claims"


def test_the_buttons_fit_githubs_limits() -> None:
    for action in (FIX_ACTION, GROUND_ACTION):
        assert len(action["label"]) <= 20 and len(action["description"]) <= 40 and len(action["identifier"]) <= 20
    assert FIX_ACTION["identifier"] != GROUND_ACTION["identifier"]


REMOVED = BrokenReference(
    "openwiki/queue.md", 9, "drain()", "TaskQueue.drain", "src/q.py", "removed", at=("src/q.py", 17)
)
RENAMED = BrokenReference(
    "openwiki/queue.md", 12, "TaskQueue.drain", "TaskQueue.drain", "src/q.py", "renamed", "TaskQueue.flush",
    ("src/q.py", 20),
)  # fmt: skip
DELETED = BrokenReference("openwiki/setup.md", 3, "src/old.py", "src/old.py", "src/old.py", "removed")


def broken_refs(*refs: BrokenReference, base: str | None = "v1 (abc)") -> SweepReport:
    return SweepReport("main (def)", base, "openwiki", (), broken_references=refs)


def test_references_the_change_broke_need_attention_and_are_annotated_where_the_code_was() -> None:
    output = check_output(broken_refs(REMOVED, RENAMED, DELETED), RepoConfig())
    assert output.conclusion == "neutral" and output.title == "3 broken references"
    assert output.actions == [FIX_ACTION]  # the renamed one's mention a fix rewrites, with no model
    assert check_output(broken_refs(REMOVED, DELETED), RepoConfig()).actions == []  # those a person rewords
    removed, renamed = output.annotations  # the deleted file has no line to annotate
    assert removed == {
        "path": "src/q.py", "start_line": 17, "end_line": 17, "annotation_level": "warning",
        "title": "Wiki reference broken: openwiki/queue.md",
        "message": "`openwiki/queue.md` mentions `drain()`, removed here (line 9 of the page).",
    }  # fmt: skip
    assert (renamed["path"], renamed["start_line"]) == ("src/q.py", 20)
    assert renamed["message"] == (
        "`openwiki/queue.md` mentions `TaskQueue.drain`, renamed to `TaskQueue.flush` here (line 12 of the page)."
    )
    for text in ("drain()", "TaskQueue.drain", "src/old.py", "openwiki/queue.md", "openwiki/setup.md"):
        assert f"`{text}`" in output.summary  # each one listed in the summary (the sweep report's section)
    assert "TaskQueue.flush" in output.summary


def test_broken_references_count_within_the_annotation_limit() -> None:
    output = check_output(
        SweepReport(
            "main (def)", "v1 (abc)", "openwiki", (PageResult(PAGE, SIDECAR, None, (claim(1, STALE), claim(2, STALE))),),
            broken_references=(REMOVED, RENAMED),
        ),
        RepoConfig(limits=Limits(max_annotations=3)),
    )  # fmt: skip
    assert [a["title"].split(":")[0] for a in output.annotations] == [
        "Wiki claim stale", "Wiki claim stale", "Wiki reference broken",
    ]  # fmt: skip
    assert "_1 more annotation was left out (limit 3)._" in output.summary


def test_paths_missing_in_a_full_sweep_are_listed_without_failing_the_run() -> None:
    missing = BrokenReference("openwiki/setup.md", 3, "src/old.py", "src/old.py", "src/old.py", "missing")
    output = check_output(broken_refs(missing, base=None), RepoConfig())
    assert output.conclusion == "success" and output.annotations == []
    assert "`src/old.py`" in output.summary


HOSTILE_REF = BrokenReference(
    HOSTILE_PAGE, 4, "@octocat`closes #9`", "x", "src/q.py", "renamed", "fixes #10 <b>", ("src/q.py", 3)
)


def test_hostile_pages_and_references_are_inert_in_the_summary_and_annotations() -> None:
    output = check_output(
        SweepReport(
            "main (def)", "v1 (abc)", "openwiki", (), ungrounded_pages=(HOSTILE_PAGE, "openwiki/#11 @acme.md"),
            broken_references=(HOSTILE_REF,),
        ),
        RepoConfig(),
    )  # fmt: skip
    assert_inert_plain(output.title)
    summary = assert_inert_markdown(output.summary)
    assert {HOSTILE_PAGE, "openwiki/#11 @acme.md", "@octocat`closes #9`"} <= {visible(c) for c in summary.codes}
    [note] = output.annotations
    assert_inert_plain(note["title"]) and assert_inert_plain(note["message"])
    assert visible(note["message"]) == (
        f"`{HOSTILE_PAGE}` mentions `@octocat`closes #9``, renamed to `fixes #10 <b>` here (line 4 of the page)."
    )


def test_pages_grounding_already_read_are_counted_not_offered_again() -> None:
    pages = ungrounded(*UNGROUNDED[:3])
    output = check_output(pages, RepoConfig(), settled=UNGROUNDED[1:3])
    assert output.actions == [GROUND_ACTION] and output.title.endswith(" · 1 page without claims")
    assert "### Pages without claims (1)\n\n- `openwiki/page00.md`\n" in output.summary
    assert "2 more pages without claims state nothing the code shows" in output.summary
    done = check_output(pages, RepoConfig(), settled=UNGROUNDED[:3])
    assert done.actions == [] and done.title == "No wiki claim cites what this change touched"
    assert "Pages without claims" not in done.summary


def test_a_page_whose_sidecar_cannot_be_read_is_an_error_not_a_page_to_ground() -> None:
    sweep = SweepReport(
        "main (def)", "v1 (abc)", "openwiki", (PageResult("openwiki/broken.md", "openwiki/.claims/broken.json", "not JSON"),),
        ungrounded_pages=("openwiki/broken.md",),
    )  # fmt: skip
    output = check_output(sweep, RepoConfig())
    assert output.actions == [] and "Pages without claims" not in output.summary
    assert output.title == "1 unreadable sidecar"

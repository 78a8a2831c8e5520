"""What a failing check says to do next (bot/report/nextsteps.py): fitted to what was found, with commands to copy."""

from __future__ import annotations

from bot.claims.results import BrokenReference, ClaimResult, EvidenceResult, PageResult, SweepReport
from bot.claims.snippet import snippet_statement
from bot.claims.verdicts import OpenWikiVerdict, Verdict
from bot.report.nextsteps import HEADING, next_steps

SIDECAR = "openwiki/.claims/a.json"


def _claim(n: int, verdict: Verdict) -> ClaimResult:
    evidence = EvidenceResult(f"repo://src/a.py#L{n}-L{n}", "v", verdict, OpenWikiVerdict.STALE, touched=True)
    return ClaimResult(f"claim_{n:032x}", f"Statement {n}.", verdict, True, (evidence,))


def _report(*claims: ClaimResult, broken: tuple[BrokenReference, ...] = (), error: str | None = None) -> SweepReport:
    pages = [PageResult("openwiki/a.md", SIDECAR, None, claims)]
    if error is not None:
        pages.append(PageResult("openwiki/b.md", "openwiki/.claims/b.json", error))
    return SweepReport("working tree", "v1 (0123456789ab)", "openwiki", tuple(pages), broken_references=broken)


REMOVED = BrokenReference("openwiki/a.md", 9, "drain()", "Q.drain", "src/q.py", "removed")


def test_nothing_to_do_says_nothing() -> None:
    assert next_steps(_report(_claim(1, Verdict.FRESH))) == []
    assert next_steps(_report(_claim(1, Verdict.MOVED))) == []  # exit 0: the report's own notes suffice
    note = REMOVED._replace(attention=False, note="a bare name")
    assert next_steps(_report(_claim(1, Verdict.FRESH), broken=(note,))) == []


def test_one_stale_claim_is_named_in_commands_with_the_checks_options_and_base() -> None:
    lines = next_steps(_report(_claim(1, Verdict.STALE)), ["--repo", "my repo", "--wiki-dir", "docs"], "v1")
    claim = f"claim_{1:032x}"
    assert lines == [
        HEADING,
        f"  stale, unresolved: `wikiwarden claim show {claim} --repo 'my repo' --wiki-dir docs --base v1` shows what "
        "changed; `wikiwarden fix --repo 'my repo' --wiki-dir docs --base v1` decides with a model,",
        f"    or decide by hand: `wikiwarden claim confirm {claim} --repo 'my repo' --wiki-dir docs --base v1` (it "
        f"still holds) or `wikiwarden claim retract {claim} --repo 'my repo' --wiki-dir docs` (it does not; correct "
        "the page)",
    ]


def test_many_claims_and_every_kind_of_problem_get_a_line_each() -> None:
    report = _report(
        _claim(1, Verdict.STALE),
        _claim(2, Verdict.UNRESOLVED),
        _claim(3, Verdict.MOVED),
        _claim(4, Verdict.ERROR),
        broken=(REMOVED,),
        error="openwiki/.claims/b.json: invalid JSON",
    )
    lines = next_steps(report)
    assert lines[0] == HEADING and len(lines) == 7
    assert lines[1] == (
        "  stale, unresolved: `wikiwarden claim show ID` shows what changed; `wikiwarden fix` decides with a model "
        "and re-anchors what moved,"
    )  # several claims: ID stands for each; a full sweep: no --base
    assert "`wikiwarden claim confirm ID`" in lines[2] and "`wikiwarden claim retract ID`" in lines[2]
    assert lines[3] == (
        f"  error: the reason is above; mend the evidence in the page's sidecar, or `wikiwarden claim retract "
        f"claim_{4:032x}`"
    )
    assert lines[4:6] == [
        "  broken references: correct the page, or silence a false alarm with `<!-- wikiwarden: ignore -->` on its "
        "line",
        "    (`<!-- wikiwarden: ignore-next-line -->` on the line before)",
    ]
    assert lines[6] == (
        "  unreadable sidecar openwiki/.claims/b.json: repair it as its error above says, or restore it from git"
    )


def test_moved_evidence_beside_a_failure_is_for_the_fix() -> None:
    lines = next_steps(_report(_claim(1, Verdict.COSMETIC), broken=(REMOVED,)), base="HEAD")
    assert lines[-1] == "  moved, cosmetic: `wikiwarden fix --base HEAD` re-anchors them"


def test_a_hostile_claim_id_is_one_quoted_word() -> None:
    hostile = _claim(1, Verdict.STALE)._replace(id="x; rm -rf ~\n")
    [_, first, _] = next_steps(_report(hostile))
    assert "`wikiwarden claim show 'x; rm -rf ~'`" in first  # one line, one word for a shell


def test_a_renamed_reference_is_for_fix_and_a_removed_one_for_a_person() -> None:
    from bot.claims.results import BrokenReference, SweepReport

    renamed = BrokenReference("docs/a.md", 3, "src/util.py", "src/util.py", "src/util.py", "renamed", "src/helpers.py")
    removed = renamed._replace(what="removed", renamed_to=None)
    lines = next_steps(SweepReport("working tree", "v1", "docs", (), broken_references=(renamed,)), base="v1")
    assert lines == [
        "What to do:",
        "  renamed references: `wikiwarden fix --base v1` rewrites each mention to the new name (no model needed)",
    ]
    both = next_steps(SweepReport("working tree", "v1", "docs", (), broken_references=(renamed, removed)))
    assert len(both) == 4 and "correct the page" in both[2]
    note = removed._replace(attention=False, note="a bare word")
    assert next_steps(SweepReport("working tree", "v1", "docs", (), broken_references=(note,))) == []


def _copy(n: int, verdict: Verdict) -> ClaimResult:
    return _claim(n, verdict)._replace(statement=snippet_statement(10 * n, "src/a.py", ((n, n + 2),)))


def test_a_stale_copied_block_is_the_fixs_to_rewrite_without_a_model_and_a_gone_one_a_persons() -> None:
    assert next_steps(_report(_copy(1, Verdict.STALE)), ["--wiki-dir", "docs"]) == [
        HEADING,
        "  copied code blocks: `wikiwarden fix --wiki-dir docs` rewrites each stale block from the code it copies (no "
        "model needed)",
    ]
    gone = next_steps(_report(_copy(1, Verdict.UNRESOLVED), _copy(2, Verdict.UNRESOLVED)))
    assert gone == [HEADING, "  copied code blocks whose code is gone: correct the page, then `wikiwarden claim retract ID`"]
    one = next_steps(_report(_copy(3, Verdict.UNRESOLVED)))
    assert one[1].endswith(f"`wikiwarden claim retract claim_{3:032x}`")
    mixed = next_steps(_report(_claim(1, Verdict.STALE), _copy(2, Verdict.STALE)))
    assert mixed[1].startswith(f"  stale, unresolved: `wikiwarden claim show claim_{1:032x}`")  # the prose claim alone
    assert mixed[3].startswith("  copied code blocks: `wikiwarden fix` rewrites")

"""`--format github`: GitHub Actions workflow commands, read back the way the Actions runner reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from citools import HOSTILE_CITED, HOSTILE_PATH, INJECTION, annotations, demo_reports, hostile_report, parse_line
from hypothesis import given
from hypothesis import strategies as st

from bot.claims.results import BrokenReference, ClaimResult, EvidenceResult, PageResult, SweepReport
from bot.claims.verdicts import OpenWikiVerdict, Verdict
from bot.report.attention import findings
from bot.report.check import render
from bot.report.ci import escape_data, escape_property, render_github, workflow_command
from bot.report.inert import plain


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[SweepReport, SweepReport]:
    return demo_reports(tmp_path_factory.mktemp("demo") / "repo")


def test_workflow_commands_follow_githubs_syntax_and_escaping() -> None:
    assert workflow_command("notice", "plain") == "::notice::plain"
    line = workflow_command("error", "50% done\r\nnext: a, b", file="src/a,b:c.py", line=3, endLine=4, title="T: 1, 2")
    assert line == "::error file=src/a%2Cb%3Ac.py,line=3,endLine=4,title=T%3A 1%2C 2::50%25 done%0D%0Anext: a, b"
    assert workflow_command("warning", "m", file="a.py", line=None, endLine=None, title="t") == (
        "::warning file=a.py,title=t::m"
    )
    assert escape_data("%0A") == "%250A" and escape_property("%3A,") == "%253A%2C"


def test_what_other_readers_take_for_a_line_break_is_shown_as_a_replacement_character() -> None:
    breaks = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    line = workflow_command("error", f"a{breaks}b", file=f"x{breaks}.py", title="t")
    assert line.splitlines() == [line]
    shown = "\ufffd" * len(breaks)
    assert line == f"::error file=x{shown}.py,title=t::a{shown}b"


# Text without the separators above (shown as U+FFFD). Property values as they reach a command: nonempty, and the
# last one (the title, always given) ends in no whitespace: the runner trims the property list (a title is one
# line of `plain`, which never ends in a space).
_text = st.text(st.characters(exclude_characters="\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))
_values = _text.filter(bool)
_titles = _text.map(plain).filter(bool)


@given(message=_text, file=_values, title=_titles, line=st.integers(1, 10**6))
def test_any_text_round_trips_through_the_runner_as_one_command(message: str, file: str, title: str, line: int) -> None:
    output = workflow_command("warning", message, file=file, line=line, endLine=line, title=title) + "\n"
    [command] = annotations(output)
    assert command.name == "warning" and command.data == message
    assert command.properties == {"file": file, "line": str(line), "endLine": str(line), "title": title}


def test_the_demo_annotates_each_finding_on_the_code_then_sums_up(demo) -> None:
    diff, _ = demo
    commands = annotations(render_github(diff))
    *found, summary = commands
    assert [
        (c.name, c.properties.get("file"), c.properties.get("line"), c.properties.get("endLine")) for c in found
    ] == [
        ("error", "openwiki/configuration.md", None, None),  # current.py became a symlink: on the page
        ("error", "src/taskq/retry.py", "5", "5"),  # stale, where the evidence stands now
        ("error", "src/taskq/retry.py", "8", "9"),
        ("error", "openwiki/workers.md", None, None),  # legacy.py deleted: nowhere on the code to point at
        ("error", "openwiki/workers.md", "8", "8"),  # the broken reference, on the page's line
    ]
    stale = found[1]
    assert stale.properties["title"] == "Wiki claim stale: openwiki/workers.md"
    assert stale.data.startswith("A failing task is tried 3 times.\n\nClaim claim_")
    assert "Re-verify the claim" in stale.data and "-MAX_ATTEMPTS = 3\n+MAX_ATTEMPTS = 5" in stale.data
    assert "removed by this change" in found[4].data
    assert summary.name == "notice" and summary.properties == {"title": "Wikiwarden"}
    assert summary.data.startswith("9 claims on 3 pages: 1 fresh, 3 moved, 1 cosmetic, 2 stale, 1 unresolved, 1 error")
    assert summary.data.endswith("The wiki needs attention.")


def test_attention_only_is_the_default_and_can_be_turned_off(demo) -> None:
    diff, _ = demo
    assert render(diff, "github") == render_github(diff) == render(diff, "github", attention_only=True)
    everything = annotations(render(diff, "github", attention_only=False))
    notices = [(c.properties["file"], c.properties["line"], c.properties["endLine"]) for c in everything[5:-1]]
    assert all(c.name == "notice" for c in everything[5:])
    assert notices == [  # re-anchored evidence, where its text stands now
        ("src/taskq/config.py", "5", "5"),
        ("src/taskq/queue.py", "19", "20"),
        ("src/taskq/util.py", "4", "9"),
        ("src/taskq/workers.py", "5", "5"),
        ("src/taskq/workers.py", "8", "10"),
    ]
    assert everything[6].data.endswith("Nothing to decide: `wikiwarden fix` re-anchors it.")


def test_a_reference_that_is_only_a_note_is_a_notice_without_attention_only() -> None:
    note = BrokenReference("openwiki/q.md", 4, ".cache/x.json", ".cache/x.json", ".cache/x.json", "missing",
                           attention=False, note="a path git ignores.")  # fmt: skip
    report = SweepReport("working tree", None, "openwiki", (), broken_references=(note,))
    assert [c.name for c in annotations(render_github(report))] == ["notice"]  # the summary alone
    found, _summary = annotations(render_github(report, attention_only=False))
    assert (found.name, found.properties["title"], found.properties["file"]) == (
        "notice", "Wiki reference to check: openwiki/q.md", "openwiki/q.md",
    )  # fmt: skip
    assert found.data.endswith("Only a note, not failing the check: a path git ignores.")


def test_a_full_sweep_has_no_change_to_blame_so_everything_is_an_error(demo) -> None:
    _, full = demo
    found = annotations(render_github(full))[:-1]
    assert found and {c.name for c in found} == {"error"}


def _stale(touched: bool) -> ClaimResult:
    evidence = EvidenceResult(
        "repo://src/a.py#L1-L2", "v", Verdict.STALE, OpenWikiVerdict.STALE, span=(1, 2),
        resource_now="repo://src/a.py#L1-L2", touched=touched, old_text="a\n", new_text="b\n",
    )  # fmt: skip
    return ClaimResult("claim_1", "A is a.", Verdict.STALE, touched, (evidence,))


def test_what_was_stale_before_the_change_is_a_warning() -> None:
    page = PageResult("openwiki/a.md", "openwiki/.claims/a.json", None, (_stale(False),))
    assert [c.name for c in annotations(render_github(SweepReport("v2", "v1", "openwiki", (page,))))] == [
        "warning",
        "notice",
    ]
    page = PageResult("openwiki/a.md", "openwiki/.claims/a.json", None, (_stale(True),))
    assert annotations(render_github(SweepReport("v2", "v1", "openwiki", (page,))))[0].name == "error"


def test_nothing_to_say_is_one_notice() -> None:
    report = SweepReport("working tree", None, "openwiki", ())
    [summary] = annotations(render_github(report, attention_only=False))
    assert summary.data == "0 claims on 0 pages: nothing to check. Nothing needs attention."


def test_repository_content_cannot_inject_a_workflow_command() -> None:
    report = hostile_report()
    output = render_github(report, attention_only=False)
    commands = annotations(output)  # every line an annotation: no set-output, add-mask, stop-commands, debug
    assert len(commands) == len(findings(report, reanchored=True)) + 1
    lines = output.splitlines()  # as any reader splits them, not only the runner
    assert len(lines) == len(commands) and all(
        line.startswith(("::error ", "::warning ", "::notice ")) for line in lines
    )
    by_title = {c.properties["title"].split(":")[0]: c for c in commands}
    assert set(by_title) == {
        "Wiki sidecar unreadable",
        "Wiki claim error",
        "Wiki claim stale",
        "Wiki claim unresolved",
        "Wiki reference broken",
        "Wikiwarden",
    }
    # the paths reach GitHub exactly as git names them, the newline and the delimiters included ...
    files = sorted(c.properties.get("file", "") for c in commands)
    assert HOSTILE_CITED in files and HOSTILE_PATH in files
    stale = by_title["Wiki claim stale"]
    assert stale.properties["file"] == HOSTILE_CITED and stale.properties["line"] == "3"
    # ... and the untrusted text as one inert line of the message: mentions defused, the rest verbatim
    assert stale.data.startswith(plain(INJECTION) + "\n\nClaim claim_")
    assert "::set-output name=pwned::1" in stale.data and "%0A::error::fake %25" in stale.data
    assert "@\u2060octocat" in stale.data
    # the diff is code: its lines kept as lines of the message, never of the output
    assert "\n+::set-output name=diff::1" in stale.data
    assert parse_line("::set-output name=diff::1") is not None  # (which the runner would act on, alone on a line)


def test_ungrounded_pages_are_one_notice_without_attention_only(tmp_path: Path) -> None:
    pages = tuple(f"openwiki/p{n}.md" for n in range(25))
    report = SweepReport("working tree", None, "openwiki", (), ungrounded_pages=pages)
    assert len(annotations(render_github(report))) == 1  # not something that needs attention
    notice, _summary = annotations(render_github(report, attention_only=False))
    assert notice.properties == {"title": "Wikiwarden: pages without claims"}
    assert notice.data.startswith("25 pages have no claims, so nothing checks them: openwiki/p0.md, openwiki/p1.md")
    assert notice.data.endswith("openwiki/p19.md and 5 more.")
    for count, end in [(20, "openwiki/p18.md, openwiki/p19.md."), (21, "openwiki/p19.md and 1 more.")]:
        report = SweepReport("working tree", None, "openwiki", (), ungrounded_pages=pages[:count])
        notice, _summary = annotations(render_github(report, attention_only=False))
        assert notice.data.endswith(end) and notice.data.startswith(f"{count} pages have no claims")

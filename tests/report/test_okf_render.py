"""What `okf validate` and `okf sync` say (bot/report/okf.py), from the use cases' plain answers."""

from __future__ import annotations

from bot.okf.sync import SyncPlan
from bot.okf.validate import Problem
from bot.report.okf import sync_lines, validation_json, validation_text

PROBLEMS = [
    Problem("a.md", "type", "missing", "error"),
    Problem("b.md", "", "not UTF-8", "error"),
    Problem("c.md", "sources", "empty", "warning"),
]


def test_validation_says_each_problem_then_the_counts() -> None:
    assert validation_text(PROBLEMS, "openwiki") == (
        "error: a.md: type: missing\nerror: b.md: not UTF-8\nwarning: c.md: sources: empty\n"
        "openwiki: 2 errors, 1 warning\n"
    )
    assert validation_text([], "docs") == "docs: 0 errors, 0 warnings\n"


def test_validations_json_counts_and_lists_every_problem() -> None:
    assert validation_json(PROBLEMS[2:], "docs") == {
        "bundle": "docs",
        "errors": 0,
        "warnings": 1,
        "problems": [{"file": "c.md", "field": "sources", "problem": "empty", "severity": "warning"}],
    }


def test_a_sync_says_what_it_wrote_what_it_left_and_its_problems_apart() -> None:
    plan = SyncPlan(
        writes={"w/b.md": b"", "w/a.md": b"", "w/index.md": b""},
        problems=[("w/bad.md", "invalid YAML front matter")],
        kept=[("w/x/index.md", "a page of its own")],
    )
    assert sync_lines(plan, "w", dry_run=False, init_command="unused") == [
        (False, "wrote w/a.md"), (False, "wrote w/b.md"), (False, "wrote w/index.md"),
        (False, "left as it is: w/x/index.md: a page of its own"),
        (True, "left as it is: w/bad.md: invalid YAML front matter"),
    ]  # fmt: skip
    assert sync_lines(plan, "w", dry_run=True, init_command="unused")[0] == (False, "would write w/a.md")
    assert sync_lines(SyncPlan(), "w", dry_run=False, init_command="unused") == [(False, "everything is up to date")]


def test_a_person_s_folder_not_asked_to_sync_is_told_how_and_nothing_is_listed() -> None:
    held = SyncPlan(writes={"docs/a.md": b"", "docs/index.md": b""}, held=True)
    assert sync_lines(held, "docs", dry_run=False, init_command="wikiwarden okf sync --init") == [
        (False, "docs/ is not an OpenWiki wiki (no .last-update.json, no index.md OpenWiki or Wikiwarden wrote): okf "
         "sync would add front matter to 1 page and indexes to 1 folder; run `wikiwarden okf sync --init` to do so"),
    ]  # fmt: skip
    said = sync_lines(held, "docs", dry_run=True, init_command="wikiwarden okf sync --init")
    assert said[:2] == [(False, "would write docs/a.md"), (False, "would write docs/index.md")]

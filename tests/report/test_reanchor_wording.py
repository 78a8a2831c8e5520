"""A check writes nothing, so no format of its report says evidence was "re-anchored": moved and cosmetic evidence
is said to stand elsewhere, and a fix (`wikiwarden fix`) to re-anchor it. Only a fix's own report, which wrote it,
says "re-anchored" (tests/test_cli_fix.py)."""

from __future__ import annotations

import json

import pytest
from citools import annotations, demo_reports

from bot.claims.results import SweepReport
from bot.github.content.check_output import check_output
from bot.report.check import FORMATS, render
from bot.usecases.config_file import RepoConfig

MOVED_IN_FILE = "same text at other lines; `wikiwarden fix` re-anchors it"
MOVED_TO_FILE = "same text in another file; `wikiwarden fix` re-anchors it"
COSMETIC = "only line endings or trailing whitespace changed; `wikiwarden fix` re-anchors it"
SECTION = "### Moved or cosmetic: a fix re-anchors them, nothing to decide (4)"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[SweepReport, SweepReport]:
    return demo_reports(tmp_path_factory.mktemp("demo") / "repo")


def test_no_format_of_a_check_says_it_re_anchored_anything(demo: tuple[SweepReport, SweepReport]) -> None:
    for report in demo:
        for fmt in FORMATS:
            for attention_only in (False, True):
                shown = render(report, fmt, attention_only=attention_only)
                assert "re-anchored" not in shown.lower(), (fmt, attention_only)
    diff, _ = demo
    output = check_output(diff, RepoConfig())  # the App's check run
    assert "re-anchored" not in (output.title + output.summary).lower()
    assert "4 to re-anchor" in output.title


def test_each_format_says_where_the_text_stands_and_that_a_fix_re_anchors_it(
    demo: tuple[SweepReport, SweepReport],
) -> None:
    diff, _ = demo
    text = render(diff, "text")
    assert f"queue.py#L19-L20  ({MOVED_IN_FILE}; OpenWiki would say fresh)" in text  # `peek` inserted above
    assert f"util.py#L4-L9  ({MOVED_TO_FILE}; OpenWiki would say unresolved)" in text  # `drain` moved out
    assert f"config.py#L5-L5  ({COSMETIC}; OpenWiki would say unresolved)" in text  # CRLF
    markdown = render(diff, "markdown")
    assert SECTION in markdown  # the section says what re-anchors them; each record what happened to it
    assert "— same text at other lines; OpenWiki would say fresh" in markdown
    assert "— same text in another file; OpenWiki would say unresolved" in markdown
    notices = [c for c in annotations(render(diff, "github", attention_only=False)) if c.name == "notice"][:-1]
    assert len(notices) == 5 and all(
        n.data.endswith("Nothing to decide: `wikiwarden fix` re-anchors it.") for n in notices
    )
    sarif = json.loads(render(diff, "sarif"))
    results = sarif["runs"][0]["results"]
    assert results and all(r["properties"].get("verdict") not in ("moved", "cosmetic") for r in results)

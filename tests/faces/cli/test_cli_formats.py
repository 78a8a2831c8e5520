"""`wikiwarden check --format github|sarif [--attention-only]` on real repositories: the demo's (every verdict and a
broken reference) and a small one whose claim the test makes stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from citools import annotations, sarif_errors
from conftest import GitRepo

from bot.cli import build_parser
from bot.demo import build_demo_repository
from bot.report.check import FORMATS, render
from bot.source.git import GitRepository
from bot.usecases.check import check_repository

pytestmark = pytest.mark.usefixtures("isolated_cli")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "repo"
    build_demo_repository(root)
    return root


def _check(cli, root: Path, *args: str):
    return cli("check", "--repo", root, "--base", "v1", "--head", "v2", *args)


def test_the_command_offers_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    for fmt in FORMATS:
        assert parser.parse_args(["check", "--format", fmt]).format == fmt
    with pytest.raises(SystemExit):
        parser.parse_args(["check", "--format", "xml"])
    assert "(choose from 'text', 'markdown', 'json', 'github', 'sarif')" in capsys.readouterr().err


def test_github_annotates_what_needs_attention_and_exits_1(cli, demo: Path) -> None:
    run = _check(cli, demo, "--format", "github")
    assert run.code == 1 and run.err == ""
    commands = annotations(run.out)
    assert [c.name for c in commands] == ["error"] * 5 + ["notice"]
    assert ("src/taskq/retry.py", "5", "5") in [
        (c.properties.get("file"), c.properties.get("line"), c.properties.get("endLine")) for c in commands
    ]
    assert _check(cli, demo, "--format", "github", "--attention-only").out == run.out  # the default for github
    with GitRepository(demo) as repo:
        assert run.out == render(check_repository(repo, base="v1", head="v2"), "github", attention_only=True)


def test_github_without_attention_only_notes_what_was_re_anchored(cli, demo: Path) -> None:
    run = _check(cli, demo, "--format", "github", "--no-attention-only")
    assert run.code == 1
    commands = annotations(run.out)
    assert [c.name for c in commands] == ["error"] * 5 + ["notice"] * 6
    assert {c.properties["file"] for c in commands[5:-1]} == {
        "src/taskq/config.py",
        "src/taskq/queue.py",
        "src/taskq/util.py",
        "src/taskq/workers.py",
    }


def test_sarif_validates_and_holds_one_result_per_finding(cli, demo: Path) -> None:
    run = _check(cli, demo, "--format", "sarif")
    assert run.code == 1 and run.err == ""
    log = json.loads(run.out)
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == [
        "wikiwarden/broken-reference",
        "wikiwarden/error",
        "wikiwarden/stale",
        "wikiwarden/stale",
        "wikiwarden/unresolved",
    ]
    assert _check(cli, demo, "--format", "sarif", "--no-attention-only").out == run.out  # results are alerts


def test_attention_only_filters_text_markdown_and_json(cli, demo: Path) -> None:
    text = _check(cli, demo, "--attention-only")
    assert text.code == 1 and "Only what needs attention is listed." in text.out
    assert "openwiki/queue.md" in _check(cli, demo).out and "openwiki/queue.md" not in text.out
    markdown = _check(cli, demo, "--format", "markdown", "--attention-only").out
    assert "Moved or cosmetic" not in markdown
    assert "Moved or cosmetic" in _check(cli, demo, "--format", "markdown").out
    document = _check(cli, demo, "--format", "json", "--attention-only").json()
    assert document["attention_only"] is True and document["summary"]["moved"] == 3
    assert {c["verdict"] for p in document["pages"] for c in p["claims"]} == {"stale", "unresolved", "error"}
    assert _check(cli, demo, "--format", "json").json()["attention_only"] is False


def test_a_change_that_makes_a_claim_stale(cli, repo: GitRepo) -> None:
    repo.write("src/a.py", "def a():\n    return 1\n")
    repo.write("openwiki/a.md", "# A\n\n`a` returns 1.\n")
    repo.commit("code and wiki")
    added = cli("claim", "add", "--repo", repo.root, "a.md", "a returns 1.", "repo://src/a.py#L1-L2")
    assert added.code == 0, added.err
    repo.commit("ground the wiki", tag="v1")

    fine = cli("check", "--repo", repo.root, "--base", "v1", "--format", "github")
    assert fine.code == 0
    [summary] = annotations(fine.out)
    assert summary.data.endswith("Nothing needs attention.")
    clean = cli("check", "--repo", repo.root, "--base", "v1", "--format", "sarif")
    assert clean.code == 0 and json.loads(clean.out)["runs"][0]["results"] == []

    repo.write("src/a.py", "\n\ndef a():\n    return 2\n")  # the working tree: moved down and changed
    run = cli("check", "--repo", repo.root, "--base", "v1", "--format", "github")
    assert run.code == 1
    stale, _summary = annotations(run.out)
    assert (stale.name, stale.properties["file"], stale.properties["line"], stale.properties["endLine"]) == (
        "error",
        "src/a.py",
        "3",
        "4",
    )
    assert stale.data.startswith("a returns 1.\n\n") and "+    return 2" in stale.data
    sarif = json.loads(cli("check", "--repo", repo.root, "--base", "v1", "--format", "sarif").out)
    assert sarif_errors(sarif) == []
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "endLine": 4}

"""Integration tests of the `wikiwarden` command line (bot/cli/) on real throwaway repositories."""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clitools import Run, added_id
from conftest import GitRepo

import bot.cli as cli_module
import bot.cli.check as check_module
import bot.source.memory as local_memory_module
import bot.usecases.check as usecases_check
from bot.claims.sidecar import parse_sidecar

VERDICTS = ("fresh", "moved", "cosmetic", "stale", "unresolved", "error")

CODE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"  # b() is lines 5-6
OTHER = "VALUE = 10\n\n\ndef c():\n    return VALUE\n"
PAGE_A = "---\ntype: Concept\ntitle: A\n---\n\n# A\n\n`b` returns 2.\n"
PAGE_B = "# B\n\n`c` returns VALUE, 10.\n"

pytestmark = pytest.mark.usefixtures("isolated_cli")


def _sidecar(repo: GitRepo, page: str = "a") -> dict:
    return json.loads(repo.read(f"openwiki/.claims/{page}.json"))


def _only_claim(report: dict) -> dict:
    claims = [c for p in report["pages"] for c in p["claims"]]
    assert len(claims) == 1, claims
    return claims[0]


@pytest.fixture
def grounded(repo: GitRepo, cli) -> tuple[GitRepo, str]:
    """src/a.py with a page claiming what b() returns, grounded on lines 5-6; committed and tagged v1."""
    repo.write("src/a.py", CODE)
    repo.write("openwiki/a.md", PAGE_A)
    repo.write("openwiki/index.md", "# Index\n\n- [A](a.md)\n")
    repo.commit("code and wiki")
    claim = added_id(cli("claim", "add", "--repo", repo.root, "a.md", "b returns 2.", "repo://src/a.py#L5-L6"))
    repo.commit("ground the wiki", tag="v1")
    return repo, claim


# -- exit codes --------------------------------------------------------------------------------------


def test_check_exits_0_when_everything_is_fresh(grounded, cli) -> None:
    repo, _claim = grounded
    run = cli("check", "--repo", repo.root)
    assert run.code == 0, run.err
    assert "1 claim on 1 page: 1 fresh" in run.out
    assert run.err == ""
    assert cli("check", "--repo", repo.root, "--head", "v1").code == 0
    assert cli("check", "--repo", repo.root, "--base", "v1", "--head", "v1").code == 0
    assert cli("check", "--repo", repo.root, "--base", "v1", "--all").code == 0
    assert (
        cli("check", "--repo", repo.root, "--jobs", "1").code == cli("check", "--repo", repo.root, "-j", "3").code == 0
    )


def test_check_runs_without_the_cyclic_collector_and_gives_it_back(grounded, cli, monkeypatch) -> None:
    """A one-shot check pauses the collector for the whole command: after the sweep, keeping the verdict cache and
    writing the report would have it traverse every object the sweep made, to find no cycle."""
    repo, _claim = grounded
    enabled: dict[str, bool] = {}

    def watched(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            enabled[name] = gc.isenabled()
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(usecases_check, "check_repository", watched("check", usecases_check.check_repository))
    monkeypatch.setattr(
        local_memory_module.GitDirMemory, "keep", watched("keep", local_memory_module.GitDirMemory.keep)
    )
    monkeypatch.setattr(check_module, "write_bytes", watched("report", check_module.write_bytes))
    run = cli("check", "--repo", repo.root, "--format", "json")
    assert run.code == 0, run.err
    assert enabled == {"check": False, "keep": False, "report": False} and gc.isenabled()


def test_check_from_the_current_folder_and_a_subfolder(grounded, cli, monkeypatch) -> None:
    repo, _ = grounded
    monkeypatch.chdir(repo.root / "src")
    run = cli("check", "--format", "json")
    assert run.code == 0, run.err
    assert run.json()["summary"]["fresh"] == 1


def test_check_exits_1_on_a_stale_claim(grounded, cli) -> None:
    repo, claim = grounded
    repo.write("src/a.py", CODE.replace("return 2", "return 3"))
    run = cli("check", "--repo", repo.root)
    assert run.code == 1
    assert "1 stale" in run.out and claim in run.out


def test_check_exits_1_on_an_unresolved_claim(grounded, cli) -> None:
    repo, _claim = grounded
    repo.remove("src/a.py")
    run = cli("check", "--repo", repo.root, "--format", "json")
    assert run.code == 1
    assert _only_claim(run.json())["verdict"] == "unresolved"


def test_check_exits_1_on_evidence_in_error(grounded, cli) -> None:
    repo, _claim = grounded
    run = cli("check", "--repo", repo.root, "--max-file-size", "10", "--format", "json")
    assert run.code == 1
    found = _only_claim(run.json())
    assert found["verdict"] == "error"
    assert "larger than the 10-byte limit" in found["evidence"][0]["error"]

    repo.remove("src/a.py")
    repo.write("src/real.py", CODE)
    repo.symlink("src/a.py", "real.py")
    run = cli("check", "--repo", repo.root, "--format", "json")
    assert run.code == 1
    evidence = _only_claim(run.json())["evidence"][0]
    assert evidence["verdict"] == "error"
    assert "symlink" in evidence["error"]


def test_check_exits_1_on_an_unreadable_sidecar(grounded, cli) -> None:
    repo, _ = grounded
    repo.write("openwiki/.claims/a.json", "{ not json")
    run = cli("check", "--repo", repo.root, "--format", "json")
    assert run.code == 1
    report = run.json()
    assert report["summary"]["page_errors"] == 1
    [page] = report["pages"]
    assert page["page"] == "openwiki/a.md"
    assert "invalid JSON" in page["error"]
    assert page["claims"] == []
    text = cli("check", "--repo", repo.root)
    assert text.code == 1
    assert "1 unreadable sidecar" in text.out and "1 unreadable sidecars" not in text.out


def _usage_error(run: Run, message: str) -> None:
    assert run.code == 2, (run.out, run.err)
    assert run.err.startswith("wikiwarden: error: "), run.err
    assert message in run.err, run.err
    assert "Traceback" not in run.err


def test_check_usage_errors_exit_2(grounded, cli, tmp_path: Path) -> None:
    repo, _ = grounded
    plain = tmp_path / "plain"
    plain.mkdir()
    _usage_error(cli("check", "--repo", plain), "is not inside a git repository")
    _usage_error(cli("check", "--repo", tmp_path / "missing"), "is not a directory")
    _usage_error(cli("check", "--repo", repo.root, "--base", "nope"), "'nope' does not name a commit")
    _usage_error(cli("check", "--repo", repo.root, "--head", "v9"), "'v9' does not name a commit")
    _usage_error(cli("check", "--repo", repo.root, "--base=--output=x"), "not a revision")
    _usage_error(cli("check", "--repo", repo.root, "--wiki-dir", ".."), "wiki folder must be a folder inside")
    _usage_error(cli("check", "--repo", repo.root, "--wiki-dir", "../elsewhere"), "wiki folder must be")
    _usage_error(cli("check", "--repo", repo.root, "--all"), "--all only makes sense with --base")
    _usage_error(cli("check", "--repo", repo.root, "--jobs", "0"), "--jobs must be a positive number of processes")
    _usage_error(
        cli("check", "--repo", repo.root, "--max-file-size", "0"),
        "--max-file-size must be a positive number of bytes",
    )
    _usage_error(
        cli("check", "--repo", repo.root, "--max-file-size=-5"),
        "--max-file-size must be a positive number of bytes",
    )


def test_claim_add_refuses_evidence_that_does_not_resolve(grounded, cli) -> None:
    repo, _ = grounded
    before = repo.read("openwiki/.claims/a.json")
    root = repo.root
    _usage_error(
        cli("claim", "add", "--repo", root, "a.md", "x", "repo://src/missing.py"),
        "src/missing.py does not exist",
    )
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "x", "repo://src/a.py#L5-L7"), "has only 6 lines")
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "x", "repo://src/a.py#L40"), "has only 6 lines")
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "x", "repo://openwiki/index.md"), "reserved path")
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "x", "repo://../outside.py"), "must stay inside")
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "x", "repo://src/../../outside.py"), "must stay inside")
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "x", "repo://.."), "escapes the repository")
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "x", "https://example.com/a.py"), "Unsupported")
    _usage_error(cli("claim", "add", "--repo", root, "missing.md", "x", "repo://src/a.py"), "does not exist")
    _usage_error(cli("claim", "add", "--repo", root, "index.md", "x", "repo://src/a.py"), "not a grounded wiki page")
    repo.write(".openwikiignore", "# generated code\nsrc/\n")
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "x", "repo://src/a.py#L1"), "excluded by .openwikiignore")
    assert repo.read("openwiki/.claims/a.json") == before  # nothing was written


def test_claim_add_refuses_evidence_inside_a_custom_wiki_folder(repo: GitRepo, cli) -> None:
    repo.write("docs/wiki/page.md", "# Page\n")
    repo.write("docs/wiki/notes.txt", "not code\n")
    repo.write("src/a.py", CODE)
    repo.commit()
    wiki = ("--repo", repo.root, "--wiki-dir", "docs/wiki")
    _usage_error(
        cli("claim", "add", *wiki, "page.md", "x", "repo://docs/wiki/notes.txt"),
        "evidence must be code, not the wiki",
    )
    added = cli("claim", "add", *wiki, "page.md", "b returns 2.", "repo://src/a.py#L5-L6")
    assert added.code == 0, added.err
    assert (repo.root / "docs/wiki/.claims/page.json").is_file()
    assert cli("check", *wiki).code == 0


def test_claim_confirm_of_an_unknown_id_exits_2(grounded, cli) -> None:
    repo, _ = grounded
    _usage_error(cli("claim", "confirm", "--repo", repo.root, "claim_" + "0" * 32), "no claim claim_000")
    _usage_error(cli("claim", "retract", "--repo", repo.root, "claim_" + "0" * 32), "no claim claim_000")


# -- the working tree, and commits read from git alone ----------------------------------------------


def test_check_base_head_is_a_pre_commit_check(grounded, cli) -> None:
    repo, claim = grounded
    repo.write("src/a.py", CODE.replace("return 2", "return 3"))  # not committed
    run = cli("check", "--repo", repo.root, "--base", "HEAD", "--format", "json")
    assert run.code == 1
    report = run.json()
    assert report["head"] == "working tree"
    assert report["base"].startswith("HEAD (")
    found = _only_claim(report)
    assert (found["id"], found["verdict"], found["touched"]) == (claim, "stale", True)
    evidence = found["evidence"][0]
    assert evidence["old_text"] == "def b():\n    return 2\n"
    assert evidence["new_text"] == "def b():\n    return 3\n"
    text = cli("check", "--repo", repo.root, "--base", "HEAD")
    assert text.code == 1
    assert "[this change]" in text.out

    repo.write("src/a.py", CODE)  # reverted
    run = cli("check", "--repo", repo.root, "--base", "HEAD", "--format", "json")
    assert run.code == 0, run.out
    assert run.json()["summary"]["stale"] == 0


def test_check_base_sees_staged_edits_and_untracked_files(grounded, cli) -> None:
    repo, _claim = grounded
    repo.write("src/a.py", CODE.replace("return 2", "return 3"))
    repo.git("add", "src/a.py")  # staged, not committed
    run = cli("check", "--repo", repo.root, "--base", "HEAD", "--format", "json")
    assert run.code == 1
    assert (_only_claim(run.json())["verdict"], _only_claim(run.json())["touched"]) == ("stale", True)

    # b() moves into a new, untracked file: still found, as moved.
    repo.write("src/a.py", CODE.split("\n\n\ndef b", maxsplit=1)[0] + "\n")
    repo.write("src/b.py", "def b():\n    return 2\n")
    run = cli("check", "--repo", repo.root, "--base", "HEAD", "--format", "json")
    assert run.code == 0, run.out
    evidence = _only_claim(run.json())["evidence"][0]
    assert (evidence["verdict"], evidence["resource_now"]) == ("moved", "repo://src/b.py#L1-L2")


def _history(repo: GitRepo, cli) -> dict[str, str]:
    """v1 grounds two claims; v2 changes one claim's evidence and moves the other's."""
    repo.write("src/a.py", CODE)
    repo.write("src/c.py", OTHER)
    repo.write("openwiki/a.md", PAGE_A)
    repo.write("openwiki/b.md", PAGE_B)
    repo.commit("code")
    ids = {
        "a": added_id(cli("claim", "add", "--repo", repo.root, "a.md", "b returns 2.", "repo://src/a.py#L5-L6")),
        "b": added_id(cli("claim", "add", "--repo", repo.root, "b.md", "VALUE is 10.", "repo://src/c.py#L1")),
    }
    repo.commit("ground", tag="v1")
    repo.write("src/a.py", '"""Module a."""\n\nimport os\n\n' + CODE)  # b() moves down to lines 9-10
    repo.write("src/c.py", OTHER.replace("VALUE = 10", "VALUE = 20"))
    repo.commit("move and change", tag="v2")
    return ids


def test_check_head_reads_git_objects_only(repo: GitRepo, cli) -> None:
    ids = _history(repo, cli)
    commands = [
        ("check", "--repo", repo.root, "--base", "v1", "--head", "v2", "--format", "json"),
        ("check", "--repo", repo.root, "--head", "v2", "--format", "json"),
        ("check", "--repo", repo.root, "--head", "v1", "--format", "json"),
        ("check", "--repo", repo.root, "--base", "v1", "--head", "v2", "--format", "text", "-v"),
    ]
    before = [cli(*c) for c in commands]
    assert [r.code for r in before] == [1, 1, 0, 1]
    verdicts = {c["id"]: c["verdict"] for p in before[0].json()["pages"] for c in p["claims"]}
    assert verdicts == {ids["a"]: "moved", ids["b"]: "stale"}

    for path in repo.git("ls-files", "-z").split("\0"):
        if path:
            repo.remove(path)
    shutil.rmtree(repo.root / "openwiki")
    shutil.rmtree(repo.root / "src")
    assert sorted(p.name for p in repo.root.iterdir()) == [".git"]

    after = [cli(*c) for c in commands]
    assert [(r.code, r.out, r.err) for r in after] == [(r.code, r.out, r.err) for r in before]
    # The working tree, by contrast, now has no wiki at all: an error, not a wiki with nothing to check.
    _usage_error(cli("check", "--repo", repo.root, "--format", "json"), "openwiki/ does not exist")


# -- report formats ----------------------------------------------------------------------------------


def test_json_report_of_a_moved_block(repo: GitRepo, cli) -> None:
    ids = _history(repo, cli)
    v1, v2 = (repo.git("rev-parse", t).strip() for t in ("v1", "v2"))
    run = cli("check", "--repo", repo.root, "--base", "v1", "--head", "v2", "--format", "json")
    assert run.code == 1
    report = run.json()
    assert {"head", "base", "wiki_dir", "summary", "pages"} <= set(report)
    assert report["head"] == f"v2 ({v2[:12]})"
    assert report["base"] == f"v1 ({v1[:12]})"
    assert report["wiki_dir"] == "openwiki"
    assert report["needs_attention"] is True
    assert {v: report["summary"][v] for v in VERDICTS} == {
        "fresh": 0,
        "moved": 1,
        "cosmetic": 0,
        "stale": 1,
        "unresolved": 0,
        "error": 0,
    }
    assert report["summary"]["claims"] == 2
    assert [p["page"] for p in report["pages"]] == ["openwiki/a.md", "openwiki/b.md"]
    for page in report["pages"]:
        assert {"page", "error", "claims"} <= set(page)
        assert page["error"] is None
        for claim in page["claims"]:
            assert {"id", "statement", "verdict", "touched", "evidence"} <= set(claim)
            for evidence in claim["evidence"]:
                assert {"resource", "verdict", "openwiki_verdict", "span", "resource_now", "error"} <= set(evidence)

    [moved] = report["pages"][0]["claims"]
    assert (moved["id"], moved["statement"], moved["verdict"], moved["touched"]) == (
        ids["a"],
        "b returns 2.",
        "moved",
        True,
    )
    [evidence] = moved["evidence"]
    expected = {
        "resource": "repo://src/a.py#L5-L6",
        "verdict": "moved",
        "openwiki_verdict": "fresh",
        "span": [9, 10],
        "resource_now": "repo://src/a.py#L9-L10",
        "error": None,
        "touched": True,
    }
    assert {key: evidence[key] for key in expected} == expected
    [stale] = report["pages"][1]["claims"]
    assert (stale["id"], stale["verdict"], stale["touched"]) == (ids["b"], "stale", True)
    assert stale["evidence"][0]["openwiki_verdict"] == "stale"
    assert stale["evidence"][0]["span"] == [1, 1]

    # The full sweep of the working tree (v2 checked out) re-anchors the moved block the same way.
    full = cli("check", "--repo", repo.root, "--format", "json").json()
    assert full["base"] is None and full["head"] == "working tree"
    full_evidence = full["pages"][0]["claims"][0]["evidence"][0]
    assert (full_evidence["verdict"], full_evidence["span"], full_evidence["resource_now"]) == (
        "moved",
        [9, 10],
        "repo://src/a.py#L9-L10",
    )


def test_markdown_report_has_the_counts_table(repo: GitRepo, cli) -> None:
    _history(repo, cli)
    run = cli("check", "--repo", repo.root, "--base", "v1", "--head", "v2", "--format", "markdown")
    assert run.code == 1
    lines = run.out.splitlines()
    header = "| fresh | moved | cosmetic | stale | unresolved | error |"
    assert header in lines
    at = lines.index(header)
    assert lines[at + 1] == "|---:|---:|---:|---:|---:|---:|"
    assert lines[at + 2] == "| 0 | 1 | 0 | 1 | 0 | 0 |"
    assert "### Made stale by this change (1)" in run.out
    assert "### Moved or cosmetic: a fix re-anchors them, nothing to decide (1)" in run.out


def test_text_report_groups_claims_by_page(repo: GitRepo, cli) -> None:
    ids = _history(repo, cli)
    run = cli("check", "--repo", repo.root, "--base", "v1", "--head", "v2", "--format", "text")
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[0].startswith("Wikiwarden check · openwiki/ · head: v2 (")
    assert "2 claims on 2 pages: 1 moved, 1 stale; 2 touched by this change" in lines[1]
    page_a, page_b = lines.index("openwiki/a.md"), lines.index("openwiki/b.md")
    claim_a = next(i for i, line in enumerate(lines) if ids["a"] in line)
    claim_b = next(i for i, line in enumerate(lines) if ids["b"] in line)
    assert page_a < claim_a < page_b < claim_b
    assert "moved" in lines[claim_a] and "stale" in lines[claim_b]
    assert "repo://src/a.py#L5-L6 → repo://src/a.py#L9-L10" in run.out
    assert "-VALUE = 10" in run.out and "+VALUE = 20" in run.out


# -- claim add ---------------------------------------------------------------------------------------


def test_claim_add_writes_a_valid_sidecar(repo: GitRepo, cli) -> None:
    repo.write("src/a.py", CODE)
    repo.write("src/my file.py", "x = 1\n")
    repo.write("openwiki/a.md", PAGE_A)
    repo.write("openwiki/guide/b.md", PAGE_B)
    repo.commit()
    root = repo.root
    run = cli("claim", "add", "--repo", root, "a.md", "  a returns 1.  ", "repo://./src/a.py#L2", "repo://src/a.py")
    first = added_id(run)
    assert "(openwiki/.claims/a.json)" in run.out
    assert "  repo://src/a.py#L2-L2\n" in run.out

    path = "openwiki/.claims/a.json"
    sidecar = parse_sidecar(repo.read(path), path)
    assert sidecar.page_version == "sha256:" + hashlib.sha256(PAGE_A.encode()).hexdigest()
    [claim] = sidecar.claims
    assert (claim.id, claim.statement) == (first, "a returns 1.")
    assert [e.resource for e in claim.evidence] == ["repo://src/a.py#L2-L2", "repo://src/a.py"]
    assert claim.evidence[0].version.startswith("repo-lines-v1:sha256:")
    assert claim.evidence[1].version == "repo-file-v1:sha256:" + hashlib.sha256(CODE.encode()).hexdigest()
    assert sidecar.verification is None

    # A second add appends; the page was edited meanwhile, so pageVersion follows it.
    repo.write("openwiki/a.md", PAGE_A + "\nMore.\n")
    second = added_id(cli("claim", "add", "--repo", root, "/openwiki/a.md", "x is 1.", "repo://src/my file.py#L1"))
    sidecar = parse_sidecar(repo.read(path), path)
    assert [c.id for c in sidecar.claims] == [first, second]
    assert sidecar.claims[1].evidence[0].resource == "repo://src/my%20file.py#L1-L1"
    assert sidecar.page_version == "sha256:" + hashlib.sha256((PAGE_A + "\nMore.\n").encode()).hexdigest()

    # Pages in subfolders get sidecars in the matching subfolder; ids are unique across pages.
    third = added_id(cli("claim", "add", "--repo", root, "openwiki/guide/b.md", "a again.", "repo://src/a.py#L1-L2"))
    nested = parse_sidecar(repo.read("openwiki/.claims/guide/b.json"), "b.json")
    assert [c.id for c in nested.claims] == [third]
    assert len({first, second, third}) == 3

    assert cli("check", "--repo", root).code == 0


def test_claim_add_rejects_duplicate_evidence_and_an_empty_statement(grounded, cli) -> None:
    repo, _ = grounded
    root = repo.root
    _usage_error(
        cli("claim", "add", "--repo", root, "a.md", "x", "repo://src/a.py#L1", "repo://./src/a.py#L1-L1"),
        "listed twice",
    )
    _usage_error(cli("claim", "add", "--repo", root, "a.md", "   ", "repo://src/a.py#L1"), "the statement is empty")


def test_claim_add_refuses_a_claim_the_page_already_makes(grounded, cli) -> None:
    """One statement is one claim of its page: the same statement with the same evidence (however it is written)
    is refused, and so is the same statement with other evidence (the message says how to give the claim more);
    one line, exit 2, nothing written. Another page may make the same statement."""
    repo, claim = grounded
    root = repo.root
    before = repo.read("openwiki/.claims/a.json")
    same = cli("claim", "add", "--repo", root, "openwiki/a.md", "  b returns 2. ", "repo://./src/a.py#L5-L6")
    assert same.code == 2 and same.out == "" and same.err.count("\n") == 1, same
    assert same.err == (
        f"wikiwarden: error: the page already has this claim with this evidence: {claim}; nothing written\n"
    )
    other = cli("claim", "add", "--repo", root, "a.md", "b returns 2.", "repo://src/a.py#L5-L6", "repo://src/a.py#L6")
    assert other.code == 2 and other.out == "" and other.err.count("\n") == 1, other
    assert other.err == (
        f"wikiwarden: error: the page already states this as {claim}, with other evidence (repo://src/a.py#L5-L6); "
        f"one statement is one claim: `wikiwarden claim retract {claim}`, then add it with all its evidence; "
        "nothing written\n"
    )
    assert repo.read("openwiki/.claims/a.json") == before
    assert repo.git("status", "--porcelain") == ""
    # another statement, or the same statement on another page, is another claim
    assert cli("claim", "add", "--repo", root, "a.md", "b returns two.", "repo://src/a.py#L5-L6").code == 0
    repo.write("openwiki/b.md", "# B\n\n`b` returns 2.\n")
    assert cli("claim", "add", "--repo", root, "b.md", "b returns 2.", "repo://src/a.py#L5-L6").code == 0


def test_claim_add_refuses_a_symlinked_sidecar_folder(repo: GitRepo, cli, tmp_path: Path) -> None:
    repo.write("src/a.py", CODE)
    repo.write("openwiki/a.md", PAGE_A)
    repo.commit()
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("untouched\n")
    repo.symlink("openwiki/.claims", str(target))
    run = cli("claim", "add", "--repo", repo.root, "a.md", "b returns 2.", "repo://src/a.py#L5-L6")
    _usage_error(run, "openwiki/.claims is a symlink")
    assert sorted(p.name for p in target.iterdir()) == ["keep.txt"]
    assert (target / "keep.txt").read_text() == "untouched\n"
    assert (repo.root / "openwiki/.claims").is_symlink()


def test_claim_add_does_not_overwrite_a_malformed_sidecar(grounded, cli) -> None:
    repo, _ = grounded
    broken = b'{"schemaVersion": 1, "pageVersion": "sha256:0", "claims": []}\n'
    repo.write("openwiki/.claims/a.json", broken)
    run = cli("claim", "add", "--repo", repo.root, "a.md", "a returns 1.", "repo://src/a.py#L1-L2")
    _usage_error(run, "pageVersion")
    assert repo.read("openwiki/.claims/a.json") == broken
    assert sorted(p.name for p in (repo.root / "openwiki/.claims").iterdir()) == ["a.json"]  # no temporary left


# -- claim confirm and retract -----------------------------------------------------------------------


def test_claim_confirm_rebaselines_changed_evidence(grounded, cli) -> None:
    repo, claim = grounded
    old = _sidecar(repo)["claims"][0]["evidence"][0]
    repo.write("src/a.py", CODE.replace("return 2", "return 3"))
    assert cli("check", "--repo", repo.root).code == 1
    run = cli("claim", "confirm", "--repo", repo.root, claim)
    assert run.code == 0, run.err
    assert f"confirmed {claim} on openwiki/a.md" in run.out
    new = _sidecar(repo)["claims"][0]["evidence"][0]
    assert new["resource"] == old["resource"] == "repo://src/a.py#L5-L6"
    assert new["version"] != old["version"]
    check = cli("check", "--repo", repo.root, "--format", "json")
    assert check.code == 0
    assert _only_claim(check.json())["verdict"] == "fresh"


def test_claim_confirm_rewrites_the_lines_of_moved_evidence(grounded, cli) -> None:
    repo, claim = grounded
    old = _sidecar(repo)["claims"][0]["evidence"][0]
    repo.write("src/a.py", "# a header\n\n\n" + CODE)
    assert _only_claim(cli("check", "--repo", repo.root, "--format", "json").json())["verdict"] == "moved"
    run = cli("claim", "confirm", "--repo", repo.root, claim)
    assert run.code == 0, run.err
    assert "  repo://src/a.py#L8-L9" in run.out
    new = _sidecar(repo)["claims"][0]["evidence"][0]
    assert new == {"resource": "repo://src/a.py#L8-L9", "version": old["version"]}
    check = cli("check", "--repo", repo.root, "--format", "json")
    assert check.code == 0
    assert _only_claim(check.json())["evidence"][0]["verdict"] == "fresh"


def test_claim_confirm_refuses_evidence_that_is_gone(grounded, cli) -> None:
    repo, claim = grounded
    before = repo.read("openwiki/.claims/a.json")
    repo.write("src/a.py", "something\nentirely\ndifferent\n")
    _usage_error(cli("claim", "confirm", "--repo", repo.root, claim), "the text and its anchors are gone")
    assert repo.read("openwiki/.claims/a.json") == before
    repo.remove("src/a.py")
    _usage_error(cli("claim", "confirm", "--repo", repo.root, claim), "src/a.py does not exist")
    assert repo.read("openwiki/.claims/a.json") == before


def test_claim_retract(grounded, cli) -> None:
    repo, first = grounded
    second = added_id(cli("claim", "add", "--repo", repo.root, "a.md", "a returns 1.", "repo://src/a.py#L1-L2"))
    document = _sidecar(repo)
    document["verification"] = {"by": "reviewer", "at": "2026-01-05T10:00:00Z"}
    repo.write("openwiki/.claims/a.json", json.dumps(document, indent=2) + "\n")

    run = cli("claim", "retract", "--repo", repo.root, first)
    assert run.code == 0, run.err
    assert f"retracted {first} from openwiki/a.md (openwiki/.claims/a.json)" in run.out
    document = _sidecar(repo)
    assert [c["id"] for c in document["claims"]] == [second]
    assert document["verification"] == {"by": "reviewer", "at": "2026-01-05T10:00:00Z"}

    assert cli("claim", "retract", "--repo", repo.root, second).code == 0
    raw = repo.read("openwiki/.claims/a.json")
    document = json.loads(raw)
    assert document["claims"] == []
    assert "verification" not in document
    assert document["pageVersion"] == "sha256:" + hashlib.sha256(PAGE_A.encode()).hexdigest()
    assert parse_sidecar(raw, "a.json").claims == ()
    _usage_error(cli("claim", "retract", "--repo", repo.root, second), f"no claim {second}")
    assert cli("check", "--repo", repo.root).code == 0


# -- claim list --------------------------------------------------------------------------------------


def test_claim_list(repo: GitRepo, cli) -> None:
    ids = _history(repo, cli)
    run = cli("claim", "list", "--repo", repo.root)
    assert run.code == 0, run.err
    assert run.out.splitlines() == [
        "openwiki/a.md",
        f"  {ids['a']}  b returns 2.",
        "      repo://src/a.py#L5-L6",
        "openwiki/b.md",
        f"  {ids['b']}  VALUE is 10.",
        "      repo://src/c.py#L1-L1",
    ]
    one = cli("claim", "list", "--repo", repo.root, "b.md")
    assert one.code == 0
    assert one.out.splitlines()[0] == "openwiki/b.md"
    assert ids["a"] not in one.out and ids["b"] in one.out

    listed = cli("claim", "list", "--repo", repo.root, "--format", "json")
    assert listed.code == 0
    document = listed.json()
    assert document["errors"] == []
    assert [(c["page"], c["id"], c["statement"]) for c in document["claims"]] == [
        ("openwiki/a.md", ids["a"], "b returns 2."),
        ("openwiki/b.md", ids["b"], "VALUE is 10."),
    ]
    assert document["claims"][0]["evidence"] == _sidecar(repo)["claims"][0]["evidence"]
    one = cli("claim", "list", "--repo", repo.root, "--format", "json", "openwiki/a.md").json()
    assert [c["id"] for c in one["claims"]] == [ids["a"]]


def test_claim_list_shows_a_hostile_statement_on_one_line_without_terminal_escapes(repo: GitRepo, cli) -> None:
    repo.write("src/a.py", "A = 1\n")
    repo.write("openwiki/a.md", PAGE_A)
    repo.commit()
    statement = "A is one\n\x1b[2J\x1b]0;pwned\x07 \u202eeno si A"
    assert cli("claim", "add", "--repo", repo.root, "a.md", statement, "repo://src/a.py#L1").code == 0
    run = cli("claim", "list", "--repo", repo.root)
    assert run.code == 0, run.err
    shown = run.out.splitlines()[1]
    assert shown.endswith("  A is one \ufffd[2J\ufffd]0;pwned\ufffd \ufffdeno si A")
    assert "\x1b" not in run.out and "\u202e" not in run.out and len(run.out.splitlines()) == 3
    listed = cli("claim", "list", "--repo", repo.root, "--format", "json").json()
    assert listed["claims"][0]["statement"] == statement  # the data itself is kept exactly


def test_claim_list_of_an_empty_wiki(repo: GitRepo, cli) -> None:
    repo.write("openwiki/a.md", PAGE_A)
    repo.commit()
    run = cli("claim", "list", "--repo", repo.root)
    assert (run.code, run.out) == (0, "no claims\n")
    assert cli("claim", "list", "--repo", repo.root, "--format", "json").json() == {
        "claims": [],
        "errors": [],
    }


def test_claim_list_reports_a_broken_sidecar(repo: GitRepo, cli) -> None:
    ids = _history(repo, cli)
    repo.write("openwiki/.claims/b.json", b"\xff\xfe not utf-8")
    run = cli("claim", "list", "--repo", repo.root)
    assert run.code == 1
    assert ids["a"] in run.out and ids["b"] not in run.out
    assert run.err.startswith("! openwiki/.claims/b.json")
    assert "not UTF-8" in run.err
    listed = cli("claim", "list", "--repo", repo.root, "--format", "json")
    assert listed.code == 1
    document = listed.json()
    assert [c["id"] for c in document["claims"]] == [ids["a"]]
    [error] = document["errors"]
    assert error["page"] == "openwiki/b.md"
    assert "not UTF-8" in error["error"]


# -- demo --------------------------------------------------------------------------------------------


def test_demo(cli, tmp_path: Path) -> None:
    target = tmp_path / "demo"
    run = cli("demo", "--dir", target)
    assert run.code == 0, run.err
    for verdict in VERDICTS:
        assert re.search(rf"\b\d+ {verdict}\b", run.out), verdict
    assert (target / ".git").is_dir()

    again = tmp_path / "demo-json"
    listed = cli("demo", "--dir", again, "--format", "json")
    assert listed.code == 0, listed.err
    summary = listed.json()["summary"]
    for verdict in VERDICTS:
        assert summary[verdict] >= 1, (verdict, summary)

    _usage_error(cli("demo", "--dir", target), "is not empty")


# -- the installed console script --------------------------------------------------------------------


def test_the_console_script(repo: GitRepo, cli) -> None:
    ids = _history(repo, cli)
    script = Path(sys.executable).parent / "wikiwarden"
    assert script.is_file()
    done = subprocess.run(
        [str(script), "check", "--repo", str(repo.root), "--base", "v1", "--head", "v2", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    verdicts = {c["id"]: c["verdict"] for p in json.loads(done.stdout)["pages"] for c in p["claims"]}
    assert verdicts == {ids["a"]: "moved", ids["b"]: "stale"}
    bad = subprocess.run(
        [str(script), "check", "--repo", str(repo.root), "--base", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("wikiwarden: error: ")


def test_okf_validate_counts_its_problems_in_words(tmp_path: Path, cli) -> None:
    (tmp_path / "a.md").write_text("---\ntype: Concept\ntimestamp: 2024-01-01T00:00:00Z\n---\n# A\n")
    (tmp_path / "b.md").write_text("# B\n")
    run = cli("okf", "validate", str(tmp_path))
    assert run.code == 1 and run.out.endswith(f"{tmp_path}: 1 error, 1 warning\n")
    (tmp_path / "c.md").write_text("# C\n")
    assert cli("okf", "validate", str(tmp_path)).out.endswith(f"{tmp_path}: 2 errors, 1 warning\n")


# --- the parser: only the command given is built, and reads its arguments as the whole parser does ---


def _subparsers(parser: Any) -> dict[str, Any]:
    (commands,) = (action for action in parser._actions if action.dest == "command")
    return dict(commands.choices)


def _every_parser(parser: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    """Every parser's help text under `parser`, by the commands leading to it."""
    found = {path: parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(_every_parser(sub, (*path, name)))
    return found


def test_the_claim_commands_help_names_every_one_of_its_actions() -> None:
    """`wikiwarden --help` says what `claim` does by naming its actions: each action the parser has, so one added
    later cannot be left out (`show` was)."""
    whole = cli_module.build_parser()
    (commands,) = (action for action in whole._actions if isinstance(action, argparse._SubParsersAction))
    (said,) = (choice.help for choice in commands._get_subactions() if choice.dest == "claim")
    (actions,) = (a for a in _subparsers(whole)["claim"]._actions if isinstance(a, argparse._SubParsersAction))
    names = list(actions.choices)
    assert {"add", "confirm", "retract", "show", "list"} <= set(names)
    assert [name for name in names if re.search(rf"\b{name}\b", said or "")] == names, said
    shown = " ".join(whole.format_help().split("\n    claim ", 1)[1].split("\n    fix ", 1)[0].split())  # unwrapped
    assert shown == said


def test_a_command_alone_is_parsed_and_helped_as_by_the_whole_parser(capsys: pytest.CaptureFixture[str]) -> None:
    whole = cli_module.build_parser()
    names = list(_subparsers(whole))
    assert names == list(cli_module._COMMANDS)
    for name in names:
        alone = cli_module.build_parser(only=name)
        assert list(_subparsers(alone)) == [name]
        whole_helps = {path: text for path, text in _every_parser(whole).items() if path[:1] == (name,)}
        assert {path: text for path, text in _every_parser(alone).items() if path} == whole_helps
    for argv in (
        ["check", "--format", "json", "--base", "HEAD~1", "--head", "HEAD", "--no-cache", "-j", "2"],
        ["claim", "add", "a.md", "A claim.", "repo://src/a.py#L1-L2"],
        ["okf", "validate", "openwiki"],
        ["demo"],
    ):
        assert vars(cli_module.build_parser(only=argv[0]).parse_args(argv)) == vars(whole.parse_args(argv))
    for argv in (["check", "--format", "yaml"], ["claim", "nothing"]):  # the same errors, word for word
        said = []
        for parser in (whole, cli_module.build_parser(only=argv[0])):
            with pytest.raises(SystemExit):
                parser.parse_args(argv)
            said.append(capsys.readouterr().err)
        assert said[0] == said[1] and "invalid choice" in said[0]


def test_an_unknown_command_is_told_the_commands_there_are(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_module.main(["chek", "--format", "json"])
    said = capsys.readouterr().err
    assert "invalid choice: 'chek'" in said and all(f"'{name}'" in said for name in cli_module._COMMANDS)


# -- what a one-shot check leaves to the process's end ----------------------------------------------


def test_the_command_is_one_shot_and_ends_with_its_status(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot import lifetime

    monkeypatch.setattr(lifetime, "_kept", None)
    monkeypatch.setattr(cli_module, "main", lambda: 1)

    def ended(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(cli_module.os, "_exit", ended)
    with pytest.raises(SystemExit) as ended_with:
        cli_module.run()
    assert ended_with.value.code == 1
    lifetime.outlive(object())
    assert lifetime.kept() == 1  # `run` made the process one-shot before its command ran


def test_a_one_shot_check_leaves_its_wiki_sweeper_and_report_to_the_end(
    grounded, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot import lifetime
    from bot.claims.results import SweepReport
    from bot.claims.sweep import Sweeper, Wiki

    repo, _ = grounded
    monkeypatch.setattr(lifetime, "_kept", [])
    assert cli("check", "--repo", repo.root, "--format", "json").code == 0
    kept = {type(thing) for thing in lifetime._kept or ()}
    assert {Wiki, Sweeper, SweepReport} <= kept


def test_a_check_in_a_long_running_process_keeps_nothing(grounded, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot import lifetime

    repo, _ = grounded
    monkeypatch.setattr(lifetime, "_kept", None)
    assert cli("check", "--repo", repo.root).code == 0
    assert lifetime.kept() == 0

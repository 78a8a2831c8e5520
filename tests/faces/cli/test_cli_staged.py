"""`wikiwarden check --staged` (bot/cli/check.py, bot/usecases/check.py): what git's index holds, through the change from
HEAD, the way a pre-commit hook sees a commit about to be made; on real throwaway repositories."""

from __future__ import annotations

import shutil

import pytest
from clitools import Run, added_id
from conftest import GitRepo

CODE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"  # b() is lines 5-6
STALE = CODE.replace("return 2", "return 3")
MOVED = '"""Module a."""\n\n' + CODE  # b() moves down to lines 7-8
OTHER = "VALUE = 10\n\n\ndef c():\n    return VALUE\n"
PAGE_A = "# A\n\n`b` returns 2.\n"

pytestmark = pytest.mark.usefixtures("isolated_cli")


def _only_claim(report: dict) -> dict:
    claims = [c for p in report["pages"] for c in p["claims"]]
    assert len(claims) == 1, claims
    return claims[0]


def _ground(repo: GitRepo, cli) -> str:
    """src/a.py and a page claiming what b() returns (lines 5-6), the claim added by hand; nothing committed."""
    repo.write("src/a.py", CODE)
    repo.write("src/c.py", OTHER)
    repo.write("openwiki/a.md", PAGE_A)
    return added_id(cli("claim", "add", "--repo", repo.root, "a.md", "b returns 2.", "repo://src/a.py#L5-L6"))


@pytest.fixture
def grounded(repo: GitRepo, cli) -> tuple[GitRepo, str]:
    claim = _ground(repo, cli)
    repo.commit("code and wiki", tag="v1")
    return repo, claim


def _staged(cli, repo: GitRepo, *args: str) -> Run:
    return cli("check", "--repo", repo.root, "--staged", "--format", "json", *args)


def test_staged_reads_the_index_not_the_working_tree(grounded, cli) -> None:
    repo, claim = grounded
    repo.write("src/a.py", STALE)  # edited, not staged
    assert cli("check", "--repo", repo.root, "--base", "HEAD").code == 1  # the working tree's check sees it
    run = _staged(cli, repo)
    assert run.code == 0, run.out
    report = run.json()
    assert (report["head"], report["mode"]) == ("index", "diff")
    assert report["base"].startswith("HEAD (")
    assert report["summary"]["claims"] == 0  # nothing staged touches the wiki's evidence: nothing re-checked

    repo.git("add", "src/a.py")
    run = _staged(cli, repo)
    assert run.code == 1
    found = _only_claim(run.json())
    assert (found["id"], found["verdict"], found["touched"]) == (claim, "stale", True)
    assert found["evidence"][0]["new_text"] == "def b():\n    return 3\n"

    repo.write("src/a.py", CODE)  # put back on disk, but the stale edit is still what is staged
    assert _staged(cli, repo).code == 1
    text = cli("check", "--repo", repo.root, "--staged")
    assert text.code == 1
    assert "head: index" in text.out and "[this change]" in text.out


def test_a_partially_staged_file_is_checked_as_staged(grounded, cli) -> None:
    repo, _claim = grounded
    repo.write("src/a.py", MOVED)  # staged: a docstring above, b() moved down
    repo.git("add", "src/a.py")
    repo.write("src/a.py", MOVED.replace("return 2", "return 3"))  # then changed on disk, not staged
    run = _staged(cli, repo)
    assert run.code == 0, run.out
    evidence = _only_claim(run.json())["evidence"][0]
    assert (evidence["verdict"], evidence["resource_now"]) == ("moved", "repo://src/a.py#L7-L8")

    repo.write("src/a.py", STALE)
    repo.git("add", "src/a.py")
    repo.write("src/a.py", MOVED)  # the other way round: the stale edit staged, a harmless one on disk
    assert _only_claim(_staged(cli, repo).json())["verdict"] == "stale"


def test_claims_already_stale_at_head_do_not_block_an_unrelated_commit(grounded, cli) -> None:
    """The hook blocks what the commit touches, as linters run on the staged files do: a claim already stale at
    HEAD is re-checked (and blocks) only when the commit touches its evidence's file or its page."""
    repo, claim = grounded
    repo.write("src/a.py", STALE)
    repo.commit("made the claim stale without mending the wiki")
    assert cli("check", "--repo", repo.root).code == 1  # the full sweep finds it

    repo.write("src/c.py", OTHER.replace("VALUE = 10", "VALUE = 20"))
    repo.write("src/new.py", "n = 1\n")
    repo.git("add", "src/c.py", "src/new.py")
    run = _staged(cli, repo)
    assert run.code == 0, run.out
    assert run.json()["summary"]["stale"] == 0

    repo.write("src/a.py", "# a comment on top\n" + STALE)  # the commit touches the claim's file
    repo.git("add", "src/a.py")
    run = _staged(cli, repo)
    assert run.code == 1
    found = _only_claim(run.json())
    assert (found["id"], found["verdict"], found["touched"]) == (claim, "stale", False)  # stale before this change


def test_staged_before_the_first_commit_checks_every_claim(repo: GitRepo, cli) -> None:
    _claim = _ground(repo, cli)
    repo.git("add", "-A")
    run = _staged(cli, repo)
    assert run.code == 0, run.out
    report = run.json()
    assert (report["mode"], report["base"], report["head"]) == ("full", None, "index")
    assert report["summary"]["fresh"] == 1

    repo.write("src/a.py", STALE)
    repo.git("add", "src/a.py")
    repo.write("src/a.py", CODE)
    run = _staged(cli, repo)
    assert run.code == 1
    assert _only_claim(run.json())["verdict"] == "stale"


def test_staged_deletion_rename_and_symlink(grounded, cli) -> None:
    repo, _claim = grounded
    repo.git("rm", "-q", "--cached", "src/a.py")  # deleted from the index, still on disk
    run = _staged(cli, repo)
    assert run.code == 1
    assert _only_claim(run.json())["verdict"] == "unresolved"
    repo.git("reset", "-q")

    (repo.root / "lib").mkdir()
    repo.git("mv", "src/a.py", "lib/a.py")
    run = _staged(cli, repo)
    assert run.code == 0, run.out
    evidence = _only_claim(run.json())["evidence"][0]
    assert (evidence["verdict"], evidence["resource_now"]) == ("moved", "repo://lib/a.py#L5-L6")
    repo.git("reset", "-q", "--hard")

    repo.remove("src/a.py")
    repo.write("src/real.py", CODE)
    repo.symlink("src/a.py", "real.py")
    repo.git("add", "-A")
    run = _staged(cli, repo)
    assert run.code == 1
    evidence = _only_claim(run.json())["evidence"][0]
    assert evidence["verdict"] == "error" and "symlink" in evidence["error"]


def test_a_staged_change_that_removes_named_code_breaks_a_reference(grounded, cli) -> None:
    repo, _claim = grounded
    repo.write("openwiki/c.md", "# C\n\n`c()` returns VALUE.\n")
    repo.commit("a page naming c()")
    repo.write("src/c.py", "VALUE = 10\n")
    repo.git("add", "src/c.py")
    run = _staged(cli, repo)
    assert run.code == 1
    (broken,) = run.json()["broken_references"]
    assert (broken["page"], broken["target"], broken["what"]) == ("openwiki/c.md", "c", "removed")
    repo.git("reset", "-q")  # unstaged, the removal is no part of the commit
    assert _staged(cli, repo).code == 0


def test_a_wiki_that_is_not_staged_is_an_error(repo: GitRepo, cli) -> None:
    repo.write("src/a.py", CODE)
    repo.commit("code, no wiki yet")
    _ground(repo, cli)  # the wiki is on disk only
    assert cli("check", "--repo", repo.root).code == 0
    run = _staged(cli, repo)
    assert run.code == 2
    assert run.out == ""
    assert "the wiki folder openwiki/ does not exist in the index" in run.err


def test_a_wiki_staged_and_gone_from_disk_is_checked_from_the_index(repo: GitRepo, cli) -> None:
    repo.write("README.md", "# project\n")
    repo.commit("start")
    _ground(repo, cli)
    repo.git("add", "-A")
    shutil.rmtree(repo.root / "openwiki")
    assert cli("check", "--repo", repo.root).code == 2  # the working tree has no wiki
    run = _staged(cli, repo)
    assert run.code == 0, run.out
    assert run.json()["summary"]["fresh"] == 1


def test_staged_with_a_base_and_all(grounded, cli) -> None:
    repo, claim = grounded
    repo.write("src/c.py", OTHER.replace("VALUE = 10", "VALUE = 20"))
    repo.commit("v2", tag="v2")
    repo.write("src/a.py", MOVED)
    repo.git("add", "src/a.py")
    run = _staged(cli, repo, "--base", "v1")
    assert run.code == 0, run.out
    report = run.json()
    assert report["base"].startswith("v1 (")
    assert _only_claim(report)["verdict"] == "moved"

    repo.git("reset", "-q")
    run = _staged(cli, repo, "--all")  # every claim re-checked, through the (empty) change from HEAD
    assert run.code == 0, run.out
    assert (run.json()["mode"], _only_claim(run.json())["id"]) == ("diff", claim)


def test_staged_usage_errors(grounded, cli) -> None:
    repo, _claim = grounded
    run = cli("check", "--repo", repo.root, "--staged", "--head", "v1")
    assert run.code == 2
    assert "--staged" in run.err and "--head" in run.err


def test_a_wiki_staged_as_a_symlink_is_an_error(repo: GitRepo, cli) -> None:
    """On disk the wiki is a real folder again, but the index holds a symlink: the commit would record one."""
    _ground(repo, cli)
    repo.commit("code and wiki")
    shutil.move(repo.root / "openwiki", repo.root / "wiki")
    repo.symlink("openwiki", "wiki")
    repo.git("add", "-A")
    (repo.root / "openwiki").unlink()
    shutil.move(repo.root / "wiki", repo.root / "openwiki")
    assert cli("check", "--repo", repo.root).code == 0
    run = _staged(cli, repo)
    assert run.code == 2
    assert "the wiki folder openwiki is a symlink (or lies under one) in the index" in run.err

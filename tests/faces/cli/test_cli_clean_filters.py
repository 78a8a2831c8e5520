"""`wikiwarden check` reads the working tree as git sees it: the bytes `git add` would store, after git's clean
conversions (line endings under `core.autocrlf` or the `text`/`eol` attributes, `ident`), so a CRLF checkout of an LF
repository is not a change; and the sweep's memory only ever answers what a check without it would: the blob id it
names a working tree file by is the id of exactly the bytes read (git's index is not trusted for a file marked
assume-unchanged or skip-worktree, whose edits git does not look at).

Each case is checked four ways, all of which must agree and be right: with the memory (empty at first), without
it, then again with the memory once a `check --head HEAD` has filled it with the commit's blobs (and that check
must be right about the commit too).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from clitools import added_id
from conftest import GIT_ENV, GitRepo

CODE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"  # b() is lines 5-6
PAGE = "---\ntype: Concept\ntitle: A\n---\n\n# A\n\n`b` returns 2.\n"
STATEMENT = "b returns 2."

pytestmark = pytest.mark.usefixtures("isolated_cli")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True).stdout.decode()


def ground(repo: GitRepo, cli, code: str = CODE, span: str = "L5-L6", attributes: str | None = None) -> None:  # type: ignore[no-untyped-def]
    """Code, a page and one claim on `span` of src/a.py, committed (with a `.gitattributes` first, when given)."""
    if attributes is not None:
        repo.write(".gitattributes", attributes)
    repo.write("src/a.py", code)
    repo.write("openwiki/a.md", PAGE)
    repo.commit("code and wiki")
    added_id(cli("claim", "add", "--repo", repo.root, "a.md", STATEMENT, f"repo://src/a.py#{span}"))
    repo.commit("ground the wiki", tag="v1")


def pages(cli, root: Path, *args: str) -> list[dict]:  # type: ignore[no-untyped-def]
    run = cli("check", "--repo", root, "--format", "json", *args)
    assert run.code in (0, 1), run.err
    assert run.err == "", run.err
    return run.json()["pages"]  # type: ignore[no-any-return]


def verdicts(found: list[dict]) -> dict[str, str]:
    return {claim["statement"]: claim["verdict"] for page in found for claim in page["claims"]}


def agree(cli, root: Path, expected: str, committed: str = "fresh") -> list[dict]:  # type: ignore[no-untyped-def]
    """The working tree's check, with the memory and without, `expected` every time and the same in every detail:
    first with the memory empty (what it learns must not spoil a check of the commit: `check --head HEAD` must
    still say `committed`), then with the memory a `check --head HEAD` filled with the commit's blobs."""
    memory = root / ".git" / "wikiwarden"
    shutil.rmtree(memory, ignore_errors=True)
    runs = [pages(cli, root), pages(cli, root, "--no-cache"), pages(cli, root)]
    head = [pages(cli, root, "--head", "HEAD"), pages(cli, root, "--head", "HEAD", "--no-cache")]
    shutil.rmtree(memory)
    head.append(pages(cli, root, "--head", "HEAD"))  # the memory filled from the commit alone
    runs += [pages(cli, root), pages(cli, root, "--no-cache"), pages(cli, root)]
    assert [verdicts(run) for run in runs] == [{STATEMENT: expected}] * len(runs)
    assert all(run == runs[0] for run in runs)  # evidence, spans and reasons too
    assert [verdicts(run) for run in head] == [{STATEMENT: committed}] * len(head)
    return runs[0]


def clone(source: GitRepo, target: Path, *options: str) -> Path:
    git(source.root.parent, "clone", "-q", *options, str(source.root), str(target))
    return target


# -- line endings ------------------------------------------------------------------------------------------


def test_an_autocrlf_checkout_of_an_lf_repository_is_not_a_change(repo: GitRepo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ground(repo, cli)
    windows = clone(repo, tmp_path / "windows", "-c", "core.autocrlf=true")
    assert (windows / "src/a.py").read_bytes() == CODE.replace("\n", "\r\n").encode()  # CRLF on disk
    assert (windows / "openwiki/.claims/a.json").read_bytes().count(b"\r\n") > 5  # the sidecar too
    agree(cli, windows, "fresh")
    # --staged --all: the index, every claim (the index holds the same blobs)
    assert verdicts(pages(cli, windows, "--staged", "--all")) == {STATEMENT: "fresh"}


def test_an_edit_in_an_autocrlf_checkout_is_seen_as_git_would_store_it(repo: GitRepo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ground(repo, cli)
    windows = clone(repo, tmp_path / "windows", "-c", "core.autocrlf=true")
    (windows / "src/a.py").write_bytes(b"# moved down\r\n" + CODE.replace("\n", "\r\n").encode())
    found = agree(cli, windows, "moved")
    assert found[0]["claims"][0]["evidence"][0]["resource_now"] == "repo://src/a.py#L6-L7"
    (windows / "src/a.py").write_bytes(CODE.replace("return 2", "return 3").replace("\n", "\r\n").encode())
    agree(cli, windows, "stale")


def test_a_fix_in_an_autocrlf_checkout_writes_the_files_it_changes_with_their_crlf_endings(  # type: ignore[no-untyped-def]
    repo: GitRepo, cli, tmp_path: Path
) -> None:
    """The working tree is read as git sees it (LF); what the fix writes back keeps each file's CRLF on disk, so
    no line of a page or a sidecar changes its ending (only what the fix meant to change changes)."""
    ground(repo, cli)
    windows = clone(repo, tmp_path / "windows", "-c", "core.autocrlf=true")
    (windows / "src/a.py").write_bytes(b"# moved down\r\n" + CODE.replace("\n", "\r\n").encode())
    git(windows, "-c", "commit.gpgsign=false", "commit", "-qam", "b moves down")
    fixed = cli("fix", "--repo", windows, "--base", "v1")
    assert fixed.code == 0, fixed.out
    sidecar = (windows / "openwiki/.claims/a.json").read_bytes()
    assert b"L6-L7" in sidecar and sidecar.count(b"\n") == sidecar.count(b"\r\n")  # CRLF throughout, as it was
    page = (windows / "openwiki/a.md").read_bytes()
    assert page.count(b"\n") == page.count(b"\r\n")
    assert verdicts(pages(cli, windows)) == {STATEMENT: "fresh"}
    git(windows, "add", "-A")
    stored = git(windows, "show", ":openwiki/.claims/a.json")
    assert "\r" not in stored  # git stores LF, as the sidecar of an LF repository must be


def test_gitattributes_eol_crlf(repo: GitRepo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ground(repo, cli, attributes="* text eol=crlf\n")
    checkout = clone(repo, tmp_path / "checkout")
    assert b"\r\n" in (checkout / "src/a.py").read_bytes()
    assert b"\r\n" in (checkout / "openwiki/a.md").read_bytes()
    agree(cli, checkout, "fresh")
    assert verdicts(pages(cli, checkout, "--base", "v1")) == {}  # git's diff sees no change either


def test_gitattributes_ident_is_collapsed_as_git_stores_it(repo: GitRepo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ground(repo, cli, code="# $Id$\n" + CODE, span="L1-L3", attributes="*.py ident\n")
    checkout = clone(repo, tmp_path / "checkout")
    assert (checkout / "src/a.py").read_bytes().startswith(b"# $Id: ")  # expanded in the working tree
    agree(cli, checkout, "fresh")
    (checkout / "src/a.py").write_bytes((checkout / "src/a.py").read_bytes().replace(b"return 1", b"return 10"))
    agree(cli, checkout, "stale")


# -- files git does not look at -----------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
def test_an_edit_git_is_told_not_to_look_at_is_checked_as_it_stands(repo: GitRepo, cli, flag: str) -> None:  # type: ignore[no-untyped-def]
    ground(repo, cli)
    repo.git("update-index", flag, "src/a.py")
    repo.write("src/a.py", CODE.replace("return 2", "return 3"))
    assert repo.git("status", "--porcelain") == ""  # git does not see the edit
    agree(cli, repo.root, "stale")
    repo.write("src/a.py", CODE)  # back as committed: the memory's answer for the commit's blob holds again
    agree(cli, repo.root, "fresh")


def test_a_sparse_checkout_reads_the_files_outside_its_cone_from_the_index(repo: GitRepo, cli) -> None:  # type: ignore[no-untyped-def]
    ground(repo, cli)
    repo.git("sparse-checkout", "set", "--no-cone", "/openwiki/", "/.github/")
    assert not (repo.root / "src/a.py").exists()  # skip-worktree, absent: git sees it unchanged
    agree(cli, repo.root, "fresh")

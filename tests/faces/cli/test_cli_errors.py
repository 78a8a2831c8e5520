"""The command line never passes silently and never shows Python internals: a wiki folder that cannot be the
wiki, a missing object, a shallow history, a file where a folder belongs are each one line of words (exit 2, or
an error on the one claim concerned); `okf` refuses folders that are not the wiki; `fix` finds its base in
`.last-update.json`, reports whatever `check` reports, and leaves `.last-update.json` to OpenWiki while claims
still need attention."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from clitools import Run, status
from conftest import GIT_ENV, GitRepo

from bot.claims.options import SweepOptions
from bot.claims.results import SweepReport
from bot.source.git import GitRepository, LocalSource
from bot.usecases.check import check
from bot.usecases.loop import run_inline

CODE_A = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"  # b() is lines 5-6
CODE_B = "VALUE = 10\n\n\ndef c():\n    return VALUE\n"  # c() is lines 4-5
PAGE_A = "---\ntype: Concept\ntitle: A\n---\n\n# A\n\n`b` returns 2.\n"
PAGE_B = "---\ntype: Concept\ntitle: B\n---\n\n# B\n\n`c` returns VALUE.\n"
LAST_UPDATE = "openwiki/.last-update.json"

pytestmark = pytest.mark.usefixtures("isolated_cli")


def one_line_error(run: Run, *words: str) -> str:
    """Exit 2, nothing on stdout, one line in words on stderr naming what is wrong; no Python internals."""
    assert run.code == 2, (run.code, run.out, run.err)
    assert run.out == "", run.out
    assert run.err.startswith("wikiwarden: error: ") and run.err.endswith("\n"), run.err
    assert run.err.count("\n") == 1, run.err
    for internal in ("Traceback", "[Errno", "Error:", "invalid literal", "http"):
        assert internal not in run.err, run.err
    for word in words:
        assert word in run.err, (word, run.err)
    return run.err


def grounded_repo(repo: GitRepo, cli) -> GitRepo:
    """Two pages, each with one claim on its own file; committed and tagged v1."""
    repo.write("src/a.py", CODE_A)
    repo.write("src/b.py", CODE_B)
    repo.write("openwiki/a.md", PAGE_A)
    repo.write("openwiki/b.md", PAGE_B)
    repo.commit("code and wiki")
    assert cli("claim", "add", "--repo", repo.root, "a.md", "b returns 2.", "repo://src/a.py#L5-L6").code == 0
    assert cli("claim", "add", "--repo", repo.root, "b.md", "c returns VALUE.", "repo://src/b.py#L4-L5").code == 0
    repo.commit("ground the wiki", tag="v1")
    return repo


@pytest.fixture
def grounded(repo: GitRepo, cli) -> GitRepo:
    return grounded_repo(repo, cli)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True, check=True, text=True
    )
    return done.stdout


# -- a wiki folder that cannot be the wiki ---------------------------------------------------------------

COMMANDS = {
    "check": ("check",),
    "check --head": ("check", "--head", "v1"),
    "fix": ("fix", "--model", "none"),
    "fix --base": ("fix", "--model", "none", "--base", "v1"),
    "claim list": ("claim", "list"),
    "claim add": ("claim", "add", "a.md", "b returns 2.", "repo://src/a.py#L5-L6"),
    "okf sync": ("okf", "sync"),
    "okf validate": ("okf", "validate"),
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_a_wiki_folder_that_does_not_exist_is_an_error(grounded: GitRepo, cli, command: tuple[str, ...]) -> None:
    one_line_error(cli(*command, "--repo", grounded.root, "--wiki-dir", "nosuchwiki"), "nosuchwiki", "does not exist")
    assert status(grounded.root) == []


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_a_wiki_folder_that_is_a_file_is_an_error(grounded: GitRepo, cli, command: tuple[str, ...]) -> None:
    one_line_error(cli(*command, "--repo", grounded.root, "--wiki-dir", "src/a.py"), "src/a.py", "not a folder")
    assert status(grounded.root) == []


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_a_wiki_folder_outside_the_repository_is_an_error(
    grounded: GitRepo, cli, command: tuple[str, ...], tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(grounded.root / "openwiki", elsewhere)
    one_line_error(cli(*command, "--repo", grounded.root, "--wiki-dir", elsewhere), str(elsewhere), "outside")
    assert status(grounded.root) == []


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_a_symlinked_wiki_folder_is_an_error(grounded: GitRepo, cli, command: tuple[str, ...]) -> None:
    grounded.symlink("linked", "openwiki")
    grounded.commit("a symlink to the wiki")
    grounded.git("tag", "-f", "v1")  # `check --head v1` sees it too
    one_line_error(cli(*command, "--repo", grounded.root, "--wiki-dir", "linked"), "linked", "symlink")
    assert status(grounded.root) == []


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_a_symlinked_claims_folder_is_an_error(grounded: GitRepo, cli, command: tuple[str, ...]) -> None:
    claims = grounded.root / "openwiki/.claims"
    claims.rename(grounded.root / "claims-real")
    grounded.symlink("openwiki/.claims", "../claims-real")
    grounded.commit("the claims folder made a symlink")
    grounded.git("tag", "-f", "v1")
    before = {p: grounded.read(p) for p in ("openwiki/a.md", "claims-real/a.json")}
    one_line_error(cli(*command, "--repo", grounded.root), "openwiki/.claims", "symlink")
    assert {p: grounded.read(p) for p in before} == before
    assert status(grounded.root) == []


def test_an_absolute_wiki_folder_inside_the_repository_is_the_same_folder(grounded: GitRepo, cli) -> None:
    run = cli("check", "--repo", grounded.root, "--wiki-dir", grounded.root / "openwiki")
    assert run.code == 0, run.err
    assert "2 claims on 2 pages: 2 fresh" in run.out


def test_the_wiki_folder_is_looked_for_in_the_commit_checked(grounded: GitRepo, cli) -> None:
    shutil.move(grounded.root / "openwiki", grounded.root / "docs")
    grounded.commit("the wiki moved to docs/", tag="v2")
    assert cli("check", "--repo", grounded.root, "--wiki-dir", "docs", "--head", "v2").code == 0
    one_line_error(cli("check", "--repo", grounded.root, "--wiki-dir", "docs", "--head", "v1"), "docs", "v1")


def test_fix_with_a_base_and_a_symlinked_wiki_says_so_in_words(grounded: GitRepo, cli) -> None:
    shutil.move(grounded.root / "openwiki", grounded.root / "real-wiki")
    grounded.symlink("openwiki", "real-wiki")
    one_line_error(cli("fix", "--repo", grounded.root, "--base", "v1", "--model", "none"), "openwiki", "symlink")


# -- okf: --repo and --wiki-dir, and only the wiki --------------------------------------------------------


def test_okf_sync_of_a_mistyped_folder_creates_nothing(grounded: GitRepo, cli, monkeypatch) -> None:
    monkeypatch.chdir(grounded.root)
    one_line_error(cli("okf", "sync", "typo-wiki"), "typo-wiki", "does not exist")
    assert not (grounded.root / "typo-wiki").exists()
    assert status(grounded.root) == []


def test_okf_sync_refuses_a_folder_that_is_not_the_wiki(grounded: GitRepo, cli, monkeypatch) -> None:
    monkeypatch.chdir(grounded.root)
    one_line_error(cli("okf", "sync", "src"), "src", "not the wiki", "--wiki-dir")
    one_line_error(cli("okf", "sync", "--dry-run", grounded.root / "src"), "not the wiki")
    assert status(grounded.root) == []  # no index.md in the source tree


def test_okf_sync_takes_repo_and_wiki_dir(grounded: GitRepo, cli, tmp_path: Path, monkeypatch) -> None:
    shutil.move(grounded.root / "openwiki", grounded.root / "docs")
    grounded.commit("the wiki lives in docs/")
    monkeypatch.chdir(tmp_path)
    run = cli("okf", "sync", "--repo", grounded.root, "--wiki-dir", "docs", "--init")  # grounded by hand: a person's
    assert run.code == 0, run.err
    assert "wrote docs/index.md" in run.out
    assert (grounded.root / "docs/index.md").is_file()
    # The folder may still be named as the argument, as long as it is the wiki.
    again = cli("okf", "sync", "--wiki-dir", "docs", grounded.root / "docs")
    assert (again.code, again.out) == (0, "everything is up to date\n"), again.err
    one_line_error(cli("okf", "sync", "--repo", grounded.root, grounded.root / "docs"), "not the wiki")


def test_okf_validate_takes_repo_and_wiki_dir(grounded: GitRepo, cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    run = cli("okf", "validate", "--repo", grounded.root, "--format", "json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["bundle"] == "openwiki"
    one_line_error(cli("okf", "validate", tmp_path / "typo"), "typo", "does not exist")
    bundle = tmp_path / "bundle"  # any folder of Markdown, in a repository or not
    bundle.mkdir()
    (bundle / "a.md").write_text("---\ntype: Note\n---\n")
    assert cli("okf", "validate", bundle).code == 0


def test_yaml_errors_are_one_line_of_words(grounded: GitRepo, cli) -> None:
    grounded.write("openwiki/broken.md", "---\ntype: [unclosed\ntitle: x\n---\n\n# Broken\n")
    grounded.write("openwiki/twice.md", "---\ntype: A\ntype: B\n---\n\n# Twice\n")
    run = cli("okf", "sync", "--repo", grounded.root)
    assert run.code == 1
    lines = run.err.splitlines()
    assert len(lines) == 2, run.err
    for line in lines:
        assert line.startswith("left as it is: openwiki/")
        assert "line " in line and "column " in line
        assert "http" not in line and "^" not in line and 'in "<unicode string>"' not in line


# -- fix: its base, and agreeing with check --------------------------------------------------------------


def _rename_a(repo: GitRepo) -> None:
    """A change Wikiwarden follows and a full sweep cannot: src/a.py renamed (and its claim with it)."""
    shutil.move(repo.root / "src/a.py", repo.root / "src/alpha.py")
    repo.commit("rename a.py")


def test_fix_takes_its_base_from_last_update(grounded: GitRepo, cli) -> None:
    v1 = git(grounded.root, "rev-parse", "v1").strip()
    meta = {"updatedAt": "2026-01-01T00:00:00.000Z", "command": "update", "gitHead": v1, "model": "m",
            "status": "complete", "language": "en"}  # fmt: skip
    grounded.write(LAST_UPDATE, json.dumps(meta, indent=2) + "\n")
    grounded.commit("OpenWiki's last update")
    _rename_a(grounded)

    run = cli("fix", "--repo", grounded.root, "--model", "none")

    assert run.code == 0, (run.out, run.err)
    assert v1[:12] in run.out and ".last-update.json" in run.out
    assert "re-anchored" in run.out and "still flagged" not in run.out
    sidecar = json.loads(grounded.read("openwiki/.claims/a.json"))
    assert sidecar["claims"][0]["evidence"][0]["resource"] == "repo://src/alpha.py#L5-L6"
    assert cli("check", "--repo", grounded.root).code == 0


def test_fix_without_a_recorded_base_says_to_pass_one(grounded: GitRepo, cli) -> None:
    _rename_a(grounded)
    run = cli("fix", "--repo", grounded.root, "--model", "none")
    assert run.code == 1
    assert "--base" in run.out.splitlines()[0]
    grounded.git("checkout", "-q", "--", ".")  # nothing was written but OKF metadata; start again
    grounded.write(LAST_UPDATE, '{"gitHead": "' + "0" * 40 + '", "status": "complete"}\n')
    grounded.commit("a gitHead this clone does not have")
    run = cli("fix", "--repo", grounded.root, "--model", "none", "--dry-run")
    assert run.code == 1
    first = run.out.splitlines()[0]
    assert "0" * 12 in first and "--base" in first


def test_fix_reports_an_unreadable_sidecar_as_check_does(grounded: GitRepo, cli) -> None:
    grounded.write("openwiki/.claims/b.json", "{ not json")
    assert cli("check", "--repo", grounded.root).code == 1
    run = cli("fix", "--repo", grounded.root, "--model", "none")
    assert run.code == 1, run.out
    assert "openwiki/b.md" in run.out and "invalid JSON" in run.out
    assert "Nothing to fix" not in run.out


def test_fix_with_a_base_reports_a_claim_in_error_as_check_does(grounded: GitRepo, cli) -> None:
    grounded.write("openwiki/a.md", PAGE_A + "\nMore prose.\n")  # the page changed: all its claims are re-checked
    check = cli("check", "--repo", grounded.root, "--base", "v1", "--max-file-size", "10")
    assert check.code == 1 and "larger than the 10-byte limit" in check.out
    run = cli("fix", "--repo", grounded.root, "--base", "v1", "--max-file-size", "10", "--model", "none")
    assert run.code == 1, run.out
    assert "larger than the 10-byte limit" in run.out
    assert "Nothing to fix" not in run.out


def test_fix_with_a_base_reports_claims_that_were_stale_before_it(grounded: GitRepo, cli) -> None:
    grounded.write("src/b.py", CODE_B.replace("return VALUE", "return VALUE + 1"))
    grounded.commit("c changes", tag="v2")  # the claim on b.py is stale from here on
    grounded.write("src/b.py", "# a comment\n" + CODE_B.replace("return VALUE", "return VALUE + 1"))
    check = cli("check", "--repo", grounded.root, "--base", "v2")
    assert check.code == 1 and "stale" in check.out
    run = cli("fix", "--repo", grounded.root, "--base", "v2", "--model", "none")
    assert run.code == 1, run.out
    assert "c returns VALUE." in run.out and "still flagged" in run.out


# -- .last-update.json: left to OpenWiki while claims need attention --------------------------------------


def test_a_fix_that_leaves_claims_flagged_does_not_create_last_update(grounded: GitRepo, cli) -> None:
    grounded.write("src/b.py", CODE_B.replace("return VALUE", "return VALUE + 1"))
    grounded.commit("c changes")
    run = cli("fix", "--repo", grounded.root, "--base", "v1", "--model", "none")
    assert run.code == 1
    assert not (grounded.root / LAST_UPDATE).exists()


def test_a_fix_that_leaves_claims_flagged_keeps_last_update_as_it_is(grounded: GitRepo, cli) -> None:
    v1 = git(grounded.root, "rev-parse", "v1").strip()
    recorded = json.dumps({"gitHead": v1, "status": "complete", "language": "de"}, indent=2) + "\n"
    grounded.write(LAST_UPDATE, recorded)
    grounded.commit("OpenWiki's last update")
    _rename_a(grounded)  # re-anchored by the fix ...
    grounded.write("src/b.py", CODE_B.replace("return VALUE", "return VALUE + 1"))  # ... while this stays stale
    grounded.commit("c changes")
    run = cli("fix", "--repo", grounded.root, "--model", "none")
    assert run.code == 1
    assert "re-anchored" in run.out and "still flagged" in run.out
    assert grounded.read(LAST_UPDATE).decode() == recorded  # OpenWiki's next update still starts from v1


def test_a_complete_fix_moves_last_update_forward(grounded: GitRepo, cli) -> None:
    v1 = git(grounded.root, "rev-parse", "v1").strip()
    grounded.write(LAST_UPDATE, json.dumps({"gitHead": v1, "status": "complete", "language": "de"}) + "\n")
    grounded.commit("OpenWiki's last update")
    _rename_a(grounded)
    head = git(grounded.root, "rev-parse", "HEAD").strip()
    assert cli("fix", "--repo", grounded.root, "--model", "none").code == 0
    meta = json.loads(grounded.read(LAST_UPDATE))
    assert (meta["gitHead"], meta["status"], meta["language"]) == (head, "complete", "de")


# -- objects git does not have ---------------------------------------------------------------------------


def _drop_object(repo_root: Path, oid: str) -> None:
    """A trimmed mirror: the tree names a blob the object store lacks."""
    (repo_root / ".git/objects" / oid[:2] / oid[2:]).unlink()


def test_a_blob_missing_from_the_object_store_is_an_error_on_the_claim_citing_it(grounded: GitRepo, cli) -> None:
    old_b = git(grounded.root, "rev-parse", "v1:src/b.py").strip()
    grounded.write("src/b.py", CODE_B + "\n\ndef d():\n    return 4\n")  # b.py's v1 blob is not needed by HEAD
    grounded.commit("d added")
    _drop_object(grounded.root, old_b)

    run = cli("check", "--repo", grounded.root, "--head", "v1", "--format", "json")

    assert run.code == 1, run.err
    assert run.err == ""
    verdicts = {c["statement"]: c for p in json.loads(run.out)["pages"] for c in p["claims"]}
    assert verdicts["b returns 2."]["verdict"] == "fresh"  # the other claims are still checked
    missing = verdicts["c returns VALUE."]
    assert missing["verdict"] == "error"
    error = missing["evidence"][0]["error"]
    assert error.startswith("src/b.py: the object store lacks this file") and "git fetch" in error


def _serve(repo: GitRepo, tmp_path: Path) -> Path:
    """The repository as a remote that partial clones can fetch single blobs from."""
    served = tmp_path / "served.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.root), str(served))
    git(served, "config", "uploadpack.allowFilter", "true")
    git(served, "config", "uploadpack.allowAnySHA1InWant", "true")
    return served


def _missing_blobs(root: Path) -> set[str]:
    out = git(root, "rev-list", "--objects", "--missing=print", "--all")
    return {line[1:] for line in out.splitlines() if line.startswith("?")}


def test_a_partial_clone_fetches_only_what_the_wiki_cites(grounded: GitRepo, cli, tmp_path: Path) -> None:
    grounded.write("src/unrelated.py", "X = 1\n" * 1000)
    grounded.commit("an unrelated file", tag="v1-more")
    grounded.write("src/unrelated.py", "X = 2\n" * 1000)
    grounded.write("src/b.py", CODE_B + "\n\ndef d():\n    return 4\n")
    grounded.commit("v2")
    served = _serve(grounded, tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{served}", str(clone))
    unrelated = git(clone, "rev-parse", "v1-more:src/unrelated.py").strip()
    cited = git(clone, "rev-parse", "v1-more:src/b.py").strip()
    assert {unrelated, cited} <= _missing_blobs(clone)

    run = cli("check", "--repo", clone, "--head", "v1-more")

    assert run.code == 0, (run.out, run.err)
    assert "2 fresh" in run.out
    missing = _missing_blobs(clone)
    assert cited not in missing  # fetched, because a claim cites it
    assert unrelated in missing  # never fetched: nothing cites it

    # With the remote gone, the one claim whose evidence cannot be fetched is in error; the rest is checked.
    other = tmp_path / "other-clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{served}", str(other))
    served.rename(tmp_path / "gone.git")
    run = cli("check", "--repo", other, "--head", "v1-more", "--format", "json")
    assert run.code == 1, run.err
    claims = {c["statement"]: c for p in json.loads(run.out)["pages"] for c in p["claims"]}
    assert claims["b returns 2."]["verdict"] == "fresh"
    assert claims["c returns VALUE."]["verdict"] == "error"
    assert "the object store lacks this file" in claims["c returns VALUE."]["evidence"][0]["error"]


def _partial_change(grounded: GitRepo, tmp_path: Path, *, touch_cited: bool) -> tuple[Path, Path]:
    """v1 with two files nothing cites (a table and a module); v2 deletes both and adds a module (so git's
    rename detection has files to compare), and, when `touch_cited`, also edits src/b.py (cited) and renames
    src/a.py (cited) with an edit. A partial clone of v2 (it holds v2's blobs, checked out, and no other) and the
    remote it was cloned from."""
    grounded.write("data/table.csv", "".join(f"{n},{n * n}\n" for n in range(300)))
    grounded.write("src/unrelated.py", "".join(f"X{n} = {n}\n" for n in range(300)))
    grounded.commit("files nothing cites", tag="v1-more")
    grounded.remove("data/table.csv")
    grounded.remove("src/unrelated.py")
    grounded.write("src/new.py", "NEW = 1\n")
    if touch_cited:
        grounded.write("src/b.py", "# moved down\n" + CODE_B)
        grounded.remove("src/a.py")
        grounded.write("src/alpha.py", CODE_A + "\n\ndef z():\n    return 26\n")
    grounded.commit("v2", tag="v2")
    served = _serve(grounded, tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{served}", str(clone))
    return clone, served


def _claims(run: Run) -> dict[str, dict]:
    return {c["statement"]: c for p in json.loads(run.out)["pages"] for c in p["claims"]}


def test_a_partial_clone_whose_remote_is_gone_checks_a_change_deleting_files_nothing_cites(
    grounded: GitRepo, cli, tmp_path: Path
) -> None:
    """git's rename detection would fetch the deleted files' blobs (and fail, the remote gone): they are not read."""
    clone, served = _partial_change(grounded, tmp_path, touch_cited=False)
    served.rename(tmp_path / "gone.git")
    run = cli("check", "--repo", clone, "--base", "v1-more", "--head", "v2", "--format", "json")
    assert run.code == 0, (run.out, run.err)
    assert json.loads(run.out)["summary"]["claims"] == 0  # no claim cites what the change touched
    run = cli("check", "--repo", clone, "--base", "v1-more", "--head", "v2", "--all", "--format", "json")
    assert run.code == 0, (run.out, run.err)
    assert {s: c["verdict"] for s, c in _claims(run).items()} == {"b returns 2.": "fresh", "c returns VALUE.": "fresh"}


def test_a_partial_clone_whose_remote_is_gone_errs_only_on_the_claims_citing_what_it_lacks(
    grounded: GitRepo, cli, tmp_path: Path
) -> None:
    clone, served = _partial_change(grounded, tmp_path, touch_cited=True)
    served.rename(tmp_path / "gone.git")
    run = cli("check", "--repo", clone, "--base", "v1-more", "--head", "v2", "--format", "json")
    assert run.code == 1, (run.out, run.err)
    assert run.err == ""
    claims = _claims(run)
    assert {s: c["verdict"] for s, c in claims.items()} == {"b returns 2.": "error", "c returns VALUE.": "error"}
    for claim, path in (("b returns 2.", "src/a.py"), ("c returns VALUE.", "src/b.py")):
        error = claims[claim]["evidence"][0]["error"]
        assert error.startswith(f"v1-more ({git(clone, 'rev-parse', 'v1-more').strip()[:12]}): {path}: ")
        assert "the object store lacks this file" in error and "git fetch" in error


def test_a_partial_clone_fetches_no_deleted_file_nothing_cites_and_follows_renames_as_a_full_clone(
    grounded: GitRepo, cli, tmp_path: Path
) -> None:
    clone, _ = _partial_change(grounded, tmp_path, touch_cited=True)
    blob = {path: git(clone, "rev-parse", f"v1-more:{path}").strip() for path in ("data/table.csv", "src/b.py")}
    unrelated = git(clone, "rev-parse", "v1-more:src/unrelated.py").strip()
    assert {*blob.values(), unrelated} <= _missing_blobs(clone)
    args = ("check", "--base", "v1-more", "--head", "v2", "--format", "json")
    full = cli(*args, "--repo", grounded.root)
    run = cli(*args, "--repo", clone)
    assert run.code == full.code == 0, run.err  # moved: nothing needs attention
    assert json.loads(run.out)["pages"] == json.loads(full.out)["pages"]  # the same verdicts, moves and renames
    verdicts = {s: c["verdict"] for s, c in _claims(run).items()}
    assert verdicts == {"b returns 2.": "moved", "c returns VALUE.": "moved"}
    assert _claims(run)["b returns 2."]["evidence"][0]["resource_now"] == "repo://src/alpha.py#L5-L6"
    missing = _missing_blobs(clone)
    assert blob["src/b.py"] not in missing  # fetched: a claim cites it
    assert blob["data/table.csv"] in missing  # never fetched: nothing cites it, and it is no code
    # A deleted code file is read by the reference check alone (what it defined may be named by a page): the
    # sweep of the claims, renames included, fetches none.
    assert unrelated not in missing
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{tmp_path / 'served.git'}", str(other))
    with GitRepository(other) as opened:
        source = LocalSource(opened)

        async def claims_only() -> SweepReport:
            head = await source.snapshot("v2")
            change = await source.change("v1-more", head)
            return await check(source, head, change, SweepOptions(), references=False)

        report = run_inline(claims_only())
    assert report.summary["moved"] == 2
    assert {unrelated, blob["data/table.csv"]} <= _missing_blobs(other)


def test_a_shallow_clone_says_its_history_is_shallow(grounded: GitRepo, cli, tmp_path: Path) -> None:
    grounded.write("src/b.py", CODE_B + "\n\ndef d():\n    return 4\n")
    grounded.commit("v2")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{grounded.root}", str(clone))
    run = cli("check", "--repo", clone, "--base", "v1")
    one_line_error(run, "'v1'", "shallow", "fetch-depth: 0", "git fetch --deepen")
    head = git(clone, "rev-parse", "HEAD").strip()
    one_line_error(cli("check", "--repo", clone, "--base", "HEAD~1"), "shallow")
    assert cli("check", "--repo", clone, "--base", head).code == 0


# -- the demo ------------------------------------------------------------------------------------------


def test_demo_into_a_file_says_so_in_words(cli, tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("not a folder\n")
    one_line_error(cli("demo", "--dir", target), str(target), "not a folder")
    assert target.read_text() == "not a folder\n"

"""The pre-commit hook (.pre-commit-hooks.yaml) under the real `pre-commit` tool, on throwaway repositories: a
staged change that makes a claim stale fails the commit, an unrelated change passes.

pre-commit installs the hook the way a user's configuration does: it clones this repository at a revision, builds
a virtual environment and pip-installs it there (from the package index: slow, so two environments per session at
most). `try-repo` alone would take HEAD plus tracked edits and leave untracked files out; the hook tested here is
this repository as it stands instead (its package and top-level files, committed or not), committed in a copy.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import ssl
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import oneconfig
import pytest
from clitools import Run
from conftest import GIT_ENV, GitRepo

ROOT = Path(__file__).resolve().parents[3]
HOOK_ID = "wikiwarden"
HOOK_NAME = "wiki claims still hold (wikiwarden)"
CODE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"  # b() is lines 5-6
STALE = CODE.replace("return 2", "return 3")
TIMEOUT = 900  # seconds: building the hook's environment pip-installs this repository and its dependencies

pytestmark = pytest.mark.usefixtures("isolated_cli")


def _cannot_run() -> str | None:
    """Why pre-commit cannot install the hook here, or None."""
    if importlib.util.find_spec("pre_commit") is None:
        return "pre-commit is not installed: pip install -e '.[dev]'"
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    context = ssl.create_default_context(cafile=os.environ.get("PIP_CERT") or None)
    try:
        with urllib.request.urlopen(f"{index}/setuptools/", timeout=15, context=context):
            return None
    except (OSError, ValueError) as exc:
        return f"the package index {index} cannot be reached ({exc}): pre-commit installs the hook from it"


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        env={**os.environ, **GIT_ENV, **(env or {})},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A copy of this repository's working tree (its package and top-level files; untracked ones too, ignored
    ones not) committed in a repository of its own: its path and commit, for pre-commit's `repo` and `rev`."""
    reason = _cannot_run()
    if reason is not None:
        pytest.skip(reason)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    copy = tmp_path_factory.mktemp("wikiwarden-hook")
    for name in listed.decode().split("\0"):
        source = ROOT / name
        if name and (name.startswith("bot/") or "/" not in name) and source.is_file() and not source.is_symlink():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy / name)
    assert (copy / ".pre-commit-hooks.yaml").is_file() and (copy / "pyproject.toml").is_file()
    for args in (["init", "-q"], ["add", "-A"], ["-c", "commit.gpgsign=false", "commit", "-q", "-m", "hook"]):
        subprocess.run(["git", *args], cwd=copy, env={**os.environ, **GIT_ENV}, check=True, capture_output=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=copy, capture_output=True, text=True, check=True)
    return copy, commit.stdout.strip()


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit's store for this module: the hook's environment is built once and reused by every commit."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _ground(repo: GitRepo, cli) -> str:
    """src/a.py, src/c.py and a page claiming what b() returns (lines 5-6), committed."""
    repo.write("src/a.py", CODE)
    repo.write("src/c.py", "VALUE = 10\n")
    repo.write("openwiki/a.md", "# A\n\n`b` returns 2.\n")
    run: Run = cli("claim", "add", "--repo", repo.root, "a.md", "b returns 2.", "repo://src/a.py#L5-L6")
    assert run.code == 0, run.err
    match = re.search(r"^added (claim_[0-9a-f]{32}) ", run.out, re.MULTILINE)
    assert match, run.out
    repo.commit("code and wiki")
    return match.group(1)


def test_try_repo_fails_a_staged_change_that_makes_a_claim_stale(
    hook_repository: tuple[Path, str], pre_commit_home: Path, repo: GitRepo, cli
) -> None:
    hook, rev = hook_repository
    claim = _ground(repo, cli)
    repo.write("src/a.py", STALE)
    repo.git("add", "src/a.py")
    done = _run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook), HOOK_ID, "--ref", rev, "--color", "never"],
        cwd=repo.root,
        env={"PRE_COMMIT_HOME": str(pre_commit_home)},
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert re.search(rf"^{re.escape(HOOK_NAME)}\.+Failed$", out, re.MULTILINE), out
    assert "- exit code: 1" in out
    assert claim in out and "stale" in out and "head: index" in out


# -- the hook installed, as a user's configuration installs it, and real commits -------------------------------


@pytest.fixture
def project(
    hook_repository: tuple[Path, str], pre_commit_home: Path, repo: GitRepo, cli, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[GitRepo, str]]:
    """A grounded repository whose .pre-commit-config.yaml names the hook, installed as git's pre-commit hook."""
    hook, rev = hook_repository
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    repo.write(
        ".pre-commit-config.yaml", f"repos:\n  - repo: {hook}\n    rev: {rev}\n    hooks:\n      - id: {HOOK_ID}\n"
    )
    claim = _ground(repo, cli)
    installed = _run([sys.executable, "-m", "pre_commit", "install"], cwd=repo.root)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    yield repo, claim


def _commit(repo: GitRepo, *args: str) -> tuple[int, str]:
    """`git commit`'s exit status and what it printed (a hook's output comes on git's stderr)."""
    done = _run(["git", "-c", "commit.gpgsign=false", "commit", "-m", "change", *args], cwd=repo.root)
    return done.returncode, done.stdout + done.stderr


def _head(repo: GitRepo) -> str:
    return repo.git("rev-parse", "HEAD").strip()


def test_a_commit_that_makes_a_claim_stale_is_refused(project: tuple[GitRepo, str]) -> None:
    repo, claim = project
    before = _head(repo)
    repo.write("src/a.py", STALE)
    repo.git("add", "src/a.py")
    status, out = _commit(repo)
    assert status == 1, out
    assert re.search(rf"^{re.escape(HOOK_NAME)}\.+Failed$", out, re.MULTILINE), out
    assert claim in out and "stale" in out
    assert f"`wikiwarden claim show {claim} --base HEAD` shows what changed" in out  # and what to do about it
    assert "`wikiwarden fix --base HEAD` decides with a model" in out
    assert _head(repo) == before

    repo.write("src/a.py", CODE)  # put back on disk: what is staged is still the stale edit
    assert _commit(repo)[0] == 1
    assert _head(repo) == before


def test_an_unrelated_commit_passes_even_beside_a_claim_already_stale(project: tuple[GitRepo, str]) -> None:
    repo, _claim = project
    repo.write("src/a.py", STALE)
    assert _commit(repo, "-a", "--no-verify")[0] == 0  # someone made the claim stale, skipping the hook
    stale_at_head = _head(repo)

    repo.write("src/c.py", "VALUE = 20\n")
    repo.git("add", "src/c.py")
    repo.write("src/a.py", STALE + "# not staged\n")
    status, out = _commit(repo)
    assert status == 0, out
    assert re.search(rf"^{re.escape(HOOK_NAME)}\.+Passed$", out, re.MULTILINE), out
    assert repo.git("rev-parse", "HEAD~1").strip() == stale_at_head


def test_a_commit_that_only_deletes_the_evidence_is_refused(project: tuple[GitRepo, str]) -> None:
    """pre-commit passes no file to hooks for a deletion; the hook runs anyway (always_run)."""
    repo, claim = project
    before = _head(repo)
    repo.git("rm", "-q", "src/a.py")
    status, out = _commit(repo)
    assert status == 1, out
    assert claim in out and "unresolved" in out
    assert _head(repo) == before


def test_commit_all_checks_the_index_git_builds_for_it(project: tuple[GitRepo, str]) -> None:
    """`git commit -a` stages into a temporary index (GIT_INDEX_FILE) before its hooks run: the hook reads that."""
    repo, claim = project
    before = _head(repo)
    repo.write("src/a.py", STALE)  # not staged
    repo.write("src/c.py", "VALUE = 20\n")
    repo.git("add", "src/c.py")
    status, out = _commit(repo, "-a")
    assert status == 1, out
    assert claim in out and "stale" in out
    assert _head(repo) == before


def test_the_hook_reads_the_repositorys_config_file(
    hook_repository: tuple[Path, str], pre_commit_home: Path, make_repo, cli
) -> None:
    """tests/oneconfig.py: `wiki_dir: docs` and an exclude in .github/wikiwarden.yml, the same answer as the
    command line, the Action and the App give."""
    hook, rev = hook_repository
    repo = make_repo("configured")
    for path, text in oneconfig.BEFORE.items():
        repo.write(path, text)
    repo.commit("before")
    for path in oneconfig.DELETED:
        repo.git("rm", "-q", path)
    done = _run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook), HOOK_ID, "--ref", rev, "--color", "never"],
        cwd=repo.root,
        env={"PRE_COMMIT_HOME": str(pre_commit_home)},
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "Wikiwarden check · docs/ · head: index" in out
    for page, line, text in oneconfig.FAILING:
        assert f"  ✗ {page}:{line}  {text}: removed by this change" in out
    assert "legacy" not in out and "1 reference names what is gone but not for certain" in out

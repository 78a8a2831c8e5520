"""Integration tests of git's index as a snapshot (bot/source/git.py: `IndexSnapshot`, the change from a commit to
the index), against real throwaway repositories: what `git commit` would record, never the working tree."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import GIT_ENV, GitRepo

from bot.claims.snapshot import Entry, FileChange, Kind
from bot.source.git import GitError, GitRepository, IndexSnapshot, LocalSource

# A module long enough that a small edit keeps it above git's 50% rename similarity threshold.
MODULE = "".join(f"def function_{n}():\n    return {n}\n\n\n" for n in range(20))

pytestmark = pytest.mark.usefixtures("isolated_cli")


@pytest.fixture
def git(repo: GitRepo):
    with GitRepository(repo.root) as opened:
        yield opened


@pytest.fixture
def committed(repo: GitRepo) -> GitRepo:
    """A commit with a module, files to edit and delete, and a symlink."""
    repo.write("src/a.py", "a = 1\n")
    repo.write("src/module.py", MODULE)
    repo.write("src/gone.py", "gone = 1\n")
    repo.write("docs/readme.md", "# Read me\n")
    repo.symlink("src/link.py", "a.py")
    repo.commit("base", tag="v1")
    return repo


def test_the_index_holds_staged_edits_not_unstaged_ones(committed: GitRepo, git: GitRepository) -> None:
    committed.write("src/a.py", "a = 'staged'\n")
    committed.git("add", "src/a.py")
    committed.write("src/a.py", "a = 'staged, then edited again'\n")  # partially staged: the index keeps the first
    committed.write("docs/readme.md", "# Edited, not staged\n")
    committed.write("src/untracked.py", "u = 1\n")
    snap = git.staged()
    assert isinstance(snap, IndexSnapshot)
    assert (snap.label, snap.commit) == ("index", None)
    assert snap.read("src/a.py") == b"a = 'staged'\n"
    assert snap.entry("src/a.py") == Entry(Kind.FILE, len(b"a = 'staged'\n"))  # the staged blob's size
    assert snap.read("docs/readme.md") == b"# Read me\n"
    assert snap.entry("src/untracked.py") is None
    assert snap.entry("src") == Entry(Kind.DIRECTORY)
    assert snap.entry("src/link.py") == Entry(Kind.SYMLINK)
    assert snap.entry("src/link.py/below") == Entry(Kind.SYMLINK)
    assert dict(snap.walk("src")) == {
        "src/a.py": Entry(Kind.FILE),
        "src/module.py": Entry(Kind.FILE),
        "src/gone.py": Entry(Kind.FILE),
        "src/link.py": Entry(Kind.SYMLINK),
    }


def test_the_index_without_the_working_tree(committed: GitRepo, git: GitRepository) -> None:
    """Staged deletions are gone; a file staged and then deleted from disk, or a new symlink, is as staged."""
    committed.git("rm", "-q", "--cached", "src/gone.py")  # deleted from the index, still on disk
    committed.write("src/new.py", "new = 1\n")
    committed.git("add", "src/new.py")
    committed.remove("src/new.py")  # staged, then deleted from disk
    committed.remove("src/a.py")
    committed.symlink("src/a.py", "module.py")  # a file replaced by a symlink, not staged
    committed.symlink("src/staged_link.py", "module.py")
    committed.git("add", "src/staged_link.py")
    snap = git.staged()
    assert snap.entry("src/gone.py") is None
    assert (committed.root / "src" / "gone.py").exists()
    assert snap.read("src/new.py") == b"new = 1\n"
    assert snap.entry("src/a.py") == Entry(Kind.FILE, 6)
    assert snap.entry("src/staged_link.py") == Entry(Kind.SYMLINK)
    assert "src/new.py" in LocalSource(git).files(snap)
    assert "src/gone.py" not in LocalSource(git).files(snap)


def test_an_entry_added_with_intent_to_add_is_not_staged(committed: GitRepo, git: GitRepository) -> None:
    """`git add -N` records a placeholder (the empty blob) that `git commit` leaves out; a staged empty file is
    staged."""
    committed.write("src/intended.py", "i = 1\n")
    committed.git("add", "-N", "src/intended.py")
    committed.write("src/__init__.py", "")
    committed.git("add", "src/__init__.py")
    snap = git.staged()
    assert snap.entry("src/intended.py") is None
    assert snap.entry("src/__init__.py") == Entry(Kind.FILE, 0)
    assert FileChange(None, "src/intended.py") not in git.changes("HEAD", staged=True)


def test_the_index_before_the_first_commit(repo: GitRepo, git: GitRepository) -> None:
    repo.write("src/a.py", "a = 1\n")
    repo.git("add", "src/a.py")
    assert git.head_commit() is None
    assert git.staged().read("src/a.py") == b"a = 1\n"
    repo.commit()
    assert git.head_commit() == repo.git("rev-parse", "HEAD").strip()


def test_an_unmerged_index_is_refused(committed: GitRepo, git: GitRepository) -> None:
    committed.git("checkout", "-q", "-b", "other")
    committed.write("src/a.py", "a = 'other'\n")
    committed.commit("other")
    committed.git("checkout", "-q", "main")
    committed.write("src/a.py", "a = 'main'\n")
    committed.commit("main")
    with pytest.raises(subprocess.CalledProcessError):
        committed.git("merge", "-q", "other")
    with pytest.raises(GitError, match=r"unmerged paths \(src/a\.py\).*resolve"):
        git.staged().entry("src/a.py")


def test_the_index_git_names_in_the_environment(
    committed: GitRepo, git: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git commit -a` (or `git commit <path>`) runs its hooks on a temporary index named by GIT_INDEX_FILE."""
    other = committed.root / ".git" / "other-index"
    shutil.copyfile(committed.root / ".git" / "index", other)
    committed.write("src/a.py", "a = 'in the other index'\n")
    subprocess.run(
        ["git", "add", "src/a.py"],
        cwd=committed.root,
        env={**os.environ, **GIT_ENV, "GIT_INDEX_FILE": str(other)},
        check=True,
        capture_output=True,
    )
    assert git.staged().read("src/a.py") == b"a = 1\n"
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    with GitRepository(committed.root) as opened:
        assert opened.staged().read("src/a.py") == b"a = 'in the other index'\n"
        assert opened.changes("HEAD", staged=True) == (FileChange("src/a.py", "src/a.py"),)


# -- the change from a commit to the index -----------------------------------------------------------


def test_changes_to_the_index(committed: GitRepo, git: GitRepository) -> None:
    committed.write(".gitignore", "*.log\n")
    committed.write("src/a.py", "a = 2\n")
    committed.git("add", "src/a.py", ".gitignore")
    committed.git("rm", "-q", "src/gone.py")
    (committed.root / "lib").mkdir()
    committed.git("mv", "src/module.py", "lib/module.py")
    committed.write("lib/module.py", MODULE.replace("return 3\n", "return 33\n"))
    committed.git("add", "lib/module.py")
    committed.write("src/added.py", "added = 1\n")
    committed.git("add", "src/added.py")
    # Not staged: none of these is part of the change.
    committed.write("docs/readme.md", "# Edited\n")
    committed.write("src/untracked.py", "u = 1\n")
    committed.write("debug.log", "ignored\n")
    committed.write("src/added.py", "added = 'edited after staging'\n")

    changes = git.changes("HEAD", staged=True)
    assert set(changes) == {
        FileChange("src/a.py", "src/a.py"),
        FileChange(None, ".gitignore"),
        FileChange("src/gone.py", None),
        FileChange("src/module.py", "lib/module.py"),
        FileChange(None, "src/added.py"),
    }
    assert len(changes) == len(set(changes))
    change = git.change("v1", label="v1", staged=True)
    assert change.base.commit == committed.git("rev-parse", "v1").strip()
    assert set(change.files) == set(changes)


def test_nothing_staged_is_no_change(committed: GitRepo, git: GitRepository) -> None:
    committed.write("src/a.py", "a = 'unstaged'\n")
    committed.write("src/new.py", "n = 1\n")
    assert git.changes("HEAD", staged=True) == ()
    assert git.changes("HEAD") != ()  # the working tree's change holds both


def test_a_change_ends_at_a_commit_or_at_the_index(committed: GitRepo, git: GitRepository) -> None:
    with pytest.raises(ValueError, match="not both"):
        git.changes("HEAD", "HEAD", staged=True)


async def test_the_local_source_carries_the_index_through(committed: GitRepo, git: GitRepository) -> None:
    """The use cases hand the source the index as their head; its change is the staged one, its files the index's."""
    committed.write("src/a.py", "a = 2\n")
    committed.git("add", "src/a.py")
    committed.write("docs/readme.md", "# Edited, not staged\n")
    source = LocalSource(git)
    change = await source.change("HEAD", git.staged())
    assert change is not None
    assert change.files == (FileChange("src/a.py", "src/a.py"),)
    assert change.base.label.startswith("HEAD (")
    merged = await source.change("v1", git.staged(), merge_base=True)
    assert merged is not None and merged.files == change.files


def test_the_wiki_folder_is_looked_for_in_the_index(committed: GitRepo, git: GitRepository) -> None:
    from bot.claims.pages import wiki_folder_problem

    committed.write("openwiki/a.md", "# A\n")  # on disk, never staged
    assert wiki_folder_problem(git.worktree(), "openwiki") is None
    assert wiki_folder_problem(git.staged(), "openwiki") == (
        "the wiki folder openwiki/ does not exist in the index; name it with --wiki-dir"
    )

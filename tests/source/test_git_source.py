"""Integration tests of the local git adapter (bot/source/git.py) against real throwaway repositories."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest
from conftest import GIT_ENV, GitRepo

from bot.claims.errors import UnreadableFileError
from bot.claims.snapshot import Entry, FileChange, Kind
from bot.source.git import CommitSnapshot, GitError, GitRepository, MissingObjectError, WorktreeSnapshot
from bot.source.git import repository as git_module
from bot.source.git.process import _CatFile

HEX40 = re.compile(r"[0-9a-f]{40}")

BINARY = bytes(range(256)) * 4 + b"\0\n\r\n\xff\xfe"
CRLF = b"first line\r\nsecond line\r\n\r\nno final newline\r"
# A module long enough that a small edit keeps it above git's 50% rename similarity threshold.
MODULE = "".join(f"def function_{n}():\n    return {n}\n\n\n" for n in range(20))


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The adapter's own git calls ignore the machine's git configuration and stop at tmp_path."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


@pytest.fixture
def git(repo: GitRepo):
    with GitRepository(repo.root) as opened:
        yield opened


def _blob_ids(git: GitRepository, commit: str) -> dict[str, str]:
    return {path: entry.oid for path, entry in git.tree(commit).items()}


# -- opening a repository and resolving revisions ------------------------------------------------------


def test_opens_from_a_subfolder_with_the_top_level_as_root(repo: GitRepo) -> None:
    repo.write("src/pkg/mod.py", "x = 1\n")
    repo.commit()
    with GitRepository(repo.root / "src" / "pkg") as opened:
        assert opened.root == repo.root.resolve()
        assert opened.snapshot("HEAD").read("src/pkg/mod.py") == b"x = 1\n"


def test_the_common_git_directory_is_the_main_ones_from_a_subfolder_or_a_linked_worktree(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write("src/pkg/mod.py", "x = 1\n")
    repo.commit()
    main = (repo.root / ".git").resolve()
    with GitRepository(repo.root / "src" / "pkg") as opened:
        assert opened.common_dir().resolve() == main
    monkeypatch.chdir(repo.root / "src")
    with GitRepository(".") as opened:  # git answers relative to where it ran: the path is made absolute there
        common = opened.common_dir()
    monkeypatch.chdir(repo.root.parent)
    assert common.is_absolute() and common.resolve() == main
    linked = repo.root.parent / "linked"
    repo.git("worktree", "add", "-q", "--detach", str(linked))
    with GitRepository(linked / "src") as opened:
        assert opened.root == linked.resolve() and opened.common_dir().resolve() == main


def test_inside_the_git_directory_is_not_a_working_tree(repo: GitRepo) -> None:
    repo.write("a.txt", "one\n")
    repo.commit()
    with pytest.raises(GitError, match=r"\.git is not inside the working tree of a git repository"):
        GitRepository(repo.root / ".git")


def test_a_commit_id_resolve_gave_is_not_asked_of_git_again(
    repo: GitRepo, git: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write("a.txt", "one\n")
    repo.commit()
    asked: list[tuple[str, ...]] = []
    real = git_module._git
    monkeypatch.setattr(git_module, "_git", lambda root, *args: asked.append(args) or real(root, *args))
    head = git.resolve("HEAD")
    assert git.resolve(head) == head and git.snapshot(head).commit == head
    assert len(asked) == 1
    assert git.tree(head)["a.txt"].kind is Kind.FILE and len(asked) == 2  # the listing, not another rev-parse


def test_a_folder_outside_any_repository_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitError, match=r"plain is not inside a git repository"):
        GitRepository(plain)


def test_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GitError, match=r"nowhere is not a directory"):
        GitRepository(tmp_path / "nowhere")


def test_a_bare_repository_is_refused_as_bare(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True, capture_output=True)
    with pytest.raises(GitError, match=r"bare\.git is a bare repository; a working tree is needed"):
        GitRepository(bare)


def test_resolve_branch_tag_and_relative_revisions(repo: GitRepo, git: GitRepository) -> None:
    repo.write("a.txt", "one\n")
    first = repo.commit("first", tag="v1")
    repo.write("a.txt", "two\n")
    second = repo.commit("second")
    assert git.resolve("main") == second
    assert git.resolve("HEAD") == second
    assert git.resolve("v1") == first
    assert git.resolve("HEAD~1") == first
    assert git.resolve(first[:10]) == first
    for rev in ("main", "v1", "HEAD~1"):
        assert HEX40.fullmatch(git.resolve(rev))


def test_resolve_refuses_bad_revisions(repo: GitRepo, git: GitRepository) -> None:
    repo.write("a.txt", "one\n")
    repo.commit()
    blob = git.tree("HEAD")["a.txt"].oid
    with pytest.raises(GitError, match=r"'no-such-branch' does not name a commit"):
        git.resolve("no-such-branch")
    with pytest.raises(GitError, match=r"does not name a commit"):
        git.resolve("HEAD~5")
    with pytest.raises(GitError, match=r"does not name a commit"):
        git.resolve(blob)  # an object, but not a commit


@pytest.mark.parametrize("rev", ["-h", "--all", "--output=/tmp/x", "-"])
def test_resolve_refuses_option_like_arguments(repo: GitRepo, git: GitRepository, rev: str) -> None:
    repo.write("a.txt", "one\n")
    repo.commit()
    with pytest.raises(GitError, match=r"not a revision"):
        git.resolve(rev)


# -- trees -------------------------------------------------------------------------------------------


def test_tree_lists_files_modes_symlinks_and_nested_folders(repo: GitRepo, git: GitRepository) -> None:
    repo.write("README.md", "hello\n")
    repo.write("src/deep/er/mod.py", "x = 1\n" * 10)
    script = repo.write("bin/run.sh", "#!/bin/sh\necho run\n")
    script.chmod(0o755)
    repo.write("empty.txt", b"")
    repo.symlink("src/alias.py", "deep/er/mod.py")
    commit = repo.commit()

    tree = git.tree(commit)
    assert set(tree) == {"README.md", "src/deep/er/mod.py", "bin/run.sh", "empty.txt", "src/alias.py"}
    assert (tree["README.md"].mode, tree["README.md"].kind) == ("100644", Kind.FILE)
    assert tree["src/deep/er/mod.py"].kind is Kind.FILE
    assert (tree["bin/run.sh"].mode, tree["bin/run.sh"].kind) == ("100755", Kind.FILE)
    link = tree["src/alias.py"]
    assert (link.mode, link.kind) == ("120000", Kind.SYMLINK)
    assert all(HEX40.fullmatch(entry.oid) for entry in tree.values())
    assert tree["README.md"].oid == repo.git("rev-parse", f"{commit}:README.md").strip()
    assert git.tree("HEAD") == tree  # a revision name works as well as an id
    # Sizes are learnt when a file is looked at, not when the tree is listed.
    snap = git.snapshot(commit)
    assert snap.entry("README.md") == Entry(Kind.FILE, 6)
    assert snap.entry("src/deep/er/mod.py") == Entry(Kind.FILE, 60)
    assert snap.entry("empty.txt") == Entry(Kind.FILE, 0)
    assert snap.entry("src/alias.py") == Entry(Kind.SYMLINK)


def test_tree_reports_a_gitlink_as_other(repo: GitRepo, git: GitRepository) -> None:
    repo.write("a.txt", "one\n")
    first = repo.commit()
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{first},vendor/sub")
    repo.git("-c", "commit.gpgsign=false", "commit", "-q", "-m", "add a submodule-like gitlink")
    tree = git.tree("HEAD")
    sub = tree["vendor/sub"]
    assert (sub.mode, sub.oid, sub.kind) == ("160000", first, Kind.OTHER)
    snap = git.snapshot("HEAD")
    assert snap.entry("vendor/sub") == Entry(Kind.OTHER, None)
    assert snap.entry("vendor") == Entry(Kind.DIRECTORY)


def test_tree_lists_names_with_tabs_newlines_and_bytes_that_are_not_utf8(repo: GitRepo, git: GitRepository) -> None:
    repo.write("seed.txt", "seed\n")
    repo.commit()
    blob = repo.git("hash-object", "-w", "seed.txt").strip()
    names = [b"tab\there.py", b"new\nline.py", b"caf\xe9.py", b"\xc3\xa9t\xc3\xa9.py", b"sp ace 100644 blob.py"]
    inner = _mktree(repo, b"".join(b"100644 blob %s\t%s\0" % (blob.encode(), n) for n in names), z=True)
    top = _mktree(repo, f"040000 tree {inner}\tdeep\n")
    commit = repo.git("commit-tree", top, "-m", "odd names").strip()

    tree = git.tree(commit)
    expected = {"deep/" + n.decode("utf-8", "surrogateescape") for n in names}
    assert set(tree) == expected and {e.oid for e in tree.values()} == {blob}
    snap = CommitSnapshot(git, commit)
    assert snap.entry("deep") == Entry(Kind.DIRECTORY) and snap.entry("deep/tab") is None
    assert snap.read("deep/caf\udce9.py") == b"seed\n"


def test_every_folder_of_a_tree_is_a_directory_and_nothing_else_is(repo: GitRepo, git: GitRepository) -> None:
    for path in ("a/b/c/d.py", "a/b/e.py", "a/f.py", "g/h.py", "top.py", "a/bb/i.py", "x/y/z/only.py"):
        repo.write(path, "x\n")
    snap = git.snapshot(repo.commit())
    folders = {"a", "a/b", "a/b/c", "a/bb", "g", "x", "x/y", "x/y/z"}
    assert {p for p in folders if snap.entry(p) == Entry(Kind.DIRECTORY)} == folders
    assert [snap.entry(p) for p in ("a/b/c/d", "b", "a/c", "", "a/b/c/d.py/x")] == [None] * 5


# -- blobs -------------------------------------------------------------------------------------------


def test_read_blobs_reads_many_blobs_through_one_reused_process(repo: GitRepo, git: GitRepository) -> None:
    contents = {f"many/file_{n:03d}.txt": f"file {n}\n".encode() * (n % 7) for n in range(500)}
    for path, data in contents.items():
        repo.write(path, data)
    commit = repo.commit()
    oids = _blob_ids(git, commit)

    paths = sorted(contents)
    first_half = git.read_blobs(oids[p] for p in paths[:250])
    cat = git._cat
    assert cat is not None
    process = cat._process
    second_half = git.read_blobs([oids[p] for p in paths[250:]])
    assert git._cat is cat and cat._process is process  # the same cat-file process served both calls
    assert process.poll() is None  # and it is still running, ready for more

    found = {**first_half, **second_half}
    for path in paths:
        assert found[oids[path]] == contents[path]
    # Identical contents share a blob id: the answer holds each id once.
    assert len(found) == len({oids[p] for p in paths})


def test_read_blobs_is_byte_exact(repo: GitRepo, git: GitRepository) -> None:
    big = random.Random(1234).randbytes(1_500_000) + b"\n"
    files = {
        "binary.bin": BINARY,
        "crlf.txt": CRLF,
        "empty.txt": b"",
        "big.bin": big,
        "lone-newline.txt": b"\n",
        "no-newline.txt": b"tail",
        "utf8.txt": "naïve café — ☃\n".encode(),
    }
    for path, data in files.items():
        repo.write(path, data)
    commit = repo.commit()
    oids = _blob_ids(git, commit)
    # Big and small blobs interleaved in one pipelined batch: every answer must stay framed.
    order = [
        "empty.txt",
        "big.bin",
        "binary.bin",
        "lone-newline.txt",
        "crlf.txt",
        "no-newline.txt",
        "utf8.txt",
    ]
    found = git.read_blobs([oids[p] for p in order])
    for path in order:
        assert found[oids[path]] == files[path], path
    snap = git.snapshot(commit)
    assert snap.read("big.bin") == big
    assert snap.entry("big.bin") == Entry(Kind.FILE, len(big))


def test_read_blobs_raises_on_a_missing_object(repo: GitRepo, git: GitRepository) -> None:
    repo.write("a.txt", "one\n")
    commit = repo.commit()
    present = _blob_ids(git, commit)["a.txt"]
    absent = "0123456789abcdef0123456789abcdef01234567"
    with pytest.raises(GitError, match=rf"object {absent} is missing"):
        git.read_blobs([present, absent])
    # The process is still in step after the failure.
    assert git.read_blobs([present]) == {present: b"one\n"}


def _asks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every object name asked of a cat-file process from now on, in order."""
    asked: list[str] = []
    ask = _CatFile.ask

    def recorded(self: _CatFile, names: Iterable[str]) -> None:
        names = list(names)
        asked.extend(names)
        ask(self, names)

    monkeypatch.setattr(_CatFile, "ask", recorded)
    return asked


def test_blobs_asked_ahead_are_taken_in_order_kept_and_never_asked_twice(
    repo: GitRepo, git: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    contents = {f"ahead/f{n:03d}.txt": f"line {n}\n".encode() * (n + 1) for n in range(150)}  # over 2 pipelines
    for path, data in contents.items():
        repo.write(path, data)
    oids = _blob_ids(git, repo.commit())
    order = [oids[path] for path in sorted(contents)]
    asked = _asks(monkeypatch)
    git.read_ahead(order)
    assert git.read_blobs([order[100]]) == {order[100]: contents[sorted(contents)[100]]}
    assert git._cat is not None and git._cat.asked == 49  # the answers before it were taken and kept
    assert git.read_blobs(reversed(order)) == {oids[path]: data for path, data in contents.items()}
    assert asked == order and git._cat.asked == 0


def test_a_blob_not_asked_ahead_is_answered_after_those_that_were(
    repo: GitRepo, git: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in "abcd":
        repo.write(f"{name}.txt", f"{name}\n")
    oids = _blob_ids(git, repo.commit())
    asked = _asks(monkeypatch)
    git.read_ahead([oids["a.txt"], oids["b.txt"]])
    assert git.read_blobs([oids["d.txt"]]) == {oids["d.txt"]: b"d\n"}
    assert git.read_blobs([oids["b.txt"], oids["a.txt"]]) == {oids["b.txt"]: b"b\n", oids["a.txt"]: b"a\n"}
    assert asked == [oids["a.txt"], oids["b.txt"], oids["d.txt"]]


def test_a_missing_blob_asked_ahead_is_missing_and_the_rest_is_read(repo: GitRepo, git: GitRepository) -> None:
    repo.write("a.txt", "one\n")
    repo.write("b.txt", "two\n")
    oids = _blob_ids(git, repo.commit())
    absent = "0123456789abcdef0123456789abcdef01234567"
    git.read_ahead([oids["a.txt"], absent, oids["b.txt"]])
    assert git.read_blobs([oids["b.txt"]]) == {oids["b.txt"]: b"two\n"}
    assert git.read_blobs([absent, oids["a.txt"]], strict=False) == {oids["a.txt"]: b"one\n"}
    with pytest.raises(MissingObjectError):
        git.read_blobs([absent])


def test_a_cat_file_that_dies_with_answers_in_flight_is_replaced_and_they_are_asked_again(
    repo: GitRepo, git: GitRepository
) -> None:
    for n in range(5):
        repo.write(f"f{n}.txt", f"file {n}\n" * 30_000)  # 240 kB each: more than the pipe holds
    oids = _blob_ids(git, repo.commit())
    order = [oids[f"f{n}.txt"] for n in range(5)]
    git.read_ahead(order)
    assert git._cat is not None
    dead = git._cat._process
    dead.kill()
    dead.wait()
    # The object it was answering is taken as one it cannot give (a partial clone's failed fetch ends it so);
    # the others are asked again of a new process.
    assert git.read_blobs(order[1:]) == {oid: f"file {n}\n".encode() * 30_000 for n, oid in enumerate(order) if n}
    assert git._cat._process is not dead and git._cat.asked == 0
    assert git.read_blobs(order[:1], strict=False) == {}


def test_closing_with_answers_unread_ends_git_at_once(repo: GitRepo) -> None:
    for n in range(4):
        repo.write(f"big{n}.bin", random.Random(n).randbytes(2_000_000))  # more than the pipe holds
    commit = repo.commit()
    opened = GitRepository(repo.root)
    opened.read_ahead(entry.oid for entry in opened.tree(commit).values())
    assert opened._cat is not None
    process = opened._cat._process
    opened.close()
    # Ended by the broken pipe, not killed after waiting five seconds for answers nobody would read.
    assert process.returncode is not None and process.returncode != -signal.SIGKILL
    assert opened._cat is None and opened._asked == set()


def test_the_blob_cache_avoids_reading_again(repo: GitRepo, git: GitRepository) -> None:
    repo.write("a.txt", "one\n")
    repo.write("b.txt", "two\n")
    commit = repo.commit()
    oids = _blob_ids(git, commit)
    assert git.read_blobs([oids["a.txt"]]) == {oids["a.txt"]: b"one\n"}
    git.close()
    assert git._cat is None
    # A cached blob is answered without starting a cat-file process ...
    assert git.read_blobs([oids["a.txt"], oids["a.txt"]]) == {oids["a.txt"]: b"one\n"}
    assert git.snapshot(commit).read("a.txt") == b"one\n"
    assert git._cat is None
    # ... an uncached one needs one.
    assert git.read_blobs([oids["b.txt"]]) == {oids["b.txt"]: b"two\n"}
    assert git._cat is not None


# -- commit snapshots --------------------------------------------------------------------------------


@pytest.fixture
def linked(repo: GitRepo) -> GitRepo:
    """A commit with files, nested folders, a symlinked file and a symlinked folder."""
    repo.write("src/a.py", "a = 1\n")
    repo.write("src/pkg/b.py", "b = 2\n")
    repo.write("src/pkg/sub/c.py", "c = 3\n")
    repo.write("srcx/not-under-src.py", "x = 0\n")
    repo.symlink("src/link.py", "a.py")
    repo.symlink("src/linkdir", "pkg")
    repo.commit("linked", tag="v1")
    return repo


def test_commit_snapshot_entries(linked: GitRepo, git: GitRepository) -> None:
    snap = git.snapshot("v1")
    assert isinstance(snap, CommitSnapshot)
    assert snap.commit == git.resolve("v1")
    assert snap.label == f"v1 ({snap.commit[:12]})"
    # a name that shows the commit already is not followed by its digits again
    assert git.snapshot(snap.commit).label == snap.commit
    assert git.snapshot(snap.commit[:7]).label == snap.commit[:7]
    assert git.snapshot(snap.commit, f"main ({snap.commit[:12]})").label == f"main ({snap.commit[:12]})"
    assert snap.entry("src/a.py") == Entry(Kind.FILE, 6)
    assert snap.entry("src") == Entry(Kind.DIRECTORY)
    assert snap.entry("src/pkg/sub") == Entry(Kind.DIRECTORY)
    assert snap.entry("src/missing.py") is None
    assert snap.entry("nowhere/at/all.py") is None
    assert snap.entry("src/a.py/below") is None  # a file is not a folder
    assert snap.entry("src/link.py") == Entry(Kind.SYMLINK)
    assert snap.entry("src/linkdir") == Entry(Kind.SYMLINK)
    assert snap.entry("src/linkdir/b.py").kind is Kind.SYMLINK  # reached through a symlinked folder
    assert snap.entry("src/linkdir/sub/c.py").kind is Kind.SYMLINK
    assert snap.read("src/pkg/sub/c.py") == b"c = 3\n"


def test_commit_snapshot_walk(linked: GitRepo, git: GitRepository) -> None:
    snap = git.snapshot("v1")
    walked = dict(snap.walk("src"))
    assert walked == {  # without sizes: walking a folder reads no blob
        "src/a.py": Entry(Kind.FILE),
        "src/pkg/b.py": Entry(Kind.FILE),
        "src/pkg/sub/c.py": Entry(Kind.FILE),
        "src/link.py": Entry(Kind.SYMLINK),
        "src/linkdir": Entry(Kind.SYMLINK),
    }
    assert dict(snap.walk("src/")) == walked
    assert set(dict(snap.walk("src/pkg"))) == {"src/pkg/b.py", "src/pkg/sub/c.py"}
    assert list(snap.walk("nowhere")) == []
    assert dict(snap.walk("src")) == walked  # listed once per folder, walked again as often as asked


def test_commit_snapshot_walk_skips_entries_under_a_symlinked_folder(repo: GitRepo, git: GitRepository) -> None:
    """A hand-made tree holding both a symlink `docs/link` and files below `docs/link/`."""
    repo.write("seed.txt", "seed\n")
    repo.commit()
    blob = repo.git("hash-object", "-w", "seed.txt").strip()  # also the symlink's target, "seed\n"
    inner = _mktree(repo, f"100644 blob {blob}\tinner.md\n")
    docs = _mktree(repo, f"120000 blob {blob}\tlink\n040000 tree {inner}\tlink\n100644 blob {blob}\treal.md\n")
    top = _mktree(repo, f"040000 tree {docs}\tdocs\n")
    commit = repo.git("commit-tree", top, "-m", "crafted").strip()

    snap = CommitSnapshot(git, commit)
    assert "docs/link/inner.md" in git.tree(commit)  # git lists it ...
    assert snap.entry("docs/link/inner.md") == Entry(Kind.SYMLINK)  # ... but it lies under a symlink
    assert dict(snap.walk("docs")) == {"docs/real.md": Entry(Kind.FILE), "docs/link": Entry(Kind.SYMLINK)}


def _mktree(repo: GitRepo, listing: str | bytes, *, z: bool = False) -> str:
    done = subprocess.run(
        ["git", "mktree", *(["-z"] if z else [])],
        cwd=repo.root,
        input=listing.encode() if isinstance(listing, str) else listing,
        capture_output=True,
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout.decode().strip()


def test_commit_snapshot_reads_git_objects_only(linked: GitRepo, git: GitRepository) -> None:
    linked.write("src/a.py", "a = 'changed on disk'\n")
    linked.remove("src/pkg/b.py")
    shutil.rmtree(linked.root / "src" / "pkg" / "sub")
    snap = git.snapshot("v1")
    assert snap.read("src/a.py") == b"a = 1\n"
    assert snap.read("src/pkg/b.py") == b"b = 2\n"
    assert snap.entry("src/pkg/sub/c.py") == Entry(Kind.FILE, 6)
    assert {p for p, _ in snap.walk("src/pkg")} == {"src/pkg/b.py", "src/pkg/sub/c.py"}


# -- the working tree --------------------------------------------------------------------------------


def test_worktree_sees_uncommitted_edits_and_untracked_files(linked: GitRepo, git: GitRepository) -> None:
    linked.write("src/a.py", "a = 'edited'\n")
    linked.write("src/new.py", "new = True\n")
    snap = git.worktree()
    assert isinstance(snap, WorktreeSnapshot)
    assert snap.label == "working tree"
    assert snap.read("src/a.py") == b"a = 'edited'\n"
    assert snap.entry("src/a.py") == Entry(Kind.FILE, len(b"a = 'edited'\n"))
    assert snap.entry("src/new.py") == Entry(Kind.FILE, 11)
    assert snap.read("src/new.py") == b"new = True\n"


def test_worktree_entries(linked: GitRepo, git: GitRepository) -> None:
    linked.symlink("dangling.py", "does-not-exist.py")
    snap = git.worktree()
    assert snap.entry("src/link.py") == Entry(Kind.SYMLINK)
    assert snap.entry("src/linkdir") == Entry(Kind.SYMLINK)
    assert snap.entry("src/linkdir/b.py") == Entry(Kind.SYMLINK)  # a symlinked parent folder
    assert snap.entry("src/linkdir/sub/c.py") == Entry(Kind.SYMLINK)
    assert snap.entry("dangling.py") == Entry(Kind.SYMLINK)
    assert snap.entry("src") == Entry(Kind.DIRECTORY)
    assert snap.entry("src/pkg") == Entry(Kind.DIRECTORY)
    assert snap.entry("src/a.py/below") is None  # the parent is a regular file
    assert snap.entry("src/a.py/below/deeper.py") is None
    assert snap.entry("src/missing.py") is None
    assert snap.entry("missing/folder/file.py") is None


def test_worktree_walk_reports_but_does_not_enter_symlinked_folders(linked: GitRepo, git: GitRepository) -> None:
    linked.write("src/untracked.md", "# new\n")
    walked = dict(git.worktree().walk("src"))
    assert walked == {
        "src/a.py": Entry(Kind.FILE, 6),
        "src/pkg/b.py": Entry(Kind.FILE, 6),
        "src/pkg/sub/c.py": Entry(Kind.FILE, 6),
        "src/untracked.md": Entry(Kind.FILE, 6),
        "src/link.py": Entry(Kind.SYMLINK),
        "src/linkdir": Entry(Kind.SYMLINK),
    }
    assert list(git.worktree().walk("src/linkdir")) == []  # a symlinked top is not entered either
    assert list(git.worktree().walk("nowhere")) == []


# -- changes -----------------------------------------------------------------------------------------


def test_changes_between_commits(repo: GitRepo, git: GitRepository) -> None:
    repo.write("kept.py", "k = 1\n")
    repo.write("modified.py", "m = 1\n")
    repo.write("deleted.py", "d = 1\n")
    repo.write("old/module.py", MODULE)
    base = repo.commit("base")
    repo.write("modified.py", "m = 2\n")
    repo.remove("deleted.py")
    repo.write("added.py", "a = 1\n")
    (repo.root / "new").mkdir()
    repo.git("mv", "old/module.py", "new/renamed.py")
    repo.write("new/renamed.py", MODULE.replace("return 3\n", "return 33\n"))
    head = repo.commit("head")

    changes = git.changes(base, head)
    assert isinstance(changes, tuple)
    assert set(changes) == {
        FileChange("modified.py", "modified.py"),
        FileChange("deleted.py", None),
        FileChange(None, "added.py"),
        FileChange("old/module.py", "new/renamed.py"),
    }
    assert git.changes(head, head) == ()
    assert set(git.changes("HEAD~1", "HEAD")) == set(changes)  # revision names work too


def _listed_by_git(root: Path, commit: str) -> list[tuple[str, tuple[str, str]]]:
    """A commit's listing from a repository object that has listed no other tree: `ls-tree` itself."""
    with GitRepository(root) as fresh:
        return [(path, tuple(entry)) for path, entry in fresh.tree(commit).items()]


def test_a_change_base_is_listed_from_its_head_and_the_diff_as_git_lists_it(repo: GitRepo) -> None:
    """Every kind of change undone: modified, added, deleted, renamed and edited, a file turned symlink, an
    executable bit, a folder turned file and back, a submodule moved, and paths whose byte order is not their
    characters' (`a-b`, `a.b`, `a/b`, `a0`, non-ASCII); in git's order, and without a second `ls-tree`."""
    for name in ("a-b", "a.b", "a/b", "a0", "z/ünï.py", "tools/run.sh", "dir/inner.py", "plain.py", "old/module.py"):
        repo.write(name, f"{name} = 1\n" if name != "old/module.py" else MODULE)
    repo.write("gone.py", "g = 1\n")
    (repo.root / "vendor/lib").mkdir(parents=True)  # a submodule not checked out: an empty folder
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},vendor/lib")
    base = repo.commit("base")
    repo.write("a.b", "changed\n")
    repo.remove("gone.py")
    repo.write("a-c", "new\n")
    (repo.root / "new").mkdir()
    repo.git("mv", "old/module.py", "new/renamed.py")
    repo.write("new/renamed.py", MODULE.replace("return 3\n", "return 33\n"))
    repo.remove("plain.py")
    repo.symlink("plain.py", "a-b")
    repo.git("update-index", "--chmod=+x", "tools/run.sh")
    repo.remove("dir/inner.py")
    (repo.root / "dir").rmdir()
    repo.write("dir", "now a file\n")
    repo.remove("a0")
    repo.write("a0/inside.py", "i = 1\n")
    repo.git("rm", "-q", "--cached", "vendor/lib")
    (repo.root / "vendor/lib").rename(repo.root / "vendor/moved")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{'2' * 40},vendor/moved")
    head = repo.commit("head")
    raw = repo.git("diff", "--raw", "-M", base, head).splitlines()
    assert {line.split("\t")[0].split(" ")[-1][0] for line in raw} == {"A", "D", "M", "R", "T"}

    with GitRepository(repo.root) as git:
        git.tree(head)
        change = git.change(base, head)
        listed: list[tuple[str, ...]] = []
        asked = git.git
        git.git = lambda *args: listed.append(args) or asked(*args)  # type: ignore[method-assign]
        derived = [(path, tuple(entry)) for path, entry in git.tree(change.base.commit or "").items()]
    assert derived == _listed_by_git(repo.root, base)
    assert not [args for args in listed if args[0] == "ls-tree"]


def test_a_base_whose_head_was_not_listed_or_diffed_is_listed_by_git(repo: GitRepo) -> None:
    repo.write("a.py", "a = 1\n")
    base = repo.commit("base")
    repo.write("b.py", "b = 1\n")
    head = repo.commit("head")
    with GitRepository(repo.root) as git:
        change = git.change(base, head)  # the head's tree never listed
        assert list(git.tree(base)) == ["a.py"]
    with GitRepository(repo.root) as git:
        git.tree(head)
        change = git.change(base, "HEAD")  # diffed with a name, not the listed commit id
        assert list(git.tree(change.base.commit or "")) == ["a.py"]
    with GitRepository(repo.root) as git:
        git.tree(head)
        git.change(base)  # to the working tree: nothing to derive from
        assert list(git.tree(base)) == ["a.py"]


def test_changes_against_the_working_tree(repo: GitRepo, git: GitRepository) -> None:
    repo.write(".gitignore", "*.log\nbuild/\n")
    repo.write("unstaged.py", "u = 1\n")
    repo.write("staged.py", "s = 1\n")
    repo.write("deleted.py", "d = 1\n")
    repo.write("staged_delete.py", "sd = 1\n")
    repo.write("same.py", "same = 1\n")
    repo.write("old/module.py", MODULE)
    base = repo.commit("base")

    repo.write("unstaged.py", "u = 2\n")
    repo.write("staged.py", "s = 2\n")
    repo.git("add", "staged.py")
    repo.remove("deleted.py")
    repo.git("rm", "-q", "staged_delete.py")
    (repo.root / "new").mkdir()
    repo.git("mv", "old/module.py", "new/module.py")
    repo.write("new/module.py", MODULE.replace("return 3\n", "return 33\n"))
    repo.write("untracked.py", "new = 1\n")
    repo.write("pkg/untracked_in_folder.py", "new = 2\n")
    repo.write("debug.log", "ignored\n")
    repo.write("build/out.py", "ignored = True\n")

    changes = git.changes(base)
    assert set(changes) == {
        FileChange("unstaged.py", "unstaged.py"),
        FileChange("staged.py", "staged.py"),
        FileChange("deleted.py", None),
        FileChange("staged_delete.py", None),
        FileChange("old/module.py", "new/module.py"),
        FileChange(None, "untracked.py"),
        FileChange(None, "pkg/untracked_in_folder.py"),
    }
    assert len(changes) == len(set(changes))


def test_changes_against_the_working_tree_from_a_subfolder(repo: GitRepo) -> None:
    repo.write("src/a.py", "a = 1\n")
    base = repo.commit()
    repo.write("src/a.py", "a = 2\n")
    repo.write("top.py", "t = 1\n")
    repo.write("src/new.py", "n = 1\n")
    with GitRepository(repo.root / "src") as opened:
        assert set(opened.changes(base)) == {
            FileChange("src/a.py", "src/a.py"),
            FileChange(None, "top.py"),
            FileChange(None, "src/new.py"),
        }


def test_changes_with_spaces_and_non_ascii_names(repo: GitRepo, git: GitRepository) -> None:
    repo.write("docs and notes/read me.md", "one\n")
    repo.write("src/naïve café.py", "x = 1\n")
    repo.write("src/Ĉiuj/日本語 ファイル.txt", MODULE)
    base = repo.commit()
    repo.write("docs and notes/read me.md", "two\n")
    repo.git("mv", "src/Ĉiuj/日本語 ファイル.txt", "src/Ĉiuj/новый файл.txt")
    repo.write("src/Ĉiuj/новый файл.txt", MODULE + "# one more line\n")
    repo.remove("src/naïve café.py")
    head = repo.commit()
    assert set(git.changes(base, head)) == {
        FileChange("docs and notes/read me.md", "docs and notes/read me.md"),
        FileChange("src/Ĉiuj/日本語 ファイル.txt", "src/Ĉiuj/новый файл.txt"),
        FileChange("src/naïve café.py", None),
    }
    repo.write("tab\there/ünïcödé name.py", "u = 1\n")
    assert FileChange(None, "tab\there/ünïcödé name.py") in git.changes(head)
    snap = git.snapshot(head)
    assert snap.read("src/Ĉiuj/новый файл.txt").endswith(b"# one more line\n")
    assert snap.entry("docs and notes/read me.md") == Entry(Kind.FILE, 4)


# -- objects the store lacks: partial clones, trimmed mirrors, shallow history ----------------------------


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True, check=True)
    return done.stdout.decode()


def _missing(root: Path) -> set[str]:
    listing = _git(root, "rev-list", "--objects", "--missing=print", "--all")
    return {line[1:] for line in listing.splitlines() if line.startswith("?")}


@pytest.fixture
def partial(repo: GitRepo, tmp_path: Path) -> tuple[Path, Path]:
    """A partial clone (`--filter=blob:none`, no checkout: it holds no blob at all) and the remote it fetches
    from, a local path that allows filters."""
    for n in range(5):
        repo.write(f"src/m{n}.py", f"VALUE = {n}\n" * 50)
    repo.commit(tag="v1")
    served = tmp_path / "served.git"
    _git(tmp_path, "clone", "-q", "--bare", str(repo.root), str(served))
    _git(served, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{served}", str(clone))
    return clone, served


def test_listing_a_partial_clone_fetches_nothing_and_reading_fetches_one_blob(partial: tuple[Path, Path]) -> None:
    clone, _served = partial
    before = _missing(clone)
    assert len(before) == 5
    with GitRepository(clone) as opened:
        snap = opened.snapshot("v1")
        assert {p for p, _ in snap.walk("src")} == {f"src/m{n}.py" for n in range(5)}
        assert _missing(clone) == before  # the tree was listed without reading a blob
        assert snap.read("src/m2.py") == b"VALUE = 2\n" * 50
        assert snap.entry("src/m2.py") == Entry(Kind.FILE, 500)
    assert before - _missing(clone) == {opened.tree("v1")["src/m2.py"].oid}  # that one, and only it


def test_a_blob_a_partial_clone_cannot_fetch_is_an_error_on_its_file_and_the_rest_is_read(
    partial: tuple[Path, Path], tmp_path: Path
) -> None:
    clone, served = partial
    with GitRepository(clone) as opened:
        snap = opened.snapshot("v1")
        assert snap.read("src/m0.py") == b"VALUE = 0\n" * 50
        served.rename(tmp_path / "gone.git")  # the remote is out of reach from here on
        snap.prefetch(["src/m0.py", "src/m1.py", "src/m3.py"])  # never raises: `read` reports what is missing
        assert snap.entry("src/m1.py") == Entry(Kind.FILE, None)
        with pytest.raises(MissingObjectError) as raised:
            snap.read("src/m1.py")
        assert isinstance(raised.value, UnreadableFileError)
        message = str(raised.value)
        assert message.startswith("src/m1.py: the object store lacks this file") and "\n" not in message
        assert snap.read("src/m0.py") == b"VALUE = 0\n" * 50  # what it has is still read
        with pytest.raises(MissingObjectError):
            snap.read("src/m3.py")


@pytest.fixture
def partial_change(repo: GitRepo, tmp_path: Path) -> tuple[Path, Path]:
    """A change from v1 to v2 that renames a file unchanged (src/m0.py), renames and edits one (src/m1.py),
    deletes one (src/m2.py) and adds one, served to a partial clone that holds no blob at all."""
    for n in range(3):
        repo.write(f"src/m{n}.py", MODULE.replace("function", f"m{n}"))
    repo.commit(tag="v1")
    (repo.root / "src/moved").mkdir()
    (repo.root / "src/m0.py").rename(repo.root / "src/moved/m0.py")
    repo.remove("src/m1.py")
    repo.write("src/m1b.py", MODULE.replace("function", "m1") + "# one more line\n")
    repo.remove("src/m2.py")
    repo.write("src/new.py", "NEW = 1\n")
    repo.commit(tag="v2")
    served = tmp_path / "served.git"
    _git(tmp_path, "clone", "-q", "--bare", str(repo.root), str(served))
    _git(served, "config", "uploadpack.allowFilter", "true")
    _git(served, "config", "uploadpack.allowAnySHA1InWant", "true")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{served}", str(clone))
    return clone, served


def test_a_partial_clone_finds_renames_without_fetching_a_blob(
    partial_change: tuple[Path, Path], repo: GitRepo, tmp_path: Path
) -> None:
    """git's rename detection reads the deleted and added files' blobs: in a partial clone lacking them, only the
    exact renames are found (they need no blob), and nothing is fetched; the renames of the files a wiki cites are
    looked for on demand (`renames`), reading only those and the added files; the full clone's renames are found."""
    clone, served = partial_change
    before = _missing(clone)
    with GitRepository(repo.root) as full:
        assert set(full.changes("v1", "v2")) == {
            FileChange("src/m0.py", "src/moved/m0.py"),
            FileChange("src/m1.py", "src/m1b.py"),
            FileChange("src/m2.py", None),
            FileChange(None, "src/new.py"),
        }
    with GitRepository(clone) as opened:
        assert opened.is_partial()
        change = opened.change("v1", "v2")
        assert set(change.files) == {
            FileChange("src/m0.py", "src/moved/m0.py"),  # the same blob: no content needed
            FileChange("src/m1.py", None),
            FileChange(None, "src/m1b.py"),
            FileChange("src/m2.py", None),
            FileChange(None, "src/new.py"),
        }
        assert _missing(clone) == before  # not one blob fetched
        assert opened.renames(change, ["src/m0.py", "src/new.py"]) is change  # nothing cited is unpaired
        followed = opened.renames(change, ["src/m1.py"])
        assert set(followed.files) == {
            FileChange("src/m0.py", "src/moved/m0.py"),
            FileChange("src/m1.py", "src/m1b.py"),
            FileChange("src/m2.py", None),
            FileChange(None, "src/new.py"),
        }
        assert followed.base is change.base and followed.paths == change.paths
        fetched = before - _missing(clone)
        tree = {**opened.tree("v1"), **opened.tree("v2")}
        assert tree["src/m2.py"].oid not in fetched  # the deleted file nothing cites: never fetched
        assert tree["src/m1.py"].oid in fetched
    other = tmp_path / "other"
    _git(tmp_path, "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{served}", str(other))
    served.rename(tmp_path / "gone.git")  # the remote out of reach: the change is still listed
    with GitRepository(other) as opened:
        change = opened.change("v1", "v2")
        assert FileChange("src/m0.py", "src/moved/m0.py") in change.files
        assert opened.renames(change, ["src/m1.py"]) is change  # its blob cannot be had: left as it is


def test_a_partial_clone_holding_the_blobs_finds_renames_as_git_does(
    partial_change: tuple[Path, Path], repo: GitRepo
) -> None:
    clone, _ = partial_change
    _git(clone, "checkout", "-q", "v1")
    _git(clone, "checkout", "-q", "v2")  # every blob of both commits fetched
    assert _missing(clone) == set()
    with GitRepository(clone) as opened, GitRepository(repo.root) as full:
        assert opened.changes("v1", "v2") == full.changes("v1", "v2")


def test_a_trimmed_object_store_is_an_error_on_the_file_it_lacks(repo: GitRepo, git: GitRepository) -> None:
    repo.write("kept.txt", "kept\n")
    repo.write("lost.txt", "lost\n")
    commit = repo.commit()
    lost = _blob_ids(git, commit)["lost.txt"]
    (repo.root / ".git/objects" / lost[:2] / lost[2:]).unlink()
    snap = git.snapshot(commit)
    assert set(git.tree(commit)) == {"kept.txt", "lost.txt"}  # `ls-tree --long` failed here on the size
    assert snap.entry("lost.txt") == Entry(Kind.FILE, None)
    snap.prefetch(["kept.txt", "lost.txt"])
    with pytest.raises(MissingObjectError, match=r"^lost.txt: the object store lacks this file"):
        snap.read("lost.txt")
    assert snap.read("kept.txt") == b"kept\n"


def test_a_commit_beyond_a_shallow_history_says_so(repo: GitRepo, tmp_path: Path) -> None:
    repo.write("a.txt", "one\n")
    repo.commit(tag="v1")
    repo.write("a.txt", "two\n")
    repo.commit()
    clone = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone))
    with GitRepository(clone) as opened, pytest.raises(GitError) as raised:
        opened.resolve("HEAD~1")
    message = str(raised.value)
    assert "'HEAD~1' does not name a commit" in message and "history is shallow" in message
    assert "git fetch --deepen" in message and "fetch-depth: 0" in message
    with GitRepository(repo.root) as full, pytest.raises(GitError) as raised:
        full.resolve("v9")
    assert "history is shallow" not in str(raised.value)


# -- closing -----------------------------------------------------------------------------------------


def test_close_ends_the_cat_file_process(repo: GitRepo) -> None:
    repo.write("a.txt", "one\n")
    commit = repo.commit()
    opened = GitRepository(repo.root)
    opened.snapshot(commit).read("a.txt")
    assert opened._cat is not None
    process = opened._cat._process
    assert process.poll() is None
    opened.close()
    assert process.poll() is not None  # exited
    assert process.returncode == 0
    assert opened._cat is None
    opened.close()  # closing twice is harmless


def test_close_tells_both_processes_to_end_before_waiting_for_either(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write("a.txt", "one\n")
    commit = repo.commit()
    opened = GitRepository(repo.root)
    snapshot = opened.snapshot(commit)
    snapshot.prefetch(["a.txt"])  # sizes: the --batch-check process
    snapshot.read("a.txt")  # contents: the --batch process
    assert opened._cat is not None and opened._check is not None
    processes = [opened._cat._process, opened._check._process]
    told: list[bool] = []  # at each wait: whether both had been told to end (their input closed)
    real = _CatFile.reap

    def reap(self: _CatFile) -> None:
        told.append(all(p.stdin is not None and p.stdin.closed for p in processes))
        real(self)

    monkeypatch.setattr(_CatFile, "reap", reap)
    opened.close()
    assert all(p.returncode == 0 for p in processes)
    assert told == [True, True]


def test_the_context_manager_closes_and_a_closed_repository_can_read_again(repo: GitRepo) -> None:
    repo.write("a.txt", "one\n")
    repo.write("b.txt", "two\n")
    commit = repo.commit()
    with GitRepository(repo.root) as opened:
        opened.snapshot(commit).read("a.txt")
        assert opened._cat is not None
        process = opened._cat._process
    assert process.poll() is not None
    assert opened._cat is None
    assert opened.snapshot(commit).read("b.txt") == b"two\n"  # a new process on demand
    assert opened._cat is not None
    again = opened._cat._process
    opened.close()
    assert again.poll() is not None


# -- blob ids: what the sweep's caches are keyed by ----------------------------------------------------------


def test_every_snapshot_names_a_files_bytes_by_gits_blob_id(repo: GitRepo, git: GitRepository) -> None:
    from bot.claims.snapshot import git_blob_id

    repo.write("src/a.py", "a = 1\n")
    repo.write("src/b.py", "b = 2\n")
    repo.symlink("src/link.py", "a.py")
    repo.commit()
    expected = repo.git("rev-parse", "HEAD:src/a.py").strip()
    assert git_blob_id(b"a = 1\n") == expected
    for snapshot in (git.snapshot("HEAD"), git.staged(), git.worktree()):
        assert snapshot.blob_id("src/a.py") == expected
        assert snapshot.blob_id("src/link.py") is None  # not a regular file
        assert snapshot.blob_id("src/missing.py") is None
        assert snapshot.blob_id("src") is None


def test_the_working_tree_names_only_files_left_as_the_index_has_them(repo: GitRepo, git: GitRepository) -> None:
    repo.write("src/a.py", "a = 1\n")
    repo.write("src/b.py", "b = 2\n")
    repo.write("src/c.py", "c = 3\n")
    repo.commit()
    repo.write("src/a.py", "a = 10\n")  # modified: its bytes would have to be read to be named
    repo.write("src/new.py", "new\n")  # untracked
    repo.write("src/c.py", "c = 30\n")
    repo.git("add", "src/c.py")  # staged: the index names the new bytes
    repo.remove("src/b.py")
    worktree = git.worktree()
    assert worktree.blob_id("src/a.py") is None
    assert worktree.blob_id("src/new.py") is None
    assert worktree.blob_id("src/b.py") is None
    assert worktree.blob_id("src/c.py") == repo.git("rev-parse", ":src/c.py").strip()

"""A local git repository as snapshots for the sweep, read without a checkout.

Blobs come through one long-lived `git cat-file --batch` process (never a process per file), cached
by blob id; trees come from `git ls-tree`; changes from `git diff -M` (git's rename detection). The
working tree is a snapshot too, so uncommitted changes can be checked before they are committed.
"""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from cachetools import LRUCache

from ..claims.snapshot import Change, Entry, FileChange, Kind, Snapshot

_BLOB_CACHE_BYTES = 256 << 20
_PIPELINE = 64  # requests in flight on the cat-file pipe


class GitError(Exception):
    """A git command failed, or the path is not a repository; the message says which and why."""


def _git(cwd: Path, *args: str, input: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        raise GitError(f"git {args[0]} failed: {message}")
    return done.stdout


@dataclass(frozen=True, slots=True)
class TreeEntry:
    mode: str
    oid: str
    size: int | None

    @property
    def kind(self) -> Kind:
        if self.mode == "120000":
            return Kind.SYMLINK
        if self.mode in ("100644", "100755"):
            return Kind.FILE
        return Kind.OTHER  # 160000: a submodule


class _CatFile:
    """One `git cat-file --batch` process; requests are pipelined, answers read in order."""

    def __init__(self, root: Path) -> None:
        self._process = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._lock = threading.Lock()

    def read(self, names: list[str]) -> list[bytes | None]:
        """Contents of each object name, None for a missing one."""
        out: list[bytes | None] = []
        with self._lock:
            stdin, stdout = self._process.stdin, self._process.stdout
            assert stdin is not None and stdout is not None
            for at in range(0, len(names), _PIPELINE):
                chunk = names[at : at + _PIPELINE]
                stdin.write(b"".join(name.encode() + b"\n" for name in chunk))
                stdin.flush()
                for _ in chunk:
                    header = stdout.readline()
                    if not header:
                        raise GitError("git cat-file stopped unexpectedly")
                    fields = header.split()
                    if len(fields) != 3:  # "<name> missing" or "<name> ambiguous"
                        out.append(None)
                        continue
                    size = int(fields[2])
                    data = stdout.read(size)
                    stdout.read(1)  # the newline after the contents
                    out.append(data)
        return out

    def close(self) -> None:
        if self._process.poll() is None:
            assert self._process.stdin is not None
            self._process.stdin.close()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()


class GitRepository:
    """A local repository: commits resolved, trees listed, blobs read once and cached by blob id."""

    def __init__(self, path: str | os.PathLike[str] = ".") -> None:
        start = Path(path)
        if not start.is_dir():
            raise GitError(f"{start} is not a directory")
        try:
            bare = _git(start, "rev-parse", "--is-bare-repository").decode().strip()
        except GitError as exc:
            raise GitError(f"{start} is not inside a git repository") from exc
        if bare == "true":
            raise GitError(f"{start} is a bare repository; a working tree is needed")
        try:
            top = _git(start, "rev-parse", "--show-toplevel").decode().strip()
        except GitError as exc:  # inside .git, for instance
            raise GitError(f"{start} is not inside the working tree of a git repository") from exc
        self.root = Path(top)
        self._cat: _CatFile | None = None
        self._blobs: LRUCache[str, bytes] = LRUCache(maxsize=_BLOB_CACHE_BYTES, getsizeof=len)
        self._trees: dict[str, dict[str, TreeEntry]] = {}

    def __enter__(self) -> GitRepository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._cat is not None:
            self._cat.close()
            self._cat = None

    def git(self, *args: str) -> bytes:
        return _git(self.root, *args)

    def resolve(self, rev: str) -> str:
        """The full commit id of `rev`; GitError with a clear message when it names no commit."""
        if rev.startswith("-"):
            raise GitError(f"not a revision: {rev!r}")
        try:
            return (
                self.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
            )
        except GitError as exc:
            raise GitError(f"{rev!r} does not name a commit in {self.root}") from exc

    def tree(self, commit: str) -> dict[str, TreeEntry]:
        """Every file, symlink and submodule of a commit's tree, by path (cached by commit id)."""
        commit = self.resolve(commit)
        listing = self._trees.get(commit)
        if listing is None:
            listing = {}
            raw = self.git("ls-tree", "-r", "-z", "--long", "--full-tree", commit)
            for record in raw.split(b"\0"):
                if not record:
                    continue
                meta, _, name = record.partition(b"\t")
                mode, _kind, oid, size = meta.split()
                path = name.decode("utf-8", "surrogateescape")
                listing[path] = TreeEntry(mode.decode(), oid.decode(), int(size) if size != b"-" else None)
            self._trees[commit] = listing
        return listing

    def read_blobs(self, oids: Iterable[str]) -> dict[str, bytes]:
        """Contents by blob id, through the cache and one pipelined batch for what is not cached."""
        wanted = list(dict.fromkeys(oids))
        missing = [oid for oid in wanted if oid not in self._blobs]
        found = {oid: data for oid in wanted if (data := self._blobs.get(oid)) is not None}
        if missing:
            if self._cat is None:
                self._cat = _CatFile(self.root)
            for oid, data in zip(missing, self._cat.read(missing), strict=True):
                if data is None:
                    raise GitError(f"object {oid} is missing from {self.root}")
                found[oid] = data
                if len(data) <= _BLOB_CACHE_BYTES // 8:  # a huge blob would evict everything else
                    self._blobs[oid] = data
        return found

    def snapshot(self, rev: str, label: str | None = None) -> CommitSnapshot:
        return CommitSnapshot(self, self.resolve(rev), label or rev)

    def worktree(self) -> WorktreeSnapshot:
        return WorktreeSnapshot(self.root)

    def change(self, base: str, head: str | None = None, label: str | None = None) -> Change:
        """The change from commit `base` to commit `head` (the working tree when None), with its base snapshot."""
        base_snapshot = self.snapshot(base, label)
        return Change(base_snapshot, self.changes(base_snapshot.commit, head))

    def changes(self, base: str, head: str | None = None) -> tuple[FileChange, ...]:
        """Files that differ from commit `base` to commit `head`, or to the working tree when `head` is None.

        Renames come from git's rename detection. Against the working tree, untracked files (not
        ignored) count as added, since code moved into a new file is part of the change.
        """
        args = ["diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-textconv", base]
        if head is not None:
            args.append(head)
        fields = self.git(*args, "--").split(b"\0")
        changes: list[FileChange] = []
        i = 0
        while i < len(fields) and fields[i]:
            status = fields[i].decode()
            if status[0] in "RC":
                old, new = fields[i + 1], fields[i + 2]
                i += 3
            else:
                old = new = fields[i + 1]
                i += 2
            old_path = old.decode("utf-8", "surrogateescape")
            new_path = new.decode("utf-8", "surrogateescape")
            if status[0] == "A":
                changes.append(FileChange(None, new_path))
            elif status[0] == "D":
                changes.append(FileChange(old_path, None))
            elif status[0] == "C":
                changes.append(FileChange(None, new_path))
            else:
                changes.append(FileChange(old_path, new_path))
        if head is None:
            untracked = self.git("ls-files", "-z", "--others", "--exclude-standard", "--full-name")
            changes.extend(FileChange(None, p.decode("utf-8", "surrogateescape")) for p in untracked.split(b"\0") if p)
        return tuple(changes)


class CommitSnapshot:
    """A commit's tree read from git's objects alone: no checkout, no working tree needed."""

    def __init__(self, repo: GitRepository, commit: str, label: str | None = None) -> None:
        self.repo = repo
        self.commit = commit
        self.label = commit if label is None or label == commit else f"{label} ({commit[:12]})"

    @cached_property
    def _tree(self) -> dict[str, TreeEntry]:
        return self.repo.tree(self.commit)

    @cached_property
    def _symlinks(self) -> set[str]:
        return {p for p, e in self._tree.items() if e.kind is Kind.SYMLINK}

    @cached_property
    def _dirs(self) -> set[str]:
        return {p.rsplit("/", k)[0] for p in self._tree for k in range(1, p.count("/") + 1)}

    def _under_symlink(self, path: str) -> bool:
        if not self._symlinks:
            return False
        parts = path.split("/")
        return any("/".join(parts[:k]) in self._symlinks for k in range(1, len(parts)))

    def entry(self, path: str) -> Entry | None:
        if self._under_symlink(path):
            return Entry(Kind.SYMLINK)
        found = self._tree.get(path)
        if found is not None:
            return Entry(found.kind, found.size)
        return Entry(Kind.DIRECTORY) if path in self._dirs else None

    def read(self, path: str) -> bytes:
        oid = self._tree[path].oid
        return self.repo.read_blobs([oid])[oid]

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read many files in one pipelined batch before the sweep asks for them one by one."""
        oids = [e.oid for p in paths if (e := self._tree.get(p)) is not None and e.kind is Kind.FILE]
        self.repo.read_blobs(oids)

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        prefix = top.rstrip("/") + "/"
        for path, found in self._tree.items():
            if path.startswith(prefix):
                if self._under_symlink(path):
                    continue
                yield path, Entry(found.kind, found.size)


class WorktreeSnapshot:
    """The files on disk, uncommitted changes included, as OpenWiki itself reads them."""

    def __init__(self, root: Path, label: str = "working tree") -> None:
        self.root = root
        self.label = label
        self.commit: str | None = None
        self._dir_is_real: dict[str, bool] = {}

    def _real_dir(self, relative: str) -> bool:
        """Whether a folder on the way to a file is a real folder (not a symlink to one)."""
        known = self._dir_is_real.get(relative)
        if known is None:
            try:
                known = stat.S_ISDIR(os.lstat(self.root / relative).st_mode)
            except OSError:
                known = True  # absent: the lstat of the file itself will say so
            self._dir_is_real[relative] = known
        return known

    def entry(self, path: str) -> Entry | None:
        parts = path.split("/")
        for k in range(1, len(parts)):
            if not self._real_dir("/".join(parts[:k])):
                return Entry(Kind.SYMLINK) if os.path.islink(self.root.joinpath(*parts[:k])) else None
        try:
            info = os.lstat(self.root / path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(info.st_mode):
            return Entry(Kind.SYMLINK)
        if stat.S_ISREG(info.st_mode):
            return Entry(Kind.FILE, info.st_size)
        if stat.S_ISDIR(info.st_mode):
            return Entry(Kind.DIRECTORY)
        return Entry(Kind.OTHER)

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()

    def prefetch(self, paths: Iterable[str]) -> None:
        """Nothing to batch on a local disk."""

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        base = self.root / top
        if not self._real_dir(top) or not base.is_dir():
            return
        for folder, dirs, files in os.walk(base, followlinks=False):
            rel_folder = os.path.relpath(folder, self.root).replace(os.sep, "/")
            for name in sorted(dirs):
                if os.path.islink(os.path.join(folder, name)):
                    yield f"{rel_folder}/{name}", Entry(Kind.SYMLINK)
            dirs[:] = sorted(d for d in dirs if d != ".git" and not os.path.islink(os.path.join(folder, d)))
            for name in sorted(files):
                path = f"{rel_folder}/{name}"
                found = self.entry(path)
                if found is not None:
                    yield path, found


class LocalSource:
    """A local repository as the use cases' `Source`: reading is local and cheap, so a fetch is only a hint
    to read many files in one batch."""

    def __init__(self, repo: GitRepository) -> None:
        self.repo = repo

    async def snapshot(self, rev: str | None = None, label: str | None = None) -> Snapshot:
        return self.repo.snapshot(rev, label) if rev is not None else self.repo.worktree()

    async def change(
        self, base: str, head: Snapshot, *, merge_base: bool = False, label: str | None = None
    ) -> Change | None:
        """The change from `base` to `head` (a commit, or the working tree); `merge_base` starts it where the
        two histories met, as a pull request's change does."""
        start = base
        if merge_base:
            start = self.repo.git("merge-base", "--end-of-options", base, head.commit or "HEAD").decode().strip()
        return self.repo.change(start, head.commit, label or base)

    async def fetch(self, snapshot: Snapshot, paths: Iterable[str]) -> None:
        snapshot.prefetch(paths)

    def files(self, snapshot: Snapshot) -> list[str]:
        if snapshot.commit is not None:
            return list(self.repo.tree(snapshot.commit))
        tracked = self.repo.git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        return [p.decode("utf-8", "surrogateescape") for p in tracked.split(b"\0") if p]

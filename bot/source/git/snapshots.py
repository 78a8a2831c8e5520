"""Snapshots read from git's object store: a commit's tree (`CommitSnapshot`) and git's index (`IndexSnapshot`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Protocol

from ...claims.snapshot import Entry, Kind, commit_label
from .diff import _SYMLINK_MODE, TreeEntry
from .process import _BLOB_CACHE_BYTES, MissingObjectError


class ObjectStore(Protocol):
    """What a snapshot reads through: the repository (`GitRepository`, which builds its snapshots, so they name it
    by what they use of it)."""

    root: Path

    def common_dir(self) -> Path: ...
    def tree(self, commit: str) -> dict[str, TreeEntry]: ...
    def index(self) -> dict[str, TreeEntry]: ...
    def sizes(self, oids: Iterable[str]) -> dict[str, int | None]: ...
    def read_ahead(self, oids: Iterable[str]) -> None: ...
    def read_blobs(self, oids: Iterable[str], *, strict: bool = True) -> dict[str, bytes]: ...


def _lacks(path: str, oid: str) -> str:
    return (
        f"{path}: the object store lacks this file (blob {oid[:12]}; a partial clone whose remote cannot be "
        "reached, or a trimmed mirror?): check again once the remote can be reached (git fetches it then), "
        "or restore the objects with `git fetch --refetch`"
    )


class _StoredSnapshot:
    """Paths listed with their blob ids, the blobs read from git's object store: a commit's tree, or the index."""

    repo: ObjectStore

    def _listing(self) -> dict[str, TreeEntry]:
        raise NotImplementedError

    @cached_property
    def _tree(self) -> dict[str, TreeEntry]:
        return self._listing()

    @cached_property
    def _symlinks(self) -> set[str]:
        return {p for p, e in self._tree.items() if e.mode == _SYMLINK_MODE}

    @cached_property
    def _dirs(self) -> set[str]:
        """Every folder on the way to a path (each path's parents climbed only until one is known)."""
        dirs: set[str] = set()
        for path in self._tree:
            folder = path.rpartition("/")[0]
            while folder and folder not in dirs:
                dirs.add(folder)
                folder = folder.rpartition("/")[0]
        return dirs

    def _under_symlink(self, path: str) -> bool:
        if not self._symlinks:
            return False
        parts = path.split("/")
        return any("/".join(parts[:k]) in self._symlinks for k in range(1, len(parts)))

    def entry(self, path: str) -> Entry | None:
        """What stands at `path`; a file's size is learnt from git here, when the sweep is about to read it."""
        if self._under_symlink(path):
            return Entry(Kind.SYMLINK)
        found = self._tree.get(path)
        if found is not None:
            size = self.repo.sizes([found.oid])[found.oid] if found.kind is Kind.FILE else None
            return Entry(found.kind, size)
        return Entry(Kind.DIRECTORY) if path in self._dirs else None

    def read(self, path: str) -> bytes:
        oid = self._tree[path].oid
        try:
            return self.repo.read_blobs([oid])[oid]
        except MissingObjectError:
            raise MissingObjectError(_lacks(path, oid)) from None

    def prefetch(self, paths: Iterable[str]) -> None:
        """Learn the sizes of many files in one pipelined batch, then ask git for those small enough to keep, in
        this order, before the sweep reads them one by one (a blob the store lacks is left for `read` to report)."""
        oids = [e.oid for p in paths if (e := self._tree.get(p)) is not None and e.kind is Kind.FILE]
        sizes = self.repo.sizes(oids)
        self.repo.read_ahead(oid for oid in oids if (size := sizes[oid]) is not None and size <= _BLOB_CACHE_BYTES // 8)

    def blob_id(self, path: str) -> str | None:
        found = self._tree.get(path)
        return found.oid if found is not None and found.kind is Kind.FILE and not self._under_symlink(path) else None

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        """Every path under `top` (but under a symlink), listed once per snapshot: a check walks the wiki folder
        three or four times (its sidecars' blob ids, what to read, the pages), and a listing never changes."""
        walked = self._walked.get(top)
        if walked is None:
            prefix = top.rstrip("/") + "/"
            walked = self._walked[top] = [
                (path, Entry(found.kind))  # no size: listing a folder reads no blob
                for path, found in self._tree.items()
                if path.startswith(prefix) and not self._under_symlink(path)
            ]
        return iter(walked)

    @cached_property
    def _walked(self) -> dict[str, list[tuple[str, Entry]]]:
        return {}


class CommitSnapshot(_StoredSnapshot):
    """A commit's tree read from git's objects alone: no checkout, no working tree needed."""

    def __init__(self, repo: ObjectStore, commit: str, label: str | None = None) -> None:
        self.repo = repo
        self.commit = commit
        self.label = commit_label(label, commit)

    def _listing(self) -> dict[str, TreeEntry]:
        return self.repo.tree(self.commit)


class IndexSnapshot(_StoredSnapshot):
    """git's index, read once (its listing) and from git's objects (its blobs, written by `git add`): what the next
    commit will hold. An unstaged edit or an untracked file is not in it; a file staged, then deleted from disk, is.
    """

    def __init__(self, repo: ObjectStore) -> None:
        self.repo = repo
        self.label = "index"
        self.commit: str | None = None  # not a commit: no other snapshot's change ends here

    def _listing(self) -> dict[str, TreeEntry]:
        return self.repo.index()

    def paths(self) -> list[str]:
        return list(self._tree)

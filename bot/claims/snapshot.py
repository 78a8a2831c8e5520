"""What the sweep needs from a source of files: the interface adapters implement, an in-memory one, and the
change between two snapshots.

The core never touches a disk, a process or a socket: the local git adapter (`bot/source/git/`) and the
GitHub adapter provide snapshots, and tests or the App can hand over files already fetched.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple, Protocol


class Kind(StrEnum):
    FILE = "file"
    SYMLINK = "symlink"  # the path itself, or a folder on the way to it, is a symbolic link
    DIRECTORY = "directory"
    OTHER = "other"  # submodule, fifo, device: never evidence


class Entry(NamedTuple):
    kind: Kind
    size: int | None = None


def git_blob_id(data: bytes) -> str:
    """git's object id of a blob: names a file's exact bytes, whatever its path or commit."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def commit_label(name: str | None, commit: str) -> str:
    """How a report names a commit asked for by `name`: the name and the commit's first 12 digits (`main
    (1a2b3c4d5e6f)`), or the name alone when it shows the commit already: the commit id itself or an abbreviation
    of it (`1a2b3c4`), or a label that ends in those 12 digits (`#7 (1a2b3c4d5e6f)`, as the GitHub Action names a
    pull request's head). Never the same digits twice."""
    short = commit[:12]
    if not name or name == commit:
        return commit
    if name.endswith(f"({short})") or (len(name) >= 7 and commit.startswith(name.lower())):
        return name
    return f"{name} ({short})"


class Snapshot(Protocol):
    """The files of a repository at one point: a commit, or a working tree."""

    @property
    def label(self) -> str:
        """How reports name it: `main (1a2b3c4d5e6f)`, `working tree`."""
        ...

    @property
    def commit(self) -> str | None:
        """The commit id; None for a working tree, or files held in memory."""
        ...

    def entry(self, path: str) -> Entry | None:
        """What stands at `path` without following symlinks (a symlinked parent gives SYMLINK); None if nothing."""
        ...

    def read(self, path: str) -> bytes:
        """The bytes of the regular file at `path`."""
        ...

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        """Every entry below folder `top`, recursively, without descending into symlinks."""
        ...

    def prefetch(self, paths: Iterable[str]) -> None:
        """A hint that these files will be read soon, so an adapter can fetch them in a few batches."""
        ...

    def blob_id(self, path: str) -> str | None:
        """The git blob id of the regular file at `path` when the snapshot knows it without reading the file (a
        tree listing, git's index for a file the working tree left unmodified); None otherwise. What the
        sweep's caches are keyed by: the same id is the same bytes."""
        ...


class MemorySnapshot:
    """A snapshot held in memory: files by path, plus symlinks (path → target) and other special entries."""

    def __init__(
        self,
        files: Mapping[str, bytes],
        symlinks: Mapping[str, str] | None = None,
        label: str = "memory",
    ) -> None:
        self.files = dict(files)
        self.symlinks = dict(symlinks or {})
        self.label = label
        self.commit: str | None = None
        self._dirs = {p.rsplit("/", k)[0] for p in [*self.files, *self.symlinks] for k in range(1, p.count("/") + 1)}
        self._blob_ids: dict[str, str] = {}

    def entry(self, path: str) -> Entry | None:
        if self.symlinks:
            parts = path.split("/")
            for k in range(1, len(parts) + 1):
                if "/".join(parts[:k]) in self.symlinks:
                    return Entry(Kind.SYMLINK)
        if path in self.files:
            return Entry(Kind.FILE, len(self.files[path]))
        if path in self._dirs:
            return Entry(Kind.DIRECTORY)
        return None

    def read(self, path: str) -> bytes:
        return self.files[path]

    def prefetch(self, paths: Iterable[str]) -> None:
        """Everything is in memory already."""

    def blob_id(self, path: str) -> str | None:
        known = self._blob_ids.get(path)
        if known is None:
            entry = self.entry(path)
            if entry is None or entry.kind is not Kind.FILE:
                return None
            known = self._blob_ids[path] = git_blob_id(self.files[path])
        return known

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        prefix = top.rstrip("/") + "/"
        for path, content in self.files.items():
            if path.startswith(prefix) and not (
                self.symlinks
                and any("/".join(path.split("/")[:k]) in self.symlinks for k in range(1, path.count("/") + 1))
            ):
                yield path, Entry(Kind.FILE, len(content))
        for path in sorted(self.symlinks):
            if path.startswith(prefix):
                yield path, Entry(Kind.SYMLINK)


class FileChange(NamedTuple):
    """One file of a change: added (no old path), deleted (no new path), modified or renamed."""

    old_path: str | None
    new_path: str | None


@dataclass(frozen=True)
class Change:
    """The base snapshot and the files that differ between it and the head (renames detected)."""

    base: Snapshot
    files: tuple[FileChange, ...]

    @property
    def paths(self) -> set[str]:
        return {p for f in self.files for p in (f.old_path, f.new_path) if p}

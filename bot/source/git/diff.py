"""What git's listings and diffs say: a tree's entries, a diffed file, exact renames, a base's listing undone."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ...claims.snapshot import Kind

_SYMLINK_MODE = "120000"


class TreeEntry(NamedTuple):
    """A path of a tree or of the index (a tuple: a listing holds one per file of the repository)."""

    mode: str
    oid: str

    @property
    def kind(self) -> Kind:
        if self.mode == _SYMLINK_MODE:
            return Kind.SYMLINK
        if self.mode in ("100644", "100755"):
            return Kind.FILE
        return Kind.OTHER  # 160000: a submodule


class DiffedFile(NamedTuple):
    """A file of `git diff --raw`: its status letter (A, C, D, M, R, T), its paths (the same but for a rename or
    copy) and its entry at the base (None when it did not exist there, or is a copy's new file)."""

    status: str
    old_path: str
    new_path: str
    old: TreeEntry | None


def _kind_of(mode: str) -> str | None:
    return "file" if mode in ("100644", "100755") else "symlink" if mode == _SYMLINK_MODE else None


def _exact_renames(listed: list[tuple[DiffedFile, TreeEntry | None]]) -> tuple[DiffedFile, ...]:
    """A diff listed without renames, with git's exact renames found in it: a deleted file and an added one of the
    same blob (and kind) are a rename; of several deleted candidates, the one of the same file name, else the
    first. No blob is read."""
    sources: dict[tuple[str, str | None], list[DiffedFile]] = {}
    for file, _ in listed:
        if file.status == "D" and file.old is not None and _kind_of(file.old.mode) is not None:
            sources.setdefault((file.old.oid, _kind_of(file.old.mode)), []).append(file)
    taken: set[str] = set()
    renamed: dict[str, DiffedFile] = {}  # the added path → its rename
    for file, new in listed:
        if file.status != "A" or new is None or _kind_of(new.mode) is None or not new.oid.strip("0"):
            continue
        candidates = [s for s in sources.get((new.oid, _kind_of(new.mode)), ()) if s.old_path not in taken]
        if candidates:
            name = file.new_path.rpartition("/")[2]
            source = next((s for s in candidates if s.old_path.rpartition("/")[2] == name), candidates[0])
            taken.add(source.old_path)
            renamed[file.new_path] = DiffedFile("R", source.old_path, file.new_path, source.old)
    return tuple(
        renamed.get(file.new_path, file) if file.status == "A" else file
        for file, _ in listed
        if not (file.status == "D" and file.old_path in taken)
    )


def base_listing(head: dict[str, TreeEntry], diffed: Iterable[DiffedFile]) -> dict[str, TreeEntry] | None:
    """The base's listing: the head's with the diff undone (in git's order, by path bytes); None for a status
    this does not know to undo."""
    listing = dict(head)
    inserted = False
    for file in diffed:
        if file.status not in "ACDMRT" or (file.old is None) != (file.status in "AC"):
            return None
        if file.status in "ACR" and listing.pop(file.new_path, None) is None:
            return None  # not the head this diff ends at
        if file.old is not None:
            inserted = inserted or file.old_path not in listing
            listing[file.old_path] = file.old
    if inserted:
        listing = dict(sorted(listing.items(), key=lambda item: item[0].encode("utf-8", "surrogateescape")))
    return listing

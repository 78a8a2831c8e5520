"""Tree comparisons the way GitHub reports them: per-file status, rename detection and unified-diff patches.

Renames follow git's defaults: an added and a removed file of the same kind pair up when their contents are
identical, or (below git's rename limit) when their line similarity is at least 50%. Patches are difflib
unified diffs without the `---`/`+++` header, with git's "\\ No newline at end of file" markers; binary files
(a NUL byte in the first 8000 bytes, git's test) get no patch.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from .gitobjects import MODE_GITLINK, MODE_SYMLINK, Flat

RENAME_SCORE = 0.5
RENAME_LIMIT = 1000  # git's diff.renameLimit: inexact detection only when sources x targets <= limit²


@dataclass(frozen=True, slots=True)
class FileChange:
    filename: str
    status: str  # added, removed, modified, renamed, changed
    sha: str
    previous_filename: str | None
    additions: int
    deletions: int
    patch: str | None
    mode: str


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:8000]


def _lines(data: bytes) -> list[str]:
    text = data.decode("utf-8", "replace")
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def unified_patch(old: bytes, new: bytes) -> tuple[str, int, int]:
    """(patch, additions, deletions) as GitHub shows them: hunks only, three lines of context."""
    out: list[str] = []
    additions = deletions = 0
    diff = difflib.unified_diff(_lines(old), _lines(new), n=3, lineterm="")
    for index, line in enumerate(diff):
        if index < 2:  # the ---/+++ header
            continue
        if line.startswith("@@"):
            out.append(line + "\n")
            continue
        if line.startswith("+"):
            additions += 1
        elif line.startswith("-"):
            deletions += 1
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out).removesuffix("\n"), additions, deletions


def similarity(old: bytes, new: bytes) -> float:
    """How alike two files are, 0..1 (difflib's ratio over lines)."""
    if old == new:
        return 1.0
    if not old or not new:
        return 0.0
    small, large = sorted((len(old), len(new)))
    if small < large * RENAME_SCORE:  # git's size shortcut: cannot reach the score
        return 0.0
    matcher = difflib.SequenceMatcher(None, _lines(old), _lines(new), autojunk=False)
    if matcher.real_quick_ratio() < RENAME_SCORE or matcher.quick_ratio() < RENAME_SCORE:
        return 0.0
    return matcher.ratio()


def _kind(mode: str) -> str:
    if mode == MODE_SYMLINK:
        return "symlink"
    if mode == MODE_GITLINK:
        return "gitlink"
    return "file"


def diff_flat(old: Flat, new: Flat, read: Callable[[str, str], bytes], renames: bool = True) -> list[FileChange]:
    """The changed files between two flattened trees, sorted by path as git lists them.

    `read(mode, sha)` returns an entry's content (a gitlink reads as `Subproject commit <sha>\\n`).
    """

    def content(mode: str, sha: str) -> bytes:
        return f"Subproject commit {sha}\n".encode() if mode == MODE_GITLINK else read(mode, sha)

    removed = sorted(p for p in old if p not in new)
    added = sorted(p for p in new if p not in old)
    pairs: dict[str, str] = {}  # new path -> old path
    if renames and removed and added:
        by_sha: dict[str, list[str]] = {}
        for path in removed:
            if _kind(old[path][0]) != "gitlink":
                by_sha.setdefault(old[path][1], []).append(path)
        taken: set[str] = set()
        for path in added:
            mode, sha = new[path]
            candidates = [c for c in by_sha.get(sha, []) if c not in taken and _kind(old[c][0]) == _kind(mode)]
            if candidates:
                base = path.rsplit("/", 1)[-1]
                same_name = [c for c in candidates if c.rsplit("/", 1)[-1] == base]
                source = (same_name or candidates)[0]
                taken.add(source)
                pairs[path] = source
        sources = [p for p in removed if p not in taken and _kind(old[p][0]) != "gitlink"]
        targets = [p for p in added if p not in pairs and _kind(new[p][0]) != "gitlink"]
        if sources and targets and len(sources) * len(targets) <= RENAME_LIMIT * RENAME_LIMIT:
            scored = []
            for target in targets:
                new_data = content(*new[target])
                for source in sources:
                    if _kind(old[source][0]) != _kind(new[target][0]):
                        continue
                    score = similarity(content(*old[source]), new_data)
                    if score >= RENAME_SCORE:
                        scored.append((-score, source, target))
            scored.sort()
            for _, source, target in scored:
                if source not in taken and target not in pairs:
                    taken.add(source)
                    pairs[target] = source
    renamed_from = set(pairs.values())

    changes = []
    for path in sorted(set(old) | set(new)):
        if path in old and path in new:
            (old_mode, old_sha), (new_mode, new_sha) = old[path], new[path]
            if (old_mode, old_sha) == (new_mode, new_sha):
                continue
            status = "modified" if old_sha != new_sha else "changed"
            changes.append(_change(path, status, None, old[path], new[path], content))
        elif path in new:
            if path in pairs:
                changes.append(_change(path, "renamed", pairs[path], old[pairs[path]], new[path], content))
            else:
                changes.append(_change(path, "added", None, None, new[path], content))
        elif path not in renamed_from:
            changes.append(_change(path, "removed", None, old[path], None, content))
    return changes


def _change(
    path: str,
    status: str,
    previous: str | None,
    before: tuple[str, str] | None,
    after: tuple[str, str] | None,
    content: Callable[[str, str], bytes],
) -> FileChange:
    old_data = content(*before) if before else b""
    new_data = content(*after) if after else b""
    mode, sha = after or before  # type: ignore[misc]
    if old_data == new_data:
        return FileChange(path, status, sha, previous, 0, 0, None, mode)
    if is_binary(old_data) or is_binary(new_data):
        return FileChange(path, status, sha, previous, 0, 0, None, mode)
    patch, additions, deletions = unified_patch(old_data, new_data)
    return FileChange(path, status, sha, previous, additions, deletions, patch, mode)

"""Wikiwarden's evidence tracking: carry a span through the real diff, fall back to OpenWiki's search.

When the file as it was at the base commit still matches the stored version, the span's fate is read
off the line diff from base to head, which is exact: untouched lines are fresh or moved, lines that
differ only in line endings or trailing whitespace are cosmetic, anything else is stale, and a span the
change deleted is looked for among the lines the change added (in this file and in the other files it
touched) before it is called unresolved. Otherwise the reference algorithm decides (`locate.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cached_property
from itertools import accumulate
from typing import NamedTuple

from .linediff import LineDiff
from .locate import locate_lines, locate_unchanged
from .resources import EvidenceResource
from .text import FileText, normalized, sha_hex
from .verdicts import OpenWikiVerdict, Verdict
from .versions import file_version, lines_version, parse_file_version, parse_lines_version


class Tracked(NamedTuple):
    """Where one evidence record stands after a change, and what to store for it."""

    verdict: Verdict
    span: tuple[int, int] | None = None  # 1-based inclusive lines in the file as it is now
    resource: str | None = None  # where the evidence stands now (canonical); None when unresolved
    version: str | None = None  # the version to store now (kept when moved; new when cosmetic or stale)
    old_text: str | None = None  # for stale evidence: the text that was recorded ...
    new_text: str | None = None  # ... and the text that now stands in its place
    error: str | None = None
    diff_aware: bool = False  # decided through the diff (the stored version matched the base content)
    anchor: tuple[str, int] | None = None  # unresolved: (path, line) where the text stood, if the file remains


class ChangedFile:
    """One file of a change seen from both sides: `old` at the base, `new` at `path` in the head."""

    def __init__(self, path: str | None, old: FileText | None, new: FileText | None) -> None:
        self.path = path
        self.old = old
        self.new = new

    @cached_property
    def diff(self) -> LineDiff:
        assert self.old is not None and self.new is not None
        return LineDiff([normalized(x) for x in self.old.lines], [normalized(x) for x in self.new.lines])

    @cached_property
    def _added_prefix(self) -> list[int]:
        """Running count of added lines, so "does [t, t+n) contain an added line" costs two lookups."""
        assert self.new is not None
        added = self.diff.new_added if self.old is not None else bytes([1]) * len(self.new.lines)
        return [0, *accumulate(added)]

    @cached_property
    def _raw_index(self) -> dict[bytes, list[int]]:
        return _index(self.new.lines if self.new else [])

    @cached_property
    def _normalized_lines(self) -> list[bytes]:
        return [normalized(x) for x in self.new.lines] if self.new else []

    @cached_property
    def _normalized_index(self) -> dict[bytes, list[int]]:
        return _index(self._normalized_lines)

    @cached_property
    def _counts(self) -> tuple[Counter[bytes], Counter[bytes]]:
        assert self.old is not None
        return Counter(normalized(x) for x in self.old.lines), Counter(self._normalized_lines)

    def anchors_in_place(self, line: bytes) -> bool:
        """Whether a surviving line proves its span stayed: it occurs exactly once on each side.

        A common line (blank, brace, `# comment`) can be matched to a neighbour of its old place even
        though its block moved away; a line unique on both sides cannot.
        """
        old_counts, new_counts = self._counts
        key = normalized(line)
        return old_counts[key] == 1 and new_counts[key] == 1

    def added_occurrences(self, lines: list[bytes], *, loose: bool) -> list[int]:
        """Starts of every copy of `lines` here that the change added (at least one of its lines is new)."""
        if self.new is None or not lines:
            return []
        if loose:
            target, index, current = [normalized(x) for x in lines], self._normalized_index, self._normalized_lines
        else:
            target, index, current = lines, self._raw_index, self.new.lines
        n, prefix = len(target), self._added_prefix
        return [
            t
            for t in index.get(target[0], ())
            if t + n <= len(current) and prefix[t + n] > prefix[t] and current[t : t + n] == target
        ]


def _index(lines: list[bytes]) -> dict[bytes, list[int]]:
    index: dict[bytes, list[int]] = {}
    for i, line in enumerate(lines):
        index.setdefault(line, []).append(i)
    return index


def track(res: EvidenceResource, stored: str, own: ChangedFile, others: Sequence[ChangedFile] = ()) -> Tracked:
    """Track one evidence record through a change; `own` is its file, `others` the rest of the change."""
    if res.is_whole_file:
        digest = parse_file_version(stored)
        if own.old is not None and digest is not None and sha_hex(own.old.data) == digest:
            return _track_file(res, stored, own, others)
        return reference_verdict(res, stored, own.new, own.path)
    previous = parse_lines_version(stored)
    if own.old is not None and previous is not None:
        start, end = res.start, res.end
        assert start is not None and end is not None  # not whole-file evidence
        hint = (start - 1, end) if end <= len(own.old.lines) else None
        found = locate_unchanged(own.old, previous, hint)
        if found is not None:
            return _track_span(res, stored, own, others, found, found + previous.selected_count)
    return reference_verdict(res, stored, own.new, own.path)


def _track_span(
    res: EvidenceResource, stored: str, own: ChangedFile, others: Sequence[ChangedFile], s: int, e: int
) -> Tracked:
    assert own.old is not None
    old_lines = own.old.lines[s:e]
    n = e - s
    survivors: list[int] = []
    if own.new is not None:
        mapped = own.diff.old_to_new[s:e]
        if mapped[0] >= 0 and mapped[-1] - mapped[0] == n - 1 and all(j >= 0 for j in mapped):
            return _placed(res, stored, own, mapped[0], old_lines)
        # The diff may have slid an identical neighbouring line into the span; try the placements
        # its surviving lines suggest before calling the span changed.
        survivors = [k for k, j in enumerate(mapped) if j >= 0]
        placements = sorted({mapped[k] - k for k in survivors})
        new_lines = own.new.lines
        for t in placements:
            if t >= 0 and t + n <= len(new_lines) and new_lines[t : t + n] == old_lines:
                return _placed(res, stored, own, t, old_lines)
        for t in placements:
            if t >= 0 and t + n <= len(new_lines) and _loose_equal(new_lines[t : t + n], old_lines):
                return _placed(res, stored, own, t, old_lines)
    # The span was deleted here when at most half of its lines survive and none of them is a line
    # unique on both sides: only then can its text have gone elsewhere.
    deleted = 2 * len(survivors) <= n and not any(own.anchors_in_place(old_lines[k]) for k in survivors)
    if deleted:
        moved = _find_moved([own, *others], old_lines)
        if moved is not None:
            target, t = moved
            return _placed(res, stored, target, t, old_lines)
    if own.new is not None:
        lo, hi = own.diff.new_start_of(s), own.diff.new_end_of(e - 1)
        # Something stands in the span's place: changed, unless the span was deleted and all that is
        # left between its neighbours are lines that were there before (no added line).
        if hi > lo and (not deleted or any(own.diff.new_added[lo:hi])):
            return _stale(res, own, lo, hi, own.old.join(s, e))
        if own.path is not None and own.new.line_count:
            anchor = (own.path, min(lo + 1, own.new.line_count))
            return Tracked(Verdict.UNRESOLVED, old_text=own.old.join(s, e).decode(), diff_aware=True, anchor=anchor)
    return Tracked(Verdict.UNRESOLVED, old_text=own.old.join(s, e).decode(), diff_aware=True)


def _find_moved(files: Sequence[ChangedFile], old_lines: list[bytes]) -> tuple[ChangedFile, int] | None:
    """The one added copy of the text in the change (exact first, then cosmetically equal), if unique."""
    for loose in (False, True):
        hits = [(f, t) for f in files for t in f.added_occurrences(old_lines, loose=loose)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None
    return None


def _loose_equal(a: list[bytes], b: list[bytes]) -> bool:
    return len(a) == len(b) and all(normalized(x) == normalized(y) for x, y in zip(a, b, strict=True))


def _placed(res: EvidenceResource, stored: str, where: ChangedFile, t: int, old_lines: list[bytes]) -> Tracked:
    """The recorded text found at lines [t, t+n) of `where`: fresh, moved or cosmetic."""
    assert where.new is not None and where.path is not None
    n = len(old_lines)
    now = res.moved_to(where.path, t + 1, t + n)
    if where.new.lines[t : t + n] != old_lines:
        version = lines_version(where.new, t, t + n)
        return Tracked(Verdict.COSMETIC, (t + 1, t + n), now.canonical, version, diff_aware=True)
    verdict = Verdict.FRESH if now == res else Verdict.MOVED
    return Tracked(verdict, (t + 1, t + n), now.canonical, stored, diff_aware=True)


def _stale(res: EvidenceResource, where: ChangedFile, lo: int, hi: int, old: bytes | None) -> Tracked:
    assert where.new is not None and where.path is not None
    return Tracked(
        Verdict.STALE,
        (lo + 1, hi),
        res.moved_to(where.path, lo + 1, hi).canonical,
        lines_version(where.new, lo, hi),
        old_text=old.decode("utf-8") if old is not None else None,
        new_text=where.new.join(lo, hi).decode("utf-8"),
        diff_aware=old is not None,
    )


def _track_file(res: EvidenceResource, stored: str, own: ChangedFile, others: Sequence[ChangedFile]) -> Tracked:
    assert own.old is not None
    candidates = [own] if own.new is not None else [f for f in others if f.new is not None and f.old is None]
    for loose in (False, True):
        hits = [f for f in candidates if f.new is not None and _same_file(f.new, own.old, loose)]
        if len(hits) == 1 and hits[0].path is not None and hits[0].new is not None:
            path, new = hits[0].path, hits[0].new
            now = res.moved_to(path).canonical
            if not loose:
                verdict = Verdict.FRESH if path == res.path else Verdict.MOVED
                return Tracked(verdict, None, now, stored, diff_aware=True)
            return Tracked(Verdict.COSMETIC, None, now, file_version(new), diff_aware=True)
        if hits:
            break
    if own.new is None or own.path is None:
        return Tracked(Verdict.UNRESOLVED, diff_aware=True)
    return Tracked(
        Verdict.STALE,
        None,
        res.moved_to(own.path).canonical,
        file_version(own.new),
        old_text=own.old.text,
        new_text=own.new.text,
        diff_aware=True,
    )


def _same_file(new: FileText, old: FileText, loose: bool) -> bool:
    if not loose:
        return new.data == old.data
    return _loose_equal(new.lines, old.lines)


def reference_verdict(
    res: EvidenceResource, stored: str, new: FileText | None, path: str | None, *, hint_checked: bool = False
) -> Tracked:
    """OpenWiki's algorithm on the current file, reported in Wikiwarden's terms (the fallback)."""
    if new is None or path is None:
        return Tracked(Verdict.UNRESOLVED)
    if res.start is None or res.end is None:
        version = file_version(new)
        whole = res.moved_to(path).canonical
        if version != stored:
            return Tracked(Verdict.STALE, None, whole, version, new_text=new.text)
        return Tracked(Verdict.FRESH if path == res.path else Verdict.MOVED, None, whole, stored)
    located = locate_lines(new, (res.start, res.end), stored, hint_checked=hint_checked)
    if located is None:
        return Tracked(Verdict.UNRESOLVED)
    if located.unchanged and path == res.path and located.start + 1 == res.start and located.end == res.end:
        return Tracked(Verdict.FRESH, (res.start, res.end), res.canonical, stored)
    if not located.unchanged:
        return _stale(res, ChangedFile(path, None, new), located.start, located.end, None)
    now = res.moved_to(path, located.start + 1, located.end)
    verdict = Verdict.FRESH if now == res else Verdict.MOVED
    return Tracked(verdict, (located.start + 1, located.end), now.canonical, stored)


def openwiki_verdict(res: EvidenceResource, stored: str, current: FileText | None) -> OpenWikiVerdict:
    """What OpenWiki's preflight says: the same token is fresh, another token stale, none unresolved."""
    if current is None:
        return OpenWikiVerdict.UNRESOLVED
    if res.start is None or res.end is None:
        version: str | None = file_version(current)
    else:
        located = locate_lines(current, (res.start, res.end), stored)
        version = located.version if located else None
    if version is None:
        return OpenWikiVerdict.UNRESOLVED
    return OpenWikiVerdict.FRESH if version == stored else OpenWikiVerdict.STALE

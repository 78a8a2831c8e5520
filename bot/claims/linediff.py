"""A line diff that says which old lines survive a change and where they now stand.

Patience-style: common prefix and suffix first, then lines unique on both sides as anchors (their
longest increasing run), recursing between anchors; regions with no unique line fall back to the
standard library's longest-common-block matcher, bounded so a pathological file cannot stall a sweep.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Sequence
from difflib import SequenceMatcher
from typing import NamedTuple

# Regions larger than this (old lines x new lines) with no unique anchor are treated as replaced.
FALLBACK_CELLS = 1_000_000


class Hunk(NamedTuple):
    """Old lines [old_start, old_end) were replaced by new lines [new_start, new_end)."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


class LineDiff:
    """The matching between two line sequences, with each old line's fate and each new line's origin."""

    __slots__ = ("hunks", "new_added", "old_hunk", "old_to_new")

    def __init__(self, old: Sequence[Hashable], new: Sequence[Hashable]) -> None:
        ids: dict[Hashable, int] = {}
        a = [ids.setdefault(line, len(ids)) for line in old]
        b = [ids.setdefault(line, len(ids)) for line in new]
        self.old_to_new = [-1] * len(a)
        self.new_added = bytearray(b"\x01") * len(b)
        for i, j in _match(a, b):
            self.old_to_new[i] = j
        _slide_down(a, b, self.old_to_new)
        for j in self.old_to_new:
            if j >= 0:
                self.new_added[j] = 0
        self.hunks: list[Hunk] = []
        self.old_hunk = [-1] * len(a)  # index into hunks for every old line that did not survive
        i = j = 0
        matched = [(i, j) for i, j in enumerate(self.old_to_new) if j >= 0] + [(len(a), len(b))]
        for mi, mj in matched:
            if mi > i or mj > j:
                for k in range(i, mi):
                    self.old_hunk[k] = len(self.hunks)
                self.hunks.append(Hunk(i, mi, j, mj))
            i, j = mi + 1, mj + 1

    def new_start_of(self, old_line: int) -> int:
        """Where old line `old_line` now begins: its own place, or the start of what replaced it."""
        j = self.old_to_new[old_line]
        return j if j >= 0 else self.hunks[self.old_hunk[old_line]].new_start

    def new_end_of(self, old_line: int) -> int:
        """Where old line `old_line` now ends (exclusive): after itself, or after what replaced it."""
        j = self.old_to_new[old_line]
        return j + 1 if j >= 0 else self.hunks[self.old_hunk[old_line]].new_end


def _match(a: list[int], b: list[int]) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    regions = [(0, len(a), 0, len(b))]
    while regions:
        a0, a1, b0, b1 = regions.pop()
        while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
            pairs.append((a0, b0))
            a0 += 1
            b0 += 1
        while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:
            a1 -= 1
            b1 -= 1
            pairs.append((a1, b1))
        if a0 == a1 or b0 == b1:
            continue
        anchors = _unique_anchors(a, b, a0, a1, b0, b1)
        if anchors:
            prev_a, prev_b = a0, b0
            for i, j in anchors:
                pairs.append((i, j))
                regions.append((prev_a, i, prev_b, j))
                prev_a, prev_b = i + 1, j + 1
            regions.append((prev_a, a1, prev_b, b1))
        elif (a1 - a0) * (b1 - b0) <= FALLBACK_CELLS:
            matcher = SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
            for block in matcher.get_matching_blocks():
                pairs.extend((a0 + block.a + k, b0 + block.b + k) for k in range(block.size))
    return pairs  # in no particular order: each old line is matched at most once


def _slide_down(a: list[int], b: list[int], old_to_new: list[int]) -> None:
    """Slide each pure insertion and pure deletion as far down as identical lines allow, as git does.

    Where an added or removed block could sit in several places (a blank line among blank lines), this
    puts it where git's diff shows it, so spans land where a reader of `git diff` expects them. (git's indent
    heuristic, on by default, may then shift a block back up to end at a blank line; both places hold the same
    text, so only which copy is called new differs.)
    """
    new_to_old = [-1] * len(b)
    for i, j in enumerate(old_to_new):
        if j >= 0:
            new_to_old[j] = i
    for seq, forward, backward in ((b, new_to_old, old_to_new), (a, old_to_new, new_to_old)):
        k = 0
        while k < len(seq):
            if forward[k] >= 0:
                k += 1
                continue
            start = k
            while k < len(seq) and forward[k] < 0:
                k += 1
            before = forward[start - 1] if start else -1
            # Pure insertion (or deletion): the lines around the run are matched to adjacent lines.
            while k < len(seq) and forward[k] == before + 1 and seq[k] == seq[start]:
                other = forward[k]
                forward[start], forward[k] = other, -1
                backward[other] = start
                before = other
                start += 1
                k += 1


def _unique_anchors(a: list[int], b: list[int], a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """Lines occurring exactly once on each side, reduced to their longest common increasing run."""
    in_a: dict[int, int] = {}
    for i in range(a0, a1):
        line = a[i]
        in_a[line] = -1 if line in in_a else i
    in_b: dict[int, int] = {}
    for j in range(b0, b1):
        line = b[j]
        if line in in_a:
            in_b[line] = -1 if line in in_b else j
    candidates = sorted((i, in_b[line]) for line, i in in_a.items() if i >= 0 and in_b.get(line, -1) >= 0)
    if not candidates:
        return []
    # Longest increasing subsequence of the new positions (patience sorting with back-pointers).
    tails: list[int] = []
    tail_index: list[int] = []
    back: list[int] = [-1] * len(candidates)
    for n, (_, j) in enumerate(candidates):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_index.append(n)
        else:
            tails[k] = j
            tail_index[k] = n
        back[n] = tail_index[k - 1] if k else -1
    run = []
    n = tail_index[-1]
    while n >= 0:
        run.append(candidates[n])
        n = back[n]
    run.reverse()
    return run

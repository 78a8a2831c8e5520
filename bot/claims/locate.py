"""OpenWiki's reference locating algorithm (format §2.5), reproduced exactly: the "OpenWiki verdict".

Given the current text, the resource's line hint and the stored version, find where the evidence stands.
Unchanged text found anywhere keeps the stored token (fresh); text found only between its old anchors
gets a new token (stale); anything else is None (unresolved).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

from .text import FileText
from .versions import LinesVersion, canonical_selected_count, lines_version, parse_lines_version


class Located(NamedTuple):
    """Where a line range stands: lines [start, end) and the version for them."""

    start: int
    end: int
    version: str
    unchanged: bool  # the stored version was found verbatim (OpenWiki: fresh)


def locate_lines(
    text: FileText, hint: tuple[int, int], previous_version: str | None, *, hint_checked: bool = False
) -> Located | None:
    """Resolve a line-range resource (hint is 1-based inclusive) against `text`, as OpenWiki does.

    `hint_checked`: the caller already found that `unchanged_at_hint` is false, so skip that check.
    """
    start, end = hint[0] - 1, hint[1]
    has_hint = end <= text.line_count
    if (
        has_hint
        and previous_version is not None
        and not hint_checked
        and unchanged_at_hint(text, start, end, previous_version)
    ):
        return Located(start, end, previous_version, unchanged=True)
    previous = parse_lines_version(previous_version)
    if previous is None:
        if not has_hint:
            return None
        return Located(start, end, lines_version(text, start, end), unchanged=False)
    found = locate_unchanged(text, previous, (start, end) if has_hint else None, start)
    if found is not None:
        return Located(found, found + previous.selected_count, previous.token, unchanged=True)
    return _locate_changed(text, previous)


def unchanged_at_hint(text: FileText, start: int, end: int, token: str) -> bool:
    """Step 2a for the common case: a canonical token whose text stands exactly at lines [start, end)."""
    return (
        end <= text.line_count
        and token[21:85] == text.span_hash(start, end)  # a real digest: also proves the part is valid hex
        and canonical_selected_count(token) == end - start
    )


def locate_unchanged(
    text: FileText, previous: LinesVersion, hint: tuple[int, int] | None, near_start: int = 0
) -> int | None:
    """`locateUnchangedLineRange`: the start of the stored text, or None when absent or ambiguous (looked for
    from the hint first, else from `near_start`: where it was, when that is past the end of the file now)."""
    count = previous.selected_count
    if hint is not None and hint[1] - hint[0] == count and text.span_hash(*hint) == previous.content_hash:
        return hint[0]
    near = hint[0] if hint is not None else near_start
    matches = text.spans_matching(previous.first_hash, previous.last_hash, count, previous.content_hash, near)
    if len(matches) == 1:
        return matches[0]
    survivors = [i for i in matches if _contexts_match(text, previous, i, i + count)]
    return survivors[0] if len(survivors) == 1 else None


def _contexts_match(text: FileText, previous: LinesVersion, start: int, end: int) -> bool:
    pc, fc = previous.preceding_count, previous.following_count
    if pc == 0:
        if start != 0:
            return False
    elif start < pc or text.span_hash(start - pc, start) != previous.preceding_hash:
        return False
    if fc == 0:
        return end == len(text.lines)
    return end + fc <= len(text.lines) and text.span_hash(end, end + fc) == previous.following_hash


def _locate_changed(text: FileText, previous: LinesVersion) -> Located | None:
    """`locateChangedLineRange`: the one span between the old anchors, or None when zero or several."""
    total = len(text.lines)
    pc, fc = previous.preceding_count, previous.following_count
    starts = [0] if pc == 0 else [i + pc for i in text.window_starts(pc, previous.preceding_hash)]
    ends = [total] if fc == 0 else text.window_starts(fc, previous.following_hash)
    found: tuple[int, int] | None = None
    for start in starts:
        later = len(ends) - bisect_right(ends, start)
        if later == 0:
            continue
        if found is not None or later > 1:
            return None
        found = (start, ends[-1])
    if found is None:
        return None
    return Located(found[0], found[1], lines_version(text, *found), unchanged=False)

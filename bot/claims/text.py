"""File contents as OpenWiki sees them: lossy UTF-8 text, split on LF only, hashed as UTF-8 bytes.

OpenWiki reads evidence with a WHATWG UTF-8 decode (bad bytes become U+FFFD, a BOM is kept) and hashes
the UTF-8 encoding of that string. Re-encoding once here lets every later step work on bytes, which is
both exact and fast: UTF-8 is self-synchronising, so splitting the bytes on b"\\n" splits the text on "\\n".
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from hashlib import sha256
from itertools import accumulate, count
from operator import add

_WS = b" \t\r\n\x0b\x0c"


def sha_hex(data: bytes) -> str:
    """Lower-case hex SHA-256, the digest format of every OpenWiki token."""
    return sha256(data).hexdigest()


def split_lines(data: bytes) -> list[bytes]:
    """Split on LF only, keeping each terminator; a final unterminated line counts, b"" has no lines."""
    if not data:
        return []
    if b"\r" not in data:  # bytes.splitlines ends lines at LF and CR only: here, at LF only (one copy a line)
        return data.splitlines(keepends=True)
    parts = data.split(b"\n")
    last = parts.pop()
    lines = [part + b"\n" for part in parts]
    if last:
        lines.append(last)
    return lines


def normalized(line: bytes) -> bytes:
    """A line without its ending and trailing whitespace: what a cosmetic change leaves alone."""
    return line.rstrip(_WS)


class FileText:
    """One file's content with lazily built lines and hash indexes, shared by every claim citing it."""

    __slots__ = (
        "_line_hash_list",
        "_line_hashes",
        "_lines",
        "_offsets",
        "_shift",
        "_some_line_hashes",
        "_window_index",
        "data",
        "is_binary",
    )

    def __init__(self, raw: bytes) -> None:
        try:
            raw.decode("utf-8")
            self.data = raw
        except UnicodeDecodeError:
            self.data = raw.decode("utf-8", "replace").encode("utf-8")
        # git's heuristic: a NUL byte in the first 8000 bytes means binary.
        self.is_binary = b"\x00" in raw[:8000]
        self._lines: list[bytes] | None = None
        self._offsets: array[int] | None = None
        self._line_hashes: dict[str, list[int]] | None = None
        self._line_hash_list: list[str] = []
        self._window_index: dict[int, dict[str, list[int]]] = {}
        self._some_line_hashes: dict[int, str] = {}  # hashed one by one, by `spans_matching`
        self._shift = 0  # how far the last span `spans_matching` found stood from where it was looked for

    @property
    def lines(self) -> list[bytes]:
        if self._lines is None:
            self._lines = split_lines(self.data)
        return self._lines

    @property
    def offsets(self) -> array[int]:
        """Where each line starts, then where the last one ends: spans are one slice, not a join."""
        if self._offsets is None:
            data = self.data
            if b"\r" not in data:  # bytes.splitlines ends lines at LF and CR only: here, at LF only
                # 8 bytes an offset, where a list holds a 36-byte object each; 40% faster than split(b"\n")
                # (no length plus one to add for each line)
                self._offsets = array("q", accumulate(map(len, data.splitlines(keepends=True)), initial=0))
                return self._offsets
            parts = data.split(b"\n")
            last = parts.pop()
            offsets = array("q", (0,))
            offsets.extend(map(add, accumulate(map(len, parts)), count(1)))
            if last:
                offsets.append(len(data))
            self._offsets = offsets
        return self._offsets

    @property
    def line_count(self) -> int:
        return len(self.offsets) - 1

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    def join(self, start: int, end: int) -> bytes:
        """The bytes of lines [start, end)."""
        offsets = self.offsets
        return self.data[offsets[start] : offsets[end]] if start < end else b""

    def span_hash(self, start: int, end: int) -> str:
        offsets = self.offsets
        return sha256(self.data[offsets[start] : offsets[end]] if start < end else b"").hexdigest()

    def positions_of_line_hash(self, digest: str) -> list[int]:
        """Indexes of the lines whose own hash is `digest` (built once, on first use)."""
        if self._line_hashes is None:
            seen: dict[bytes, str] = {}
            hashes = self._line_hash_list = [
                seen[line] if line in seen else seen.setdefault(line, sha256(line).hexdigest()) for line in self.lines
            ]
            index: dict[str, list[int]] = {}
            for i, h in enumerate(hashes):
                index.setdefault(h, []).append(i)
            self._line_hashes = index
        return self._line_hashes.get(digest, [])

    def line_hash(self, index: int) -> str:
        """The hash of one line (from the index when it is built)."""
        if self._line_hash_list:
            return self._line_hash_list[index]
        return sha_hex(self.lines[index])

    def forget_hashes(self) -> None:
        """Let go of the line hashes kept to find text that moved: they serve the records of one file, evaluated
        together (after every range of a 100k-record wiki moved, a sweep held 40 MB of them to its end)."""
        self._line_hashes = None
        self._line_hash_list = []
        self._window_index = {}
        self._some_line_hashes = {}

    def _line_hash_at(self, index: int) -> str:
        known = self._some_line_hashes.get(index)
        if known is None:
            offsets = self.offsets
            known = self._some_line_hashes[index] = sha256(self.data[offsets[index] : offsets[index + 1]]).hexdigest()
        return known

    def spans_matching(self, first_hash: str, last_hash: str, count: int, content_hash: str, near: int) -> list[int]:
        """Every start of `count` lines whose first line, last line and whole text hash to these digests, in order.

        The same list as scanning every line for `first_hash` (OpenWiki's `locateUnchangedLineRange`), found without
        hashing every line: lines are tried outward from `near` (moved by the last find's shift first, as text
        moves in blocks), hashed one at a time; the first span found gives the exact bytes, and every other
        occurrence of them at a line start is found by a byte search (equal bytes, equal digests). Only a span that
        is nowhere costs a hash of every line.
        """
        total = len(self.offsets) - 1
        if count < 1 or count > total:
            return []
        last_start = total - count
        near = min(max(near, 0), last_start)
        found = None
        for i in _outward(min(max(near + self._shift, 0), last_start), near, last_start):
            if (
                self._line_hash_at(i) == first_hash
                and (count == 1 or self._line_hash_at(i + count - 1) == last_hash)
                and self.span_hash(i, i + count) == content_hash
            ):
                found = i
                break
        if found is None:
            return []
        self._shift = found - near
        offsets, data = self.offsets, self.data
        text = data[offsets[found] : offsets[found + count]]
        starts = []
        at = data.find(text)
        while at >= 0:
            line = bisect_left(offsets, at)
            if line <= last_start and offsets[line] == at and offsets[line + count] == at + len(text):
                starts.append(line)
            at = data.find(text, at + 1)
        return starts

    def window_starts(self, width: int, digest: str) -> list[int]:
        """Start indexes of every window of `width` lines whose joined text hashes to `digest`."""
        index = self._window_index.get(width)
        if index is None:
            index = {}
            lines = self.lines
            for i in range(len(lines) - width + 1):
                index.setdefault(sha_hex(b"".join(lines[i : i + width])), []).append(i)
            self._window_index[width] = index
        return index.get(digest, [])


def _outward(first: int, near: int, last: int) -> Iterator[int]:
    """`first`, then every index of [0, last] by distance from `near` (after first, each once)."""
    yield first
    for distance in range(max(near, last - near) + 1):
        for i in (near + distance, near - distance) if distance else (near,):
            if 0 <= i <= last and i != first:
                yield i

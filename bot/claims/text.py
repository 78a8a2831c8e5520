"""File contents as OpenWiki sees them: lossy UTF-8 text, split on LF only, hashed as UTF-8 bytes.

OpenWiki reads evidence with a WHATWG UTF-8 decode (bad bytes become U+FFFD, a BOM is kept) and hashes
the UTF-8 encoding of that string. Re-encoding once here lets every later step work on bytes, which is
both exact and fast: UTF-8 is self-synchronising, so splitting the bytes on b"\\n" splits the text on "\\n".
"""

from __future__ import annotations

from hashlib import sha256

_WS = b" \t\r\n\x0b\x0c"


def sha_hex(data: bytes) -> str:
    """Lower-case hex SHA-256, the digest format of every OpenWiki token."""
    return sha256(data).hexdigest()


def split_lines(data: bytes) -> list[bytes]:
    """Split on LF only, keeping each terminator; a final unterminated line counts, b"" has no lines."""
    if not data:
        return []
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

    __slots__ = ("_line_hashes", "_lines", "_window_index", "data", "is_binary")

    def __init__(self, raw: bytes) -> None:
        try:
            raw.decode("utf-8")
            self.data = raw
        except UnicodeDecodeError:
            self.data = raw.decode("utf-8", "replace").encode("utf-8")
        # git's heuristic: a NUL byte in the first 8000 bytes means binary.
        self.is_binary = b"\x00" in raw[:8000]
        self._lines: list[bytes] | None = None
        self._line_hashes: dict[str, list[int]] | None = None
        self._window_index: dict[int, dict[str, list[int]]] = {}

    @property
    def lines(self) -> list[bytes]:
        if self._lines is None:
            self._lines = split_lines(self.data)
        return self._lines

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    def join(self, start: int, end: int) -> bytes:
        """The bytes of lines [start, end)."""
        return b"".join(self.lines[start:end])

    def span_hash(self, start: int, end: int) -> str:
        return sha_hex(b"".join(self.lines[start:end]))

    def positions_of_line_hash(self, digest: str) -> list[int]:
        """Indexes of the lines whose own hash is `digest` (built once, on first use)."""
        if self._line_hashes is None:
            index: dict[str, list[int]] = {}
            seen: dict[bytes, str] = {}
            for i, line in enumerate(self.lines):
                h = seen.get(line)
                if h is None:
                    h = seen[line] = sha_hex(line)
                index.setdefault(h, []).append(i)
            self._line_hashes = index
        return self._line_hashes.get(digest, [])

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

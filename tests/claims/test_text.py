"""FileText: a file's lines as OpenWiki splits them (LF only), found by their offsets."""

from __future__ import annotations

from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from bot.claims.text import FileText, split_lines

# What ends a line elsewhere (CR, CRLF, the other Unicode breaks bytes.splitlines or str.splitlines know) must not here.
_BYTES = st.binary(max_size=60) | st.lists(
    st.sampled_from([b"a", b"\n", b"\r", b"\r\n", b"\x0b", b"\x0c", b"\x1c", b"\x85", b"\xe2\x80\xa8", b" "]),
    max_size=30,
).map(b"".join)


def _lf_lines(data: bytes) -> list[bytes]:
    """The reference: split at LF, each line keeping it, a last line without one kept, no empty last line."""
    parts = [part + b"\n" for part in data.split(b"\n")]
    parts[-1] = parts[-1][:-1]
    return parts if parts[-1] else parts[:-1]


@given(_BYTES)
def test_lines_and_offsets_are_lf_lines(data: bytes) -> None:
    text = FileText(data)
    lines = _lf_lines(text.data)
    assert split_lines(text.data) == lines
    assert text.lines == lines
    assert list(text.offsets) == [0, *accumulate(map(len, lines))]
    assert text.line_count == len(lines)
    assert [text.join(i, i + 1) for i in range(len(lines))] == lines


def test_offsets_of_files_with_and_without_a_carriage_return() -> None:
    assert list(FileText(b"ab\ncd\n").offsets) == [0, 3, 6]
    assert list(FileText(b"ab\ncd").offsets) == [0, 3, 5]
    assert list(FileText(b"a\rb\ncd").offsets) == [0, 4, 6]  # CR is no line ending
    assert list(FileText(b"a\r\nb\r").offsets) == [0, 3, 5]
    assert list(FileText(b"").offsets) == [0]
    assert list(FileText(b"\n\n").offsets) == [0, 1, 2]

"""`FileText.spans_matching` finds a span's text without hashing every line, and must find exactly what OpenWiki's
scan finds: every line whose hash is the first line's, where the last line's and the whole text's match too."""

from __future__ import annotations

import random

import pytest

from bot.claims.text import FileText, sha_hex


def reference(text: FileText, first: str, last: str, count: int, content: str) -> list[int]:
    """`locateUnchangedLineRange`'s scan, written as OpenWiki writes it."""
    lines = text.lines
    found = []
    for i in range(len(lines)):
        if i + count > len(lines):
            break
        if sha_hex(lines[i]) != first or (count > 1 and sha_hex(lines[i + count - 1]) != last):
            continue
        if sha_hex(b"".join(lines[i : i + count])) == content:
            found.append(i)
    return found


def _file(rng: random.Random) -> bytes:
    """Lines drawn from a small vocabulary (repeated blocks, repeated lines), with or without a final newline."""
    vocabulary = [b"a", b"b", b"def f():", b"    return 1", b"", b"  ", b"x = 1", b"\xc3\xa9"]
    lines = [rng.choice(vocabulary) for _ in range(rng.randint(0, 40))]
    if lines and rng.random() < 0.3:
        block = lines[: rng.randint(1, min(5, len(lines)))]
        lines[rng.randrange(len(lines)) :] = block + lines[rng.randrange(len(lines)) :]
    data = b"\n".join(lines)
    return data + b"\n" if rng.random() < 0.7 else data


@pytest.mark.parametrize("seed", range(40))
def test_the_same_starts_as_openwikis_scan_whatever_the_file_and_wherever_it_looks(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(60):
        data = _file(rng)
        text = FileText(data)
        other = FileText(_file(rng))  # spans of another file: usually nowhere in this one
        for source in (text, other, text):
            lines = source.lines
            if not lines:
                continue
            start = rng.randrange(len(lines))
            count = rng.randint(1, len(lines) - start)
            span = lines[start : start + count]
            first, last, content = sha_hex(span[0]), sha_hex(span[-1]), sha_hex(b"".join(span))
            if rng.random() < 0.1:
                first = sha_hex(b"inconsistent")  # a token whose hashes disagree: found nowhere, as by OpenWiki
            near = rng.randint(-3, len(text.lines) + 3)
            expected = reference(text, first, last, count, content)
            assert text.spans_matching(first, last, count, content, near) == expected, (data, start, count, near)


def test_a_shifted_file_is_searched_from_the_last_shift_first() -> None:
    data = b"".join(f"line {n}\n".encode() for n in range(200))
    text = FileText(b"# one\n# two\n# three\n" + data)  # everything moved down by three
    for start in (10, 50, 120):
        span = data.split(b"\n")[start : start + 5]
        first, last = sha_hex(span[0] + b"\n"), sha_hex(span[-1] + b"\n")
        content = sha_hex(b"".join(line + b"\n" for line in span))
        assert text.spans_matching(first, last, 5, content, start) == [start + 3]
    assert len(text._some_line_hashes) < 30  # the shift learnt: not every line hashed

"""What a sweep keeps of the hashes that found moved text (its collector policy: tests/test_collector.py)."""

from __future__ import annotations

from sweeptools import CODE_300 as CODE
from sweeptools import three_hundred_claims as _wiki

from bot.claims.snapshot import MemorySnapshot
from bot.claims.text import FileText


def test_after_every_range_moved_no_file_keeps_the_line_hashes_that_found_its_text() -> None:
    """The hashes that find moved text serve one file's records, evaluated together; kept to the end of a sweep
    they were 40 MB at 100k records."""
    from bot.claims.options import SweepOptions
    from bot.claims.sweep import Sweeper

    wiki = _wiki()
    moved = MemorySnapshot({**wiki.files, "src/f.py": b"# one\n# two\n" + CODE}, label="head")
    sweeper = Sweeper(moved, None, SweepOptions())
    report = sweeper.sweep()
    assert report.summary["moved"] == 300
    text = sweeper.reader.text(moved, "src/f.py")
    assert isinstance(text, FileText)
    assert (text._some_line_hashes, text._line_hashes, text._window_index) == ({}, None, {})


def test_a_file_text_finds_the_same_spans_after_forgetting_its_hashes() -> None:
    text = FileText(b"# one\n# two\n" + CODE)
    span = FileText(CODE)
    version = [(3 * i, 3 * i + 2) for i in range(0, 300, 7)]
    digests = [(span.line_hash(a), span.line_hash(b - 1), b - a, span.span_hash(a, b), a) for a, b in version]
    first = [text.spans_matching(*d) for d in digests]
    positions = text.positions_of_line_hash(digests[0][0])
    text.forget_hashes()
    assert [text.spans_matching(*d) for d in digests] == first == [[a + 2] for a, _ in version]
    assert text.positions_of_line_hash(digests[0][0]) == positions

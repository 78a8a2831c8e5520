"""What a sweep leaves behind for the cyclic garbage collector."""

from __future__ import annotations

import gc

from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.claims.snapshot import MemorySnapshot
from bot.claims.sweep import sweep
from bot.claims.text import FileText
from bot.claims.versions import lines_version

CODE = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(300)).encode()
PAGE = b"---\ntype: Concept\n---\n\n# Page\n\nProse.\n"


def _wiki() -> MemorySnapshot:
    text = FileText(CODE)
    claims = tuple(
        Claim(
            f"c{i}",
            f"f{i} adds {i}",
            (EvidenceRecord(f"repo://src/f.py#L{3 * i + 1}-L{3 * i + 2}", lines_version(text, 3 * i, 3 * i + 2)),),
        )
        for i in range(300)
    )
    sidecar = render_sidecar(Sidecar(page_version(PAGE), claims))
    return MemorySnapshot({"src/f.py": CODE, "openwiki/f.md": PAGE, "openwiki/.claims/f.json": sidecar}, label="head")


def test_the_report_goes_to_the_oldest_generation_untraversed_and_the_collector_runs_again() -> None:
    """A report holds no cycles: a young collection would traverse all of it to find nothing."""
    head = _wiki()
    gc.collect()
    report = sweep(head)
    assert gc.isenabled()
    assert report.summary["fresh"] == 300
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(report.pages[0].claims[0]) in oldest and id(report.pages[0].claims[-1]) in oldest


def test_a_collector_left_disabled_or_objects_frozen_by_the_process_stay_so() -> None:
    head = _wiki()
    gc.disable()
    try:
        sweep(head)
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        sweep(head)
        assert gc.get_freeze_count() == frozen and gc.isenabled()
    finally:
        gc.unfreeze()


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
    text = sweeper.text(moved, "src/f.py")
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

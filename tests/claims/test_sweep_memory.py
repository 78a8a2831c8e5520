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

"""What a sweep leaves behind for the cyclic garbage collector, run under the command line's policy (bot/parallel)."""

from __future__ import annotations

import gc

from sweeptools import three_hundred_claims as _wiki

from bot.claims.options import SweepOptions
from bot.claims.results import SweepReport
from bot.claims.snapshot import MemorySnapshot
from bot.claims.sweep import Sweeper
from bot.parallel import Forking


def sweep(head: MemorySnapshot) -> SweepReport:
    """A sweep in one process with the collector paused, as the check's use case runs it."""
    return Sweeper(head, None, SweepOptions(), parallel=Forking()).sweep()


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

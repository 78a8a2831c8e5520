"""A full sweep shared among forked processes reports exactly what one process does, whatever the verdicts, keeps
the same verdict cache, and loses nothing when a child fails."""

from __future__ import annotations

import os

import orjson
import pytest
from apptools import grounded
from conftest import ReadsSnapshot
from sweeptools import CLAIMS, CODE, every_kind_of_result, sweeper_of

from bot.claims.results import SweepReport
from bot.claims.snapshot import MemorySnapshot
from bot.claims.verdict_cache import VerdictCache
from bot.report.check import report_json_chunks

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")


def _json(report: SweepReport) -> bytes:
    return b"".join(report_json_chunks(report))


def test_a_forked_sweep_reports_what_one_process_does() -> None:
    files = every_kind_of_result()
    alone = sweeper_of(MemorySnapshot(files, label="head"), 1).sweep()
    summary = alone.summary
    assert summary["fresh"] and summary["moved"] and summary["stale"] and summary["error"]
    assert summary["unresolved"]
    for processes in (2, 3, 4):
        shared = sweeper_of(MemorySnapshot(files, label="head"), processes).sweep()
        assert shared == alone
        assert _json(shared) == _json(alone)


def test_children_answer_and_the_parent_reads_only_its_own_share() -> None:
    head = ReadsSnapshot(grounded(CODE, CLAIMS))  # what a child reads, it records in its own copy
    sweeper = sweeper_of(head, 2)
    wiki = sweeper.load()
    head.read_paths.clear()
    report = sweeper.sweep(wiki)
    assert report.summary["fresh"] == report.summary["claims"]
    read = set(head.read_paths)
    assert read and read < set(CODE)  # the rest was read and answered in the child


def test_a_forked_sweep_keeps_the_verdict_cache_one_process_keeps() -> None:
    files = every_kind_of_result()
    kept = []
    for processes in (1, 2):
        sweeper = sweeper_of(MemorySnapshot(files, label="head"), processes)
        sweeper.verdicts = VerdictCache(sweeper.verdict_context)
        sweeper.sweep()
        kept.append(orjson.dumps(sweeper.verdicts.to_json()))
    assert kept[0] == kept[1]


class ChildCannotRead(MemorySnapshot):
    """A snapshot whose reads fail in any process but the one that made it (a child that dies of it)."""

    def __init__(self, files: dict[str, bytes]) -> None:
        super().__init__(files, label="head")
        self.parent = os.getpid()

    def read(self, path: str) -> bytes:
        if os.getpid() != self.parent:
            os._exit(3)
        return super().read(path)


def test_a_child_that_fails_loses_nothing() -> None:
    files = every_kind_of_result()
    alone = sweeper_of(MemorySnapshot(files, label="head"), 1).sweep()
    assert sweeper_of(ChildCannotRead(files), 3).sweep() == alone


def test_a_sweep_the_system_gives_no_process_to_sweeps_alone(monkeypatch) -> None:
    files = every_kind_of_result()
    alone = sweeper_of(MemorySnapshot(files, label="head"), 1).sweep()
    forks = []

    def refused() -> int:
        forks.append(1)
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork's EAGAIN at a process limit

    monkeypatch.setattr(os, "fork", refused)
    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()
    assert sweeper_of(MemorySnapshot(files, label="head"), 3).sweep() == alone
    assert len(forks) == 2  # both children refused, both slices evaluated here
    assert (set(os.listdir("/proc/self/fd")) if before else set()) == before  # no pipe left open

"""A full sweep shared among forked processes reports exactly what one process does, whatever the verdicts, keeps
the same verdict cache, and loses nothing when a child fails."""

from __future__ import annotations

import os
from collections.abc import Callable

import orjson
import pytest
from apptools import grounded
from conftest import ReadsSnapshot
from sweeptools import CLAIMS, CODE, every_kind_of_result, sidecars_read, sweeper_of

from bot.claims import fanout
from bot.claims.errors import UnreadableFileError
from bot.claims.options import SweepOptions
from bot.claims.report import report_json_chunks
from bot.claims.results import SweepReport
from bot.claims.snapshot import Change, FileChange, MemorySnapshot
from bot.claims.sweep import Sweeper
from bot.claims.verdict_cache import VerdictCache

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
    # the first child refused before loading (no more tried then), both again after: both slices evaluated here
    assert len(forks) == 3
    assert (set(os.listdir("/proc/self/fd")) if before else set()) == before  # no pipe left open


class EditedWhileSwept(MemorySnapshot):
    """A working tree whose sidecar is saved again, with other claims, once the sweep has read it: a process that
    read it later would plan other records than the one that read it first."""

    def __init__(self, files: dict[str, bytes], edited: str, again: bytes) -> None:
        super().__init__(files, label="head")
        self.edited, self.again, self.reads = edited, again, 0

    def read(self, path: str) -> bytes:
        if path == self.edited:
            self.reads += 1
            if self.reads > 1:
                return self.again
        return super().read(path)


def test_children_forked_before_loading_parse_the_sidecars_their_parent_read() -> None:
    files = every_kind_of_result()
    sidecar = "openwiki/.claims/page0.json"
    other = grounded(CODE, {"page0.md": [("another claim", ["repo://src/m5.py#L1-L2"])]})[sidecar]
    alone = sweeper_of(MemorySnapshot(files, label="head"), 1).sweep()
    for processes in (2, 3):
        head = EditedWhileSwept(files, sidecar, other)
        assert sweeper_of(head, processes).sweep() == alone
        assert head.reads == 1  # read once, before the children were forked


def _forks_counting_sidecars_parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """For each child forked from now on, how many sidecars this process had parsed when it was forked."""
    forked_while: list[int] = []
    parsed = sidecars_read(monkeypatch)
    real = fanout.Child.__init__

    def spy(child: fanout.Child, work: Callable[[], bytes]) -> None:
        forked_while.append(len(parsed))
        real(child, work)

    monkeypatch.setattr(fanout.Child, "__init__", spy)
    return forked_while


def test_a_large_cold_sweep_forks_its_children_before_parsing_the_wiki(monkeypatch) -> None:
    forked_while = _forks_counting_sidecars_parsed(monkeypatch)
    sweeper_of(MemorySnapshot(every_kind_of_result(), label="head"), 3).sweep()
    assert forked_while == [0, 0]  # both children forked before any sidecar was parsed, none after


def test_a_sweep_whose_verdict_cache_may_answer_forks_after_loading(monkeypatch) -> None:
    first = sweeper_of(MemorySnapshot(grounded(CODE, CLAIMS), label="head"), 1)
    first.verdicts = VerdictCache(first.verdict_context)
    first.sweep()
    forked_while = _forks_counting_sidecars_parsed(monkeypatch)
    sweeper = sweeper_of(MemorySnapshot(every_kind_of_result(), label="head"), 2)
    sweeper.verdicts = VerdictCache(sweeper.verdict_context, first.verdicts.kept)
    sweeper.sweep()
    assert forked_while and all(count > 0 for count in forked_while)  # the changed files' records, shared


def test_a_smaller_wiki_forks_after_loading_and_a_diff_aware_sweep_not_at_all(monkeypatch) -> None:
    forked_while = _forks_counting_sidecars_parsed(monkeypatch)
    files = every_kind_of_result()
    small = sweeper_of(MemorySnapshot(files, label="head"), 2)
    small.records_to_fork_early = 50  # 36 records: the sidecars' bytes promise fewer (shared after loading)
    small.sweep()
    assert forked_while and all(count > 0 for count in forked_while)
    forked_while.clear()
    base = MemorySnapshot(grounded(CODE, CLAIMS), label="base")
    head = MemorySnapshot(files, label="head")
    change = Change(base, (FileChange("src/m1.py", "src/m1.py"),))
    diff_aware = Sweeper(head, change, SweepOptions(), processes=2)
    diff_aware.records_per_process = 1
    diff_aware.sweep()
    assert forked_while == []


def test_children_forked_before_loading_are_stopped_when_the_sweep_fails(monkeypatch) -> None:
    files = every_kind_of_result()
    sweeper = sweeper_of(MemorySnapshot(files, label="head"), 3)
    wiki = sweeper.load()
    children = list(sweeper._apart.values())
    assert len(children) == 2

    def fails(*_: object) -> None:
        raise RuntimeError("the sweep failed")

    monkeypatch.setattr(sweeper, "_evaluate_forked", fails)
    with pytest.raises(RuntimeError):
        sweeper.sweep(wiki)
    for child in children:  # stopped and reaped: nothing left to wait for
        with pytest.raises(ChildProcessError):
            os.waitpid(child.pid, os.WNOHANG)


class SidecarUnreadable(MemorySnapshot):
    """A snapshot one of whose sidecars cannot be read (a blob missing from a partial clone, say)."""

    def read(self, path: str) -> bytes:
        if path == "openwiki/.claims/page1.json":
            raise UnreadableFileError(f"{path}: the blob is missing")
        return super().read(path)


def test_a_sidecar_that_cannot_be_read_is_reported_as_one_process_reports_it() -> None:
    files = every_kind_of_result()
    alone = sweeper_of(SidecarUnreadable(files, label="head"), 1).sweep()
    assert "the blob is missing" in str(alone.pages)
    for processes in (2, 3):
        assert sweeper_of(SidecarUnreadable(files, label="head"), processes).sweep() == alone

"""The sweep shares its work only through the `Parallel` it is handed: whatever runs the work (another process, this
one, nothing at all, a worker that fails) the report is the one process's, and the collector's policy covers the
sweep's loading and evaluation. By default the sweep starts nothing and leaves the collector alone."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest
from sweeptools import every_kind_of_result

from bot.claims.options import SweepOptions
from bot.claims.parallel import SERIAL, Parallel, Worker
from bot.claims.results import SweepReport
from bot.claims.snapshot import MemorySnapshot
from bot.claims.sweep import Sweeper


class Done:
    """Work already done, here: its answer, or None for work that failed."""

    def __init__(self, answer: bytes | None) -> None:
        self._answer = answer
        self.discarded = False

    def answer(self) -> bytes | None:
        return self._answer

    def discard(self) -> None:
        self.discarded = True


class Inline:
    """A `Parallel` that runs each piece of work in this process when it is started (`outcome` says how it ends:
    "answer", "fail" or "refuse" to start), counting what it was asked and whether the sweep was quiet then."""

    def __init__(self, processes: int, outcome: str = "answer") -> None:
        self.processes = processes
        self.outcome = outcome
        self.started = 0
        self.started_quiet = 0
        self.quiet_depth = 0
        self.workers: list[Done] = []

    def start(self, work: Callable[[], bytes]) -> Worker | None:
        self.started += 1
        self.started_quiet += self.quiet_depth > 0
        if self.outcome == "refuse":
            return None
        worker = Done(work() if self.outcome == "answer" else None)
        self.workers.append(worker)
        return worker

    def quiet(self) -> AbstractContextManager[None]:
        @contextmanager
        def quiet() -> Iterator[None]:
            self.quiet_depth += 1
            try:
                yield
            finally:
                self.quiet_depth -= 1

        return quiet()

    def keep(self, *objects: object) -> None:
        return None


def _sweep(parallel: Parallel) -> SweepReport:
    sweeper = Sweeper(MemorySnapshot(every_kind_of_result(), label="head"), None, SweepOptions(), parallel=parallel)
    sweeper.records_per_process = 1  # share even this small wiki
    return sweeper.sweep()


@pytest.mark.parametrize("outcome", ["answer", "fail", "refuse"])
def test_the_report_is_one_process_s_whoever_answers(outcome: str) -> None:
    alone = _sweep(SERIAL)
    assert alone.summary["fresh"] and alone.summary["stale"] and alone.summary["error"]
    parallel = Inline(3, outcome)
    assert _sweep(parallel) == alone
    assert parallel.started == 2  # every slice but the first, which the sweep answers itself meanwhile
    assert parallel.started_quiet == 2  # the evaluation runs under the collector's policy
    assert all(worker.discarded for worker in parallel.workers)  # every worker let go of once answered


def test_one_process_starts_nothing() -> None:
    parallel = Inline(1)
    _sweep(parallel)
    assert parallel.started == 0


def test_loading_the_wiki_is_quiet_too() -> None:
    parallel = Inline(1)
    sweeper = Sweeper(MemorySnapshot(every_kind_of_result(), label="head"), None, SweepOptions(), parallel=parallel)
    quiet = parallel.quiet

    entered: list[int] = []

    def counted() -> AbstractContextManager[None]:
        entered.append(1)
        return quiet()

    parallel.quiet = counted  # type: ignore[method-assign]
    sweeper.load()
    assert entered == [1]


class Watching(MemorySnapshot):
    """A snapshot that notes, at each read, whether the cyclic collector is on."""

    collector_on: list[bool]

    def read(self, path: str) -> bytes:
        self.collector_on.append(gc.isenabled())
        return super().read(path)


def test_by_default_the_sweep_leaves_the_collector_alone() -> None:
    """The core never switches the collector off itself: only a policy handed in does (bot/parallel)."""
    head = Watching(every_kind_of_result(), label="head")
    head.collector_on = []
    quiet = Inline(1)
    quiet.quiet = _collector_off  # type: ignore[method-assign]
    Sweeper(head, None, SweepOptions()).sweep()
    assert head.collector_on and all(head.collector_on)
    head.collector_on.clear()
    Sweeper(head, None, SweepOptions(), parallel=quiet).sweep()
    assert head.collector_on and not any(head.collector_on)
    assert gc.isenabled()


@contextmanager
def _collector_off() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()

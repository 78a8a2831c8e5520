"""How a process lends itself to a sweep: forked children to share a large one with, and the collector paused while it
allocates. The core only sees the `bot.claims.parallel.Parallel` interface; this is its implementation, chosen by a
use case or a face (the command line and the Action share among the usable processors, the App's jobs sweep alone).

It sits beside `settings`, `logs` and `lifetime` rather than under the use cases: the faces and the benchmarks choose it
too, and it is process machinery (fork, pipes, signals, the collector), the same for every use case.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from ..lifetime import outlive
from .collector import cyclic_gc_paused
from .fork import MOST_PROCESSES, Child, usable_processors

__all__ = ["MOST_PROCESSES", "Child", "Forking", "cyclic_gc_paused", "usable_processors"]


class Forking:
    """Share a sweep among `processes` forked processes (1: none forked), the cyclic collector paused meanwhile; what
    the sweep built is left to the process's end when it is a one-shot command's (`bot.lifetime`)."""

    def __init__(self, processes: int = 1) -> None:
        self.processes = processes

    def start(self, work: Callable[[], bytes]) -> Child | None:
        """`work` in a forked child; None where the system gives no process (the caller does the work itself)."""
        try:
            return Child(work)
        except OSError:
            return None

    def quiet(self) -> AbstractContextManager[None]:
        return cyclic_gc_paused()

    def keep(self, *objects: object) -> None:
        outlive(*objects)

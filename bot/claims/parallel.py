"""What a sweep may ask of the process running it, as an interface: the core starts no process and never touches
the garbage collector itself; the use case or the face chooses an implementation (`bot.parallel`) and hands it in.

`slices` is the pure part of sharing work: cutting a list of weighted items into about equal parts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from itertools import accumulate, pairwise
from typing import Protocol


class Worker(Protocol):
    """Work started elsewhere (a forked process, say) while the caller goes on with its own."""

    def answer(self) -> bytes | None:
        """The bytes the work returned, or None when it failed (the caller then does it itself); read once."""

    def discard(self) -> None:
        """Stop work whose answer is no longer wanted, and let go of it."""


class Parallel(Protocol):
    """Other processes to share a large sweep with, the collector's policy while the sweep allocates, and what the
    process keeps to its end."""

    @property
    def processes(self) -> int:
        """How many processes a sweep may share its work among (1: this one alone)."""

    def start(self, work: Callable[[], bytes]) -> Worker | None:
        """`work` started elsewhere, or None when it cannot be (no process to be had): the caller does it."""

    def quiet(self) -> AbstractContextManager[None]:
        """A stretch that allocates many objects forming no cycles: the policy may pause the cyclic collector."""

    def keep(self, *objects: object) -> None:
        """What a sweep built and no longer needs: a process about to end may keep it to its end rather than
        free it object by object; a long-running one frees it as usual."""


class Serial:
    """No process to share with and the collector left alone: what a sweep does unless handed otherwise."""

    processes = 1

    def start(self, work: Callable[[], bytes]) -> Worker | None:
        return None

    def quiet(self) -> AbstractContextManager[None]:
        return nullcontext()

    def keep(self, *objects: object) -> None:
        return None


SERIAL: Parallel = Serial()


def slices(weights: Sequence[int], parts: int) -> list[range]:
    """`parts` contiguous ranges covering the indexes of `weights`, each of about the same total weight (the
    first ones take an item more where the weights do not divide evenly); fewer when there are fewer items."""
    parts = min(parts, len(weights))
    totals = list(accumulate(weights))
    cuts = [0]
    at = 0
    for part in range(1, parts):
        goal = totals[-1] * part / parts  # below the last total: the search stops inside the list
        while totals[at] < goal:
            at += 1
        # never an empty slice: past the previous cut, and leaving an item for each slice still to come
        cuts.append(min(max(at + 1, cuts[-1] + 1), len(weights) - (parts - part)))
    cuts.append(len(weights))
    return [range(a, b) for a, b in pairwise(cuts)]

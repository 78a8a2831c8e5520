"""The machine's speed while a bench runs. On the 2-core development machines it drifts through a day by more than
most changes gain (a fixed loop 2.2 s in one hour, 3.5 s in another), so the benches print it before and after
their figures: two runs' figures compare only as far as their machine speeds do, and a change is judged by turns
with the code before it (`bench/cli_e2e.py --against`)."""

from __future__ import annotations

import time

LOOP = 2_000_000


def loop_seconds(rounds: int = 3) -> float:
    """The best of `rounds` timings of a fixed pure-Python loop (what the interpreter does per record, nothing
    else: no memory to speak of, no system call)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        total = 0
        for i in range(LOOP):
            total += i
        best = min(best, time.perf_counter() - start)
    return best


def speed_line(when: str) -> str:
    """One line saying how fast the machine was `when` ("before", "after")."""
    return f"machine speed {when}: a fixed Python loop of {LOOP:,} additions in {loop_seconds() * 1000:.0f} ms"

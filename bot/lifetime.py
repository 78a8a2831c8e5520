"""How a process treats what it built, by how long it lives: a one-shot command leaves it to the process's end
(`one_shot`, `outlive`), a long-running server hides what it keeps for life from the cyclic collector
(`long_running`).

The command line ends with `os._exit` once its command is done (`bot.cli.run`). What it built is freed before
that wherever the last reference to it goes: a full check's wiki and sweeper when the check's use case returns, its
report when the command does; at 100k claims that is millions of objects, a seventh of a second of every check
spent taking apart what the process's end would drop at once. A long-running process (the App's web process and
workers) must free them: there `outlive` keeps nothing.
"""

from __future__ import annotations

import gc

_kept: list[object] | None = None  # a list once the process is one-shot


def one_shot() -> None:
    """Say that this process ends with `os._exit` once its command is done: what `outlive` is given from now on
    is never freed."""
    global _kept  # noqa: PLW0603 - the process's own state, set once by its entry point
    if _kept is None:
        _kept = []


def outlive(*objects: object) -> None:
    """Keep `objects` until the process ends, when it is one-shot; otherwise nothing (they are freed as usual)."""
    if _kept is not None:
        _kept.extend(objects)


def kept() -> int:
    """How many objects are kept to the process's end (what the tests read)."""
    return len(_kept) if _kept is not None else 0


YOUNG_OBJECTS_PER_COLLECTION = 10_000  # the interpreter's default is 700


def long_running() -> None:
    """Say that this process serves for long (the App's web process and workers), once what it keeps for its
    whole life is loaded: the modules, models and application (about 120k objects) are frozen out of the cyclic
    collector's sight, and its youngest generation is collected every 10,000 allocations instead of 700.

    A burst of deliveries allocates a thousand containers each (the payload, its models, the request and its
    tasks): with the defaults the collector ran every few deliveries, traversing every delivery still in flight
    each time, about 0.12 ms of a delivery's 1 ms of the web process; this takes two fifths of that off. Cycles are
    still collected, in fewer and larger passes."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS_PER_COLLECTION, middle, oldest)

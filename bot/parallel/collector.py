"""The garbage collector's policy for a process that builds a large sweep: paused while objects that form no cycles
are allocated by the hundred thousand."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """A sweep allocates hundreds of thousands of small objects that never form cycles; left on, the
    cyclic collector traverses them over and over (a third of the time of a 100k-claim sweep). A one-shot
    process (the command line's check) pauses it for the whole command; nested, the outermost resumes it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _promote_young_objects()
            gc.enable()


def _promote_young_objects() -> None:
    """Move every object the sweep allocated to the oldest generation without traversing it.

    Left young, the report's hundreds of thousands of objects (no cycles among them) would be traversed by the
    first collection after the sweep, and again when they reach the next generation, to find nothing. Freezing
    then unfreezing splices the generations into the oldest one. Skipped when the process froze objects of its
    own (a server before forking), which unfreezing would release.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()

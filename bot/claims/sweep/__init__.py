"""The sweep: every claim of the wiki against the head snapshot, through the change from a base if given.

Without a base, each evidence record is checked against its stored version (OpenWiki's algorithm, with
moved text re-anchored). With a base and the change's file list, evidence on touched files is carried
through the diff, and only pages the change can have affected are re-checked: cost follows the change.
Nothing here aborts the sweep: a bad sidecar, resource, symlink, binary or oversized file becomes an
`error` on its page or claim and the sweep goes on.

What the sweep will read is a pure question asked before it runs, so a remote source can fetch it in a few
batches first: `wiki_reads` (the sidecars and the ignore file), then `Sweeper.reads` once the wiki is loaded
(the cited files, and both sides of the change's files when the change touches a cited one).

The pieces, each its own module: `wiki` (loading the sidecars), `reader` (a snapshot read as evidence reads it,
what readers outside the sweep use too), `evaluator` (one record's verdict), `planner` (what to evaluate, and so what
to read), `recall` (the evidence index and the verdict cache), `shared` (a large full sweep shared among the
processes it is handed), and `sweeper`, which composes them.
"""

from __future__ import annotations

from ..errors import Problem
from .evaluator import Evaluator, found_moved
from .reader import SnapshotReader
from .recording import rebaseline, record
from .shared import RECORDS_PER_PROCESS
from .sweeper import Sweeper, sweep
from .wiki import (
    MAX_SIDECAR_BYTES,
    LoadedPage,
    Selection,
    Wiki,
    cannot_cite,
    is_scoped,
    load_wiki,
    sidecar_blobs,
    wiki_reads,
)

__all__ = [
    "MAX_SIDECAR_BYTES",
    "RECORDS_PER_PROCESS",
    "Evaluator",
    "LoadedPage",
    "Problem",
    "Selection",
    "SnapshotReader",
    "Sweeper",
    "Wiki",
    "cannot_cite",
    "found_moved",
    "is_scoped",
    "load_wiki",
    "rebaseline",
    "record",
    "sidecar_blobs",
    "sweep",
    "wiki_reads",
]

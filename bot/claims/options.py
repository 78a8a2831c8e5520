"""What a sweep is asked to do: apart from the sweep itself, so a command line can describe its defaults without
loading the engine."""

from __future__ import annotations

from dataclasses import dataclass

from .pages import DEFAULT_WIKI_DIR

DEFAULT_MAX_FILE_BYTES = 1 << 20


@dataclass(frozen=True)
class SweepOptions:
    wiki_dir: str = DEFAULT_WIKI_DIR
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    recheck_all: bool = False  # with a change: re-check the claims it cannot have affected too

"""What a full check takes from a page's Markdown (its code spans and links, its blocks of prose), and the
readings kept by the page's blob id: a page whose bytes have not changed since the last full check is not parsed
again, and a check that knows every page does not load the Markdown parser at all (importing markdown-it is a
sizeable part of a small check).

A blob id names a page's exact bytes, so a kept reading stays right as long as the reader does: readings are kept
under a context naming this reader's format and the parser's own version, and one written under another is not
used. Pure but for `reading_context`, which reads the parser's version from its files without importing it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import __version__
from ..claims.text import sha_hex
from .apirefs import api_mentions
from .formats import page_kind, page_mentions
from .quotes import prose_blocks
from .references import MAX_SPAN, Mention
from .silence import unsilenced

if TYPE_CHECKING:
    from ..claims.parallel import Parallel, Worker
    from ..claims.snapshot import Snapshot

# 5: the dotted names of API tooling too (mkdocstrings' `:::` lines, autorefs identifiers, Sphinx's module lines);
# 4: each mention on its own line (the parser's line, not searched for over its paragraph);
# 3: a working tree's pages read as git stores them (a CRLF checkout's were read raw, kept under the LF blob's id);
# 2: mentions a comment silences are left out; pages of every kind
FORMAT = 5
_KINDS = frozenset({"code", "link"})


class PageReading(NamedTuple):
    """A page's mentions (code spans and link targets, with their lines) and its blocks of prose."""

    mentions: tuple[Mention, ...]
    blocks: tuple[str, ...]


def live_mentions(page: str, page_text: str) -> list[Mention]:
    """The mentions of a page of any kind a check reads (`page_mentions`, and the dotted names its API tooling
    reads: `api_mentions`), in page order, but those a comment silences."""
    found = page_mentions(page, page_text)
    extra = api_mentions(page, page_text)
    if extra:
        known = set(found)
        extra = [m for m in extra if m not in known]
    if extra:
        found = sorted([*found, *extra], key=lambda mention: mention.line)
    return unsilenced(page_text, found)


def read_page(page: str, page_text: str) -> PageReading:
    """The page's reading: its live mentions and, for Markdown (which alone holds claims), its blocks of prose,
    from one parse (`mentions` and `prose_blocks` share it)."""
    blocks = tuple(prose_blocks(page_text)) if page_kind(page) == "markdown" else ()
    return PageReading(tuple(live_mentions(page, page_text)), blocks)


def reading_context() -> str | None:
    """What readings are kept under: this reader's format and version, and the parsers' (a new markdown-it or
    docutils may read a page otherwise), told by a hash of each package's `__init__.py`, which holds its version,
    without importing it. None when a file cannot be read (an install inside an archive, say): no reading is kept
    or used then."""
    import importlib.util  # noqa: PLC0415 - a full check's only use of it

    hashes = []
    for package in ("markdown_it", "docutils"):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.origin:
            return None
        try:
            hashes.append(f"{package} {sha_hex(Path(spec.origin).read_bytes())[:16]}")
        except OSError:
            return None
    return f"{FORMAT}:{__version__}:" + ":".join(hashes)


class ReadingCache:
    """The readings kept by page blob id under one context: those a check recalled or made are kept again (a page
    no longer in the wiki is forgotten), and `changed` says whether that differs from what was read."""

    def __init__(self, context: str, stored: dict[str, Any] | None = None) -> None:
        self.context = context
        self._stored = stored or {}  # blob id → the JSON `to_json` wrote, decoded when recalled
        self.kept: dict[str, PageReading] = {}
        self._made = False

    def recall(self, blob: str | None) -> PageReading | None:
        """The reading kept for a page's blob id (kept again), or None: no blob id, none kept, or not well formed."""
        if blob is None:
            return None
        reading = self.kept.get(blob)
        if reading is None and blob in self._stored:
            reading = _decoded(self._stored[blob])
            if reading is not None:
                self.kept[blob] = reading
        return reading

    def keep(self, blob: str, reading: PageReading) -> None:
        """A reading made by this check, for the page with this blob id."""
        if blob not in self.kept:
            self.kept[blob] = reading
            self._made = True

    @property
    def changed(self) -> bool:
        return self._made or self.kept.keys() != self._stored.keys()

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "context": self.context,
            "pages": {
                blob: [[[m.text, m.kind, m.line] for m in reading.mentions], list(reading.blocks)]
                for blob, reading in self.kept.items()
            },
        }

    @classmethod
    def from_json(cls, value: object, context: str) -> ReadingCache:
        """The readings a store read, under `context`; none when written under another or not what `to_json`
        writes (each page's entry is checked when recalled: a bad one is read again, never used)."""
        if not isinstance(value, dict) or value.get("format") != FORMAT or value.get("context") != context:
            return cls(context)
        pages = value.get("pages")
        return cls(context, pages if type(pages) is dict else None)


def _decoded(entry: object) -> PageReading | None:
    if type(entry) is not list or len(entry) != 2 or type(entry[0]) is not list or type(entry[1]) is not list:
        return None
    found = list(_mentions(entry[0]))
    if len(found) != len(entry[0]) or not all(type(block) is str for block in entry[1]):
        return None
    return PageReading(tuple(found), tuple(entry[1]))


def _mentions(raw: Iterable[object]) -> Iterator[Mention]:
    """The well-formed mentions of a stored list (the caller counts them: one that is not stops the recall)."""
    for item in raw:
        if type(item) is not list or len(item) != 3:
            return
        text, kind, line = item
        if type(text) is not str or not 0 < len(text) <= MAX_SPAN or kind not in _KINDS:
            return
        if type(line) is not int or line < 1:
            return
        yield Mention(text, kind, line)


class ReadApart:
    """Pages read and parsed by work a `Parallel` started elsewhere (a forked child) while this process loads and
    sweeps the wiki.

    Until the sweep's records are shared out, one processor waits while the other loads the wiki, and parsing the
    pages' Markdown starts by importing markdown-it-py (a tenth of a mid-sized check): the other process does both
    then. Start it before the wiki is loaded (a small process to fork), with the pages' bytes already read when they
    come from git (a child never opens git's pipes). Its readings come back as the JSON the reading cache keeps,
    each checked as a kept one is; a page it could not read or parse is left out, and work that failed gives
    nothing: this process reads what is missing, as before, with the same errors."""

    def __init__(self, worker: Worker) -> None:
        self._worker = worker

    def take(self) -> dict[str, PageReading]:
        """The readings the work made (read once; none when it failed)."""
        answer = self._worker.answer()
        if answer is None:
            return {}
        try:
            made = json.loads(answer)
        except ValueError:
            return {}
        if type(made) is not dict:
            return {}
        return {page: reading for page, entry in made.items() if (reading := _decoded(entry)) is not None}

    def discard(self) -> None:
        self._worker.discard()


def read_apart(parallel: Parallel, head: Snapshot, pages: list[str]) -> ReadApart | None:
    """`ReadApart` of `pages` started by `parallel`, or None when there are none or it can start nothing."""
    if not pages:
        return None
    worker = parallel.start(partial(read_pages, head, pages))
    return ReadApart(worker) if worker is not None else None


def read_pages(head: Snapshot, pages: list[str]) -> bytes:
    """The readings of `pages` (elsewhere: in a forked child), as the JSON `ReadApart.take` reads."""
    made = {}
    for page in pages:
        with contextlib.suppress(Exception):  # this page is read again by the caller, which reports why not
            reading = read_page(page, head.read(page).decode("utf-8", "replace"))
            made[page] = [[[m.text, m.kind, m.line] for m in reading.mentions], list(reading.blocks)]
    return json.dumps(made).encode()

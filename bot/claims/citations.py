"""The evidence index: which files each sidecar cites, by the sidecar's git blob id.

A blob id names a sidecar's exact bytes, so an entry never goes stale and may be shared by every process and
repository that meets the same blob. A diff-aware sweep asks it which sidecars can cite what the change
touched and reads only those: on a 1,000-page wiki, a 10-file change reads a handful of sidecars, not all of
them. A sidecar the index has not seen yet is read, and learnt.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from .errors import EvidenceResourceError
from .resources import SCHEME, parse_resource

_CITED_PATH = re.compile(rb'repo://([^"#\\]*)')


def cited_paths(data: bytes) -> frozenset[str] | None:
    """Every path a sidecar's resources name, read from its bytes without parsing them; None when that cannot be
    told exactly (a JSON escape in the file, a path that does not parse): such a sidecar may cite anything.

    Exact, not a guess: without a backslash in the file, every resource stands literally after `repo://`.
    """
    if b"\\" in data:
        return None
    paths = set()
    for raw in set(_CITED_PATH.findall(data)):
        try:
            path = raw.decode()
            # Anything that may not be normalised already (escapes, dot segments, empty ones) is parsed.
            if b"%" in raw or b"./" in raw or b"//" in raw or raw.startswith(b"/") or raw.endswith((b"/", b".")):
                path = parse_resource(SCHEME + path).path
        except (UnicodeDecodeError, EvidenceResourceError):
            return None
        paths.add(path)
    return frozenset(paths)


def may_cite(cited: frozenset[str] | None, touched: Collection[str]) -> bool:
    """Whether a sidecar citing `cited` (None: anything) can cite a file of `touched`."""
    return cited is None or not cited.isdisjoint(touched)


# What the index holds for a sidecar: the paths it cites, or None for "may cite anything".
Cited = frozenset[str] | None


class StoredCitations:
    """Stored index entries as numbers into one table of paths, decoded only when asked for: a 1,000-page wiki's
    entries hold 134k numbers, and whether a sidecar can cite a change is told from the change's own numbers."""

    def __init__(self, paths: Sequence[str], sidecars: Mapping[str, Sequence[int] | None]) -> None:
        self.paths = paths  # numbers checked by whoever read them: each in range
        self.sidecars = sidecars
        self._number: dict[str, int] | None = None
        self._asked: tuple[frozenset[str], frozenset[int]] | None = None  # the last paths given in numbers

    def decoded(self, blob_id: str) -> Cited:
        numbers = self.sidecars[blob_id]
        return None if numbers is None else frozenset(map(self.paths.__getitem__, numbers))

    def numbers(self, paths: Collection[str]) -> frozenset[int]:
        """The numbers of those of `paths` the table holds (a path it lacks is cited by no stored entry)."""
        key = frozenset(paths)
        if self._asked is None or self._asked[0] != key:
            if self._number is None:
                self._number = {path: n for n, path in enumerate(self.paths)}
            number = self._number
            self._asked = (key, frozenset(number[path] for path in key if path in number))
        return self._asked[1]


class EvidenceIndex:
    """Sidecar blob id → the files it cites. What a sweep learns is kept apart (`learnt`), so a store adds only
    that; what a store gives as numbers (`stored`) is decoded entry by entry, when asked for."""

    def __init__(
        self,
        entries: Mapping[str, Cited] | None = None,
        stored: StoredCitations | None = None,
        parsed: Iterable[str] = (),
    ) -> None:
        self._entries: dict[str, Cited] = dict(entries or {})
        self._stored = stored if stored is not None else StoredCitations((), {})
        self._unstored = sum(blob not in self._stored.sidecars for blob in self._entries)  # counted for `len`
        self.learnt: dict[str, Cited] = {}
        self._parsed = set(parsed)
        self.parsed_now: set[str] = set()  # of `parsed`, the sidecars this sweep parsed first

    def __contains__(self, blob_id: object) -> bool:
        return blob_id in self._entries or blob_id in self._stored.sidecars

    def __len__(self) -> int:
        return len(self._stored.sidecars) + self._unstored

    def cited(self, blob_id: str) -> Cited:
        """What the sidecar cites; KeyError when the index has not seen it."""
        if blob_id in self._entries:
            return self._entries[blob_id]
        cited = self._entries[blob_id] = self._stored.decoded(blob_id)
        return cited

    def may_cite(self, blob_id: str, touched: Collection[str]) -> bool:
        """Whether the sidecar can cite a file of `touched` (`may_cite` of what it cites, a stored entry asked in
        its numbers); KeyError when the index has not seen it."""
        if blob_id in self._entries:
            return may_cite(self._entries[blob_id], touched)
        numbers = self._stored.sidecars[blob_id]
        return numbers is None or not self._stored.numbers(touched).isdisjoint(numbers)

    def learn(self, blob_id: str, cited: Cited) -> None:
        """Record what the sidecar with this blob id cites (from its bytes, or from its parsed records)."""
        if blob_id not in self:
            self._entries[blob_id] = self.learnt[blob_id] = cited
            self._unstored += 1

    def parsed(self, blob_id: str) -> bool:
        """Whether a sweep parsed the sidecar with this blob id without error: the same bytes read the same way
        again (`parse_sidecar(read_before=True)`)."""
        return blob_id in self._parsed

    def learn_parsed(self, blob_id: str) -> None:
        """Record that a sweep parsed the sidecar with this blob id without error."""
        if blob_id not in self._parsed:
            self._parsed.add(blob_id)
            self.parsed_now.add(blob_id)

    def items(self) -> Iterable[tuple[str, Cited]]:
        """Every entry, decoded."""
        for blob_id in self._stored.sidecars:
            self.cited(blob_id)
        return self._entries.items()

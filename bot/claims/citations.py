"""The evidence index: which files each sidecar cites, by the sidecar's git blob id.

A blob id names a sidecar's exact bytes, so an entry never goes stale and may be shared by every process and
repository that meets the same blob. A diff-aware sweep asks it which sidecars can cite what the change
touched and reads only those: on a 1,000-page wiki, a 10-file change reads a handful of sidecars, not all of
them. A sidecar the index has not seen yet is read, and learnt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

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


def may_cite(cited: frozenset[str] | None, touched: set[str]) -> bool:
    """Whether a sidecar citing `cited` (None: anything) can cite a file of `touched`."""
    return cited is None or not cited.isdisjoint(touched)


# What the index holds for a sidecar: the paths it cites, or None for "may cite anything".
Cited = frozenset[str] | None


class EvidenceIndex:
    """Sidecar blob id → the files it cites. What a sweep learns is kept apart (`learnt`), so a store adds only
    that."""

    def __init__(self, entries: Mapping[str, Cited] | None = None) -> None:
        self._entries: dict[str, Cited] = dict(entries or {})
        self.learnt: dict[str, Cited] = {}

    def __contains__(self, blob_id: object) -> bool:
        return blob_id in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def cited(self, blob_id: str) -> Cited:
        """What the sidecar cites; KeyError when the index has not seen it."""
        return self._entries[blob_id]

    def learn(self, blob_id: str, cited: Cited) -> None:
        """Record what the sidecar with this blob id cites (from its bytes, or from its parsed records)."""
        if blob_id not in self._entries:
            self._entries[blob_id] = self.learnt[blob_id] = cited

    def items(self) -> Iterable[tuple[str, Cited]]:
        return self._entries.items()

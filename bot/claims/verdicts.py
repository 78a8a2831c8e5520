"""The verdicts an evidence record or a claim can get, ordered from best to worst."""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    FRESH = "fresh"  # the evidence text is where the resource says
    MOVED = "moved"  # the same text now stands elsewhere: re-anchored automatically
    COSMETIC = "cosmetic"  # only line endings or trailing whitespace changed: re-anchored with a new version
    STALE = "stale"  # the text changed: someone must confirm, correct or retract the claim
    UNRESOLVED = "unresolved"  # the text or the file is gone
    ERROR = "error"  # the evidence cannot be evaluated (bad resource, symlink, binary, too large, bad sidecar)

    @property
    def severity(self) -> int:
        return _ORDER[self]

    @property
    def needs_attention(self) -> bool:
        """Stale, unresolved and error need a person or the agent; moved and cosmetic fix themselves."""
        return self.severity >= _ORDER[Verdict.STALE]


_ORDER = {verdict: rank for rank, verdict in enumerate(Verdict)}


def worst(verdicts: list[Verdict]) -> Verdict:
    """A claim's verdict is the worst of its evidence."""
    return max(verdicts, key=_ORDER.__getitem__)


class OpenWikiVerdict(StrEnum):
    """What OpenWiki's own resolver would conclude (it has no notion of moved or cosmetic)."""

    FRESH = "fresh"
    STALE = "stale"
    UNRESOLVED = "unresolved"

"""What the hand-kept claims' use case answers (`wikiwarden claim ...`): a claim shown with its evidence then and
now, a listing of the wiki's claims, an edit made. Plain data, for the renderers (`bot.report.claims`) to read."""

from __future__ import annotations

from dataclasses import dataclass, field

from .sidecar import Claim
from .verdicts import Verdict


@dataclass(frozen=True)
class ShownEvidence:
    """One evidence record of a claim as `claim show` presents it: what it recorded, where and what it is now."""

    resource: str  # as recorded
    verdict: Verdict
    resource_now: str | None  # where it stands now, when it can be found
    now: str | None  # the text there now (None: gone, or cannot be read)
    recorded: str | None  # the text its version was taken from, when a commit still holds it
    recorded_in: str | None  # that commit (or "the working tree" when it still stands)
    error: str | None = None


@dataclass(frozen=True)
class ShownClaim:
    page: str
    claim: Claim
    evidence: tuple[ShownEvidence, ...]

    @property
    def needs_attention(self) -> bool:
        return any(e.verdict.needs_attention for e in self.evidence)


@dataclass(frozen=True)
class ClaimEdit:
    page: str
    sidecar: str
    claim: Claim | None  # None after a retraction


@dataclass(frozen=True)
class ClaimListing:
    """The claims of the wiki (or of one page), and the sidecars that could not be read, each (page, why)."""

    claims: list[tuple[str, Claim]]
    unreadable: list[tuple[str, str]] = field(default_factory=list)

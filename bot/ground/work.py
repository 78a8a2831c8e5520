"""What grounding has to do for one page: its text, the claims it already has, its references and the candidate
evidence they point at, and why it cannot be edited, if it cannot."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..claims.sidecar import Sidecar
from .candidates import Candidate
from .quotes import Quotes
from .references import Reference


@dataclass
class GroundWork:
    page: str
    sidecar_path: str
    text: str
    sidecar: Sidecar | None = None  # the claims it has (a page named on purpose may have some)
    references: list[Reference] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    quotes: Quotes = field(default_factory=Quotes)  # from its quotes file
    problem: str | None = None  # why the page cannot be grounded as it is (not UTF-8, broken front matter)

    @property
    def statements(self) -> list[str]:
        return [c.statement for c in self.sidecar.claims] if self.sidecar else []

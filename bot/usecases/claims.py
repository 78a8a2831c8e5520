"""Claims kept by hand (`wikiwarden claim ...`): a person grounding a page in a local checkout, with OpenWiki's
sidecar semantics (byte-identical JSON, atomic writes, never through a symlink)."""

from __future__ import annotations

from dataclasses import dataclass

from ..claims.edit import add_claim, replace_evidence, retract_claim
from ..claims.options import SweepOptions
from ..claims.pages import normalize_wiki_dir, page_argument, require_wiki_folder
from ..claims.sidecar import Claim, EvidenceRecord, Sidecar
from ..claims.sweep import Sweeper
from ..claims.verdicts import Verdict
from ..source.git import GitRepository
from ..source.localwiki import LocalWiki

_FOLLOWABLE = (Verdict.FRESH, Verdict.MOVED, Verdict.COSMETIC, Verdict.STALE)


@dataclass(frozen=True)
class ClaimEdit:
    page: str
    sidecar: str
    claim: Claim | None  # None after a retraction


class HandKeptClaims:
    """Add, confirm, retract and list the claims of a working tree's wiki."""

    def __init__(self, repo: GitRepository, wiki_dir: str, max_file_bytes: int | None = None) -> None:
        self.repo = repo
        self.wiki_dir = normalize_wiki_dir(wiki_dir)
        self.wiki = LocalWiki(repo.root, self.wiki_dir)
        require_wiki_folder(self.wiki.snapshot, self.wiki_dir)
        self.options = SweepOptions(wiki_dir=self.wiki_dir)
        if max_file_bytes is not None:
            self.options = SweepOptions(wiki_dir=self.wiki_dir, max_file_bytes=max_file_bytes)
        self.reader = Sweeper(self.wiki.snapshot, None, self.options)

    def _sidecar(self, page: str) -> Sidecar:
        sidecar = self.wiki.read_sidecar(page)
        if sidecar is None:  # `find` found the claim in it a moment ago: removed meanwhile
            raise LookupError(f"{page} has no sidecar any more")
        return sidecar

    def add(self, page_arg: str, statement: str, resources: list[str]) -> ClaimEdit:
        page = page_argument(page_arg, self.wiki_dir)
        page_bytes = self.wiki.read_page(page)
        sidecar = self.wiki.read_sidecar(page)
        evidence = [self.reader.record(resource) for resource in resources]
        taken = [claim.id for _, claim in self.wiki.all_claims()]
        updated, claim = add_claim(sidecar, page_bytes, statement, evidence, taken)
        return ClaimEdit(page, self.wiki.write_sidecar(page, updated), claim)

    def confirm(self, claim_id: str, base: str | None = None) -> ClaimEdit:
        """Re-baseline a claim's evidence to the working tree; with `base`, follow it through the change
        from that commit first (renames and moves into other files included)."""
        page = self.wiki.find(claim_id)
        sidecar = self._sidecar(page)
        claim = next(c for c in sidecar.claims if c.id == claim_id)
        if base is None:
            evidence = [self.reader.rebaseline(record) for record in claim.evidence]
        else:
            tracker = Sweeper(self.wiki.snapshot, self.repo.change(base), self.options)
            evidence = [self._followed(tracker, record) for record in claim.evidence]
        updated = replace_evidence(sidecar, self.wiki.read_page(page), claim_id, evidence)
        return ClaimEdit(
            page, self.wiki.write_sidecar(page, updated), next(c for c in updated.claims if c.id == claim_id)
        )

    def _followed(self, tracker: Sweeper, record: EvidenceRecord) -> EvidenceRecord:
        result = tracker.evaluate(record)
        if result.verdict in _FOLLOWABLE and result.resource_now and result.version_now:
            return EvidenceRecord(result.resource_now, result.version_now)
        return self.reader.rebaseline(record)  # says clearly why the evidence cannot be re-anchored

    def retract(self, claim_id: str) -> ClaimEdit:
        page = self.wiki.find(claim_id)
        updated = retract_claim(self._sidecar(page), self.wiki.read_page(page), claim_id)
        return ClaimEdit(page, self.wiki.write_sidecar(page, updated), None)

    def list(self, page_arg: str | None = None) -> list[tuple[str, Claim]]:
        page = page_argument(page_arg, self.wiki_dir) if page_arg else None
        return [(p, c) for p, c in self.wiki.all_claims() if page is None or p == page]

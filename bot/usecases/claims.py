"""Claims kept by hand (`wikiwarden claim ...`): a person grounding a page in a local checkout, with OpenWiki's
sidecar semantics (byte-identical JSON, atomic writes, never through a symlink), each edit read and written under
the wiki's lock."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..claims.edit import add_claim, replace_evidence, retract_claim
from ..claims.evidence import recorded_text, resolve_evidence
from ..claims.options import SweepOptions
from ..claims.pages import normalize_wiki_dir, page_argument, require_wiki_folder
from ..claims.resources import parse_resource
from ..claims.shown import ClaimEdit, ClaimListing, ShownClaim, ShownEvidence
from ..claims.sidecar import EvidenceRecord, Sidecar
from ..claims.snapshot import Change, Kind
from ..claims.sweep import Evaluator, SnapshotReader, load_wiki, rebaseline, record
from ..claims.text import FileText
from ..claims.verdicts import Verdict
from ..source.git import GitRepository
from ..source.localwiki import LocalWiki

_FOLLOWABLE = (Verdict.FRESH, Verdict.MOVED, Verdict.COSMETIC, Verdict.STALE)


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
        self.reader = SnapshotReader(self.wiki.snapshot, self.options)

    @contextlib.contextmanager
    def _editing(self) -> Iterator[None]:
        """An edit's reads and its write under the wiki's lock, from a fresh view of the working tree: another
        command's edit is either wholly before this one, and read by it, or wholly after."""
        with self.wiki.writing():
            self.reader = SnapshotReader(self.wiki.snapshot, self.options)
            yield

    def _sidecar(self, page: str) -> Sidecar:
        sidecar = self.wiki.read_sidecar(page)
        if sidecar is None:  # `find` found the claim in it a moment ago: removed meanwhile
            raise LookupError(f"{page} has no sidecar any more")
        return sidecar

    def add(self, page_arg: str, statement: str, resources: list[str]) -> ClaimEdit:
        page = page_argument(page_arg, self.wiki_dir)
        with self._editing():
            page_bytes = self.wiki.read_page(page)
            sidecar = self.wiki.read_sidecar(page)
            evidence = [record(self.reader, resource) for resource in resources]
            taken = [claim.id for _, claim in self.wiki.all_claims()]
            updated, claim = add_claim(sidecar, page_bytes, statement, evidence, taken)
            return ClaimEdit(page, self.wiki.write_sidecar(page, updated), claim)

    def confirm(self, claim_id: str, base: str | None = None) -> ClaimEdit:
        """Re-baseline a claim's evidence to the working tree; with `base`, follow it through the change
        from that commit first (renames and moves into other files included)."""
        with self._editing():
            page = self.wiki.find(claim_id)
            sidecar = self._sidecar(page)
            claim = next(c for c in sidecar.claims if c.id == claim_id)
            if base is None:
                evidence = [rebaseline(self.reader, evidence) for evidence in claim.evidence]
            else:
                tracker = self._evaluator(self.repo.change(base))
                evidence = [self._followed(tracker, evidence) for evidence in claim.evidence]
            updated = replace_evidence(sidecar, self.wiki.read_page(page), claim_id, evidence)
            return ClaimEdit(
                page, self.wiki.write_sidecar(page, updated), next(c for c in updated.claims if c.id == claim_id)
            )

    def _evaluator(self, change: Change | None) -> Evaluator:
        """An evaluator of the working tree through `change`, reading it afresh."""
        return Evaluator(SnapshotReader(self.wiki.snapshot, self.options), change)

    def _followed(self, tracker: Evaluator, evidence: EvidenceRecord) -> EvidenceRecord:
        result = tracker.evaluate(evidence)
        if result.verdict in _FOLLOWABLE and result.resource_now and result.version_now:
            return EvidenceRecord(result.resource_now, result.version_now)
        return rebaseline(self.reader, evidence)  # says clearly why the evidence cannot be re-anchored

    def retract(self, claim_id: str) -> ClaimEdit:
        with self._editing():
            page = self.wiki.find(claim_id)
            updated = retract_claim(self._sidecar(page), self.wiki.read_page(page), claim_id)
            return ClaimEdit(page, self.wiki.write_sidecar(page, updated), None)

    def show(self, claim_id: str, base: str | None = None, depth: int = 200) -> ShownClaim:
        """A claim, and for each evidence record the text it recorded beside the text there now, so a person can
        decide before `confirm` or `retract`. The recorded text is found where the version still matches: the
        working tree, else `base` (followed through the change to now), else the last `depth` commits of its file."""
        page = self.wiki.find(claim_id)
        claim = next(c for c in self._sidecar(page).claims if c.id == claim_id)
        change = self.repo.change(base) if base is not None else None
        evaluator = self._evaluator(change)
        return ShownClaim(page, claim, tuple(self._shown(evaluator, record, base, depth) for record in claim.evidence))

    def _shown(self, evaluator: Evaluator, record: EvidenceRecord, base: str | None, depth: int) -> ShownEvidence:
        result = evaluator.evaluate(record)
        now = None
        where = result.resource_now or record.resource  # unresolved: what stands at the recorded lines now
        if result.verdict is not Verdict.ERROR:
            text = self.reader.text(self.wiki.snapshot, parse_resource(where).path)
            if isinstance(text, FileText):
                found = resolve_evidence(where, text.data)
                now = found.text if found is not None else None
        if result.verdict is Verdict.ERROR:
            return ShownEvidence(record.resource, result.verdict, None, None, None, None, result.error)
        if result.verdict is Verdict.FRESH:
            return ShownEvidence(record.resource, result.verdict, where, now, now, "the working tree", result.error)
        recorded, commit = self._recorded(record, base, depth)
        return ShownEvidence(record.resource, result.verdict, where, now, recorded, commit, result.error)

    def _recorded(self, record: EvidenceRecord, base: str | None, depth: int) -> tuple[str | None, str | None]:
        """The text the record's version was taken from, and the commit holding it: `base`, else the newest of the
        file's last `depth` commits that holds it unchanged."""
        path = parse_resource(record.resource).path
        commits = [base] if base is not None else self.repo.commits_touching(path, depth)
        for commit in commits:
            snapshot = self.repo.snapshot(commit)
            entry = snapshot.entry(path)
            if entry is None or entry.kind is not Kind.FILE or (entry.size or 0) > self.options.max_file_bytes:
                continue
            text = recorded_text(record.resource, record.version, snapshot.read(path))
            if text is not None:
                return text, commit
        return None, None

    def list(self, page_arg: str | None = None) -> ClaimListing:
        """The claims of the page `page_arg` names (every page's when None), and every sidecar that cannot be
        read: a listing that leaves one out says why."""
        page = page_argument(page_arg, self.wiki_dir) if page_arg else None
        claims = [(p, c) for p, c in self.wiki.all_claims() if page is None or p == page]
        unreadable = [(p.page, p.error) for p in load_wiki(self.wiki.snapshot, self.wiki_dir).pages if p.error]
        return ClaimListing(claims, unreadable)

"""The use cases that tie the core to its adapters: check a local repository, keep its claims by hand,
bring its OKF metadata up to date, and fix its wiki."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from . import __version__
from .agent.agent import Agent, make_client
from .agent.budget import AnswerCache, Budget, DailyLedger
from .claims.edit import add_claim, replace_evidence, retract_claim
from .claims.pages import normalize_wiki_dir, page_argument
from .claims.results import SweepReport
from .claims.sidecar import Claim, EvidenceRecord
from .claims.sweep import Change, Sweeper, SweepOptions, load_wiki, sweep
from .claims.verdicts import Verdict
from .fix.engine import LAST_UPDATE, FixResult, fix_wiki
from .fix.view import CodeView, search_scope
from .fix.work import plan_work
from .localwiki import LocalWiki
from .okf.sync import GroundedPage, SyncPlan, plan_sync
from .okf.validate import Problem, validate_bundle
from .settings import ModelSettings
from .source.git import GitRepository


def check_repository(
    repo: GitRepository, base: str | None = None, head: str | None = None, options: SweepOptions | None = None
) -> SweepReport:
    """Sweep the wiki at `head` (a commit, or the working tree when None), through the change from `base`."""
    options = options or SweepOptions()
    head_commit = repo.resolve(head) if head is not None else None
    head_snapshot = repo.snapshot(head) if head is not None else repo.worktree()
    change = None
    if base is not None:
        base_snapshot = repo.snapshot(base)
        change = Change(base_snapshot, repo.changes(base_snapshot.commit, head_commit))
    return sweep(head_snapshot, change, options)


_FOLLOWABLE = (Verdict.FRESH, Verdict.MOVED, Verdict.COSMETIC, Verdict.STALE)


@dataclass(frozen=True)
class ClaimEdit:
    page: str
    sidecar: str
    claim: Claim | None  # None after a retraction


class HandKeptClaims:
    """`wikiwarden claim ...`: a person grounding a page by hand, with OpenWiki's sidecar semantics."""

    def __init__(self, repo: GitRepository, wiki_dir: str, max_file_bytes: int | None = None) -> None:
        self.repo = repo
        self.wiki_dir = normalize_wiki_dir(wiki_dir)
        self.wiki = LocalWiki(repo.root, self.wiki_dir)
        self.options = SweepOptions(wiki_dir=self.wiki_dir)
        if max_file_bytes is not None:
            self.options = SweepOptions(wiki_dir=self.wiki_dir, max_file_bytes=max_file_bytes)
        self.reader = Sweeper(self.wiki.snapshot, None, self.options, self.wiki_dir)

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
        sidecar = self.wiki.read_sidecar(page)
        assert sidecar is not None
        claim = next(c for c in sidecar.claims if c.id == claim_id)
        if base is None:
            evidence = [self.reader.rebaseline(record) for record in claim.evidence]
        else:
            base_snapshot = self.repo.snapshot(base)
            change = Change(base_snapshot, self.repo.changes(base_snapshot.commit, None))
            tracker = Sweeper(self.wiki.snapshot, change, self.options, self.wiki_dir)
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
        sidecar = self.wiki.read_sidecar(page)
        assert sidecar is not None
        updated = retract_claim(sidecar, self.wiki.read_page(page), claim_id)
        return ClaimEdit(page, self.wiki.write_sidecar(page, updated), None)

    def list(self, page_arg: str | None = None) -> list[tuple[str, Claim]]:
        page = page_argument(page_arg, self.wiki_dir) if page_arg else None
        return [(p, c) for p, c in self.wiki.all_claims() if page is None or p == page]


def _language(files: dict[str, bytes], wiki_dir: str) -> str:
    """The wiki's language, from OpenWiki's `.last-update.json` (English when it says nothing usable)."""
    try:
        meta = json.loads(files.get(f"{wiki_dir}/.last-update.json", b"{}"))
    except ValueError:
        return "en"
    language = meta.get("language") if isinstance(meta, dict) else None
    return language if isinstance(language, str) and language.strip() else "en"


def sync_okf(repo: GitRepository, wiki_dir: str, *, dry_run: bool = False) -> SyncPlan:
    """`okf sync`: migrate pages, project `sources`, drop Wikiwarden's `verified` where claims need attention,
    regenerate indexes and refresh page versions, in the working tree (nothing written when `dry_run`)."""
    wiki_dir = normalize_wiki_dir(wiki_dir)
    local = LocalWiki(repo.root, wiki_dir)
    files, links = local.files()
    report = sweep(local.snapshot, None, SweepOptions(wiki_dir=wiki_dir))
    attention = {p.page for p in report.pages if any(c.verdict.needs_attention for c in p.claims)}
    grounded = {
        loaded.page: GroundedPage(
            loaded.sidecar_path,
            loaded.sidecar,
            [record.resource for claim in loaded.sidecar.claims for record in claim.evidence],
            loaded.page in attention,
        )
        for loaded in load_wiki(local.snapshot, wiki_dir).pages
        if loaded.sidecar is not None
    }
    plan = plan_sync(files, wiki_dir, grounded, _language(files, wiki_dir))
    plan.problems.extend((path, "a symlink: left as it is") for path in links if path.endswith(".md"))
    if not dry_run:
        for path, content in plan.writes.items():
            local.write_file(path, content)
    return plan


def validate_okf(folder: Path) -> list[Problem]:
    """`okf validate`: every conformance problem of the bundle in `folder` (a plain folder; no git needed)."""
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder")
    files = {}
    for path in sorted(folder.rglob("*.md")):
        relative = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in relative.split("/")) or path.is_symlink() or not path.is_file():
            continue
        files[relative] = path.read_bytes()
    return validate_bundle(files)


ACTOR = f"wikiwarden/{__version__}"


def now_iso() -> str:
    """The moment, as OpenWiki writes it (`new Date().toISOString()`)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_agent(
    model_settings: ModelSettings,
    model: str | None,
    repo: str,
    ledger: DailyLedger | None = None,
    cache: AnswerCache | None = None,
    per_run: int | None = None,
    per_day: int | None = None,
) -> Agent | None:
    """The agent for `model` (None: no agent, the fix does only the deterministic work)."""
    if not model:
        return None
    client = make_client(model_settings)
    budget = Budget(
        per_run=per_run if per_run is not None else model_settings.tokens_per_run,
        per_day=per_day if per_day is not None else model_settings.tokens_per_day,
        repo=repo,
        ledger=ledger or DailyLedger(),
    )
    return Agent(client, model, budget, cache)


async def fix_repository(
    repo: GitRepository,
    *,
    base: str | None,
    wiki_dir: str,
    agent: Agent | None,
    max_claims: int = 50,
    max_file_bytes: int | None = None,
    dry_run: bool = False,
) -> tuple[FixResult, list[str]]:
    """`wikiwarden fix`: fix the working tree's wiki in place; the result and the files written."""
    wiki_dir = normalize_wiki_dir(wiki_dir)
    options = SweepOptions(wiki_dir=wiki_dir)
    if max_file_bytes is not None:
        options = SweepOptions(wiki_dir=wiki_dir, max_file_bytes=max_file_bytes)
    local = LocalWiki(repo.root, wiki_dir)
    change = None
    if base is not None:
        base_snapshot = repo.snapshot(base)
        change = Change(base_snapshot, repo.changes(base_snapshot.commit, None))
    report = sweep(local.snapshot, change, options)
    work = plan_work(report, local.snapshot.read, max_claims)
    tracked = repo.git("ls-files", "-z", "--cached", "--others", "--exclude-standard").split(b"\0")
    paths = [p.decode("utf-8", "surrogateescape") for p in tracked if p]
    scope = search_scope(paths, change.paths if change else (), work)
    view = CodeView(Sweeper(local.snapshot, None, options, wiki_dir), scope)
    last = local.snapshot.entry(f"{wiki_dir}/{LAST_UPDATE}")
    previous = local.snapshot.read(f"{wiki_dir}/{LAST_UPDATE}") if last is not None else None
    result = await fix_wiki(
        work, view, agent, wiki_dir=wiki_dir, actor=ACTOR, at=now_iso(), head=repo.resolve("HEAD"),
        previous_last_update=previous, cap=max_claims,
    )  # fmt: skip
    written = sorted(result.files)
    if not dry_run:
        for path in written:
            local.write_file(path, result.files[path])
    return result, written

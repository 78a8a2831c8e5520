"""The fix from findings to files: decide (through a Decider, the agent, when there is one), apply, project
the OKF metadata, re-check, and say for every claim what happened to it, and for every page the check could
not read, why."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Protocol

from ..claims.errors import Problem
from ..claims.results import BrokenReference
from ..claims.sidecar import Claim, Sidecar, page_version, parse_sidecar, render_sidecar
from ..claims.snippet import front_matter_moved, restated_for
from ..claims.track import reference_verdict
from ..claims.verdicts import Verdict
from ..okf.project import project_sources, project_verified, stamp_generated
from .check import Checked, Decision, reanchored
from .mentions import ReferenceOutcome, plan_rewrites
from .snippets import rewrite_snippets
from .view import CodeView
from .work import PageWork

LAST_UPDATE = ".last-update.json"
_COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1, or SHA-256 repositories
CodeBlocks = Callable[[str, str], Sequence[tuple[int, str]]]  # (page, text) → its code blocks (page line, text)
UNREADABLE_PAGE = "none of its claims could be checked"  # the statement of a page-level outcome


class Action(StrEnum):
    REANCHORED = "re-anchored"
    CONFIRMED = "confirmed"
    UPDATED = "updated"
    RETRACTED = "retracted"
    FLAGGED = "still flagged"


@dataclass(frozen=True)
class ClaimOutcome:
    page: str
    claim_id: str
    statement: str
    action: Action
    reason: str
    new_statement: str | None = None
    evidence_before: tuple[str, ...] = ()
    evidence_after: tuple[str, ...] = ()


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    reused: int = 0  # pages answered from earlier runs' answers, at no cost

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.reused += other.reused

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class PageDecisions:
    """What the agent settled for one page: accepted decisions and edits, and why the rest stays flagged."""

    checked: Checked | None
    flagged: dict[str, str] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)


class Decider(Protocol):
    model: str

    async def decide(self, work: PageWork, view: CodeView, wiki_dir: str) -> PageDecisions: ...


@dataclass
class FixResult:
    files: dict[str, bytes] = field(default_factory=dict)  # path → new content (only what changes)
    outcomes: list[ClaimOutcome] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    references: list[ReferenceOutcome] = field(default_factory=list)  # broken references: rewritten or left

    @property
    def flagged(self) -> list[ClaimOutcome]:
        return [o for o in self.outcomes if o.action is Action.FLAGGED]

    @property
    def references_left(self) -> list[ReferenceOutcome]:
        """The broken references that still fail the check: a person must correct their pages."""
        return [o for o in self.references if not o.rewritten]

    @property
    def needs_a_person(self) -> bool:
        """Whatever `check` would still fail on: a claim left flagged, or a broken reference not rewritten."""
        return bool(self.flagged or self.references_left)


def rewrite_references(
    result: FixResult,
    refs: Sequence[BrokenReference],
    read: Callable[[str], bytes],
    sidecars: Mapping[str, str],
    *,
    actor: str,
    at: str,
) -> None:
    """Rewrite in `result` the mentions of the references a rename broke (`plan_rewrites`), on the pages as the
    fix leaves them (read through `read` when the fix did not write them), and record what became of every
    broken reference that fails the check. A grounded page (`sidecars`: page → its sidecar) gets its sidecar's
    `pageVersion` and its `generated` stamp refreshed; a person's page only the line that changed."""
    pages = {ref.page for ref in refs if ref.attention}
    texts: dict[str, str] = {}
    for page in pages:
        data = result.files.get(page) or read(page)
        try:
            texts[page] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # not text: its references are left, and said
    rewritten, result.references = plan_rewrites(refs, texts)
    for page, text in rewritten.items():
        sidecar_path = sidecars.get(page)
        if sidecar_path is None:
            result.files[page] = text.encode("utf-8")
            continue
        content = stamp_generated(read(page).decode("utf-8", "replace"), text, actor, at).encode("utf-8")
        result.files[page] = content
        sidecar = parse_sidecar(result.files.get(sidecar_path) or read(sidecar_path), sidecar_path)
        refreshed = Sidecar(page_version(content), sidecar.claims, sidecar.verification)
        result.files[sidecar_path] = render_sidecar(refreshed)


async def _still_holds(claims: list[Claim], view: CodeView) -> bool:
    """The page's complete claim set re-checked against the head commit: every record fresh where it says."""
    for claim in claims:
        for record in claim.evidence:
            resolved = await view.resolve(record.resource)
            if isinstance(resolved, Problem):
                return False
            res, text = resolved
            if reference_verdict(res, record.version, text, res.path).verdict is not Verdict.FRESH:
                return False
    return True


def recorded_head(previous: bytes | None) -> str | None:
    """The commit `.last-update.json` says the wiki was last brought up to date with (`gitHead`), if any."""
    try:
        meta = json.loads(previous) if previous else None
    except ValueError:
        return None
    head = meta.get("gitHead") if isinstance(meta, dict) else None
    return head if isinstance(head, str) and _COMMIT_ID.fullmatch(head) else None


def records_last_update(previous: bytes | None, *, checked_since: str | None, complete: bool) -> bool:
    """Whether a fix may record its head as OpenWiki's `gitHead`, as OpenWiki does after a complete update.

    OpenWiki's next update looks only at what changed since `gitHead` (`git log <gitHead>..HEAD`) and surfaces a
    stale claim only on a page its agent happens to read: moving `gitHead` past the change that made a claim
    stale drops that claim from its view for good. So the file is written only when nothing is left needing
    attention and the check behind the fix saw every claim the commits since `gitHead` can have touched: every
    claim (`checked_since` None), or the change from `gitHead` itself. Otherwise it is left byte for byte, and
    never created: a repository without one has no OpenWiki update to speak for.
    """
    if previous is None or not complete:
        return False
    return checked_since is None or checked_since == recorded_head(previous)


def last_update(previous: bytes | None, *, at: str, head: str, model: str | None, complete: bool) -> bytes:
    """`.last-update.json` in OpenWiki's shape (key order, 2-space JSON and a newline), language kept."""
    language = "en"
    try:
        old = json.loads(previous) if previous else {}
        if isinstance(old, dict) and isinstance(old.get("language"), str) and old["language"].strip():
            language = old["language"]
    except ValueError:
        pass
    meta = {
        "updatedAt": at,
        "command": "update",
        "gitHead": head,
        "model": model or "none",
        "status": "complete" if complete else "interrupted",
        "language": language,
    }
    return (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode()


async def fix_wiki(
    work: list[PageWork],
    view: CodeView,
    decider: Decider | None,
    *,
    wiki_dir: str,
    actor: str,
    at: str,
    head: str,
    previous_last_update: bytes | None = None,
    cap: int | None = None,
    checked_since: str | None = None,
    unreadable_pages: Sequence[tuple[str, str]] = (),
    okf_wiki: bool = True,
    code_blocks: CodeBlocks | None = None,
) -> FixResult:
    """`checked_since`: the commit the check's change started at (None when it checked every claim);
    `unreadable_pages`: (page, why) for the pages whose sidecar the check could not use, reported as flagged;
    `code_blocks`: a page's code blocks (page line, text), when stale snippet claims are rewritten from the source
    without a model before anything else is decided."""
    result = FixResult(model=decider.model if decider else None)
    for page in work:
        rewritten = await rewrite_snippets(page, code_blocks(page.page, page.text), view) if code_blocks else None
        if rewritten is not None and rewritten.decisions:
            rest = [item for item in page.to_decide if item.claim.id not in rewritten.decisions]
            asked = replace(page, text=rewritten.text, to_decide=rest)
            decisions, text, flagged = await _decide(asked, view, decider, wiki_dir, cap, result.usage)
            decisions = {**rewritten.decisions, **decisions}
        else:
            decisions, text, flagged = await _decide(page, view, decider, wiki_dir, cap, result.usage)
        claims = _applied(page, decisions, flagged, result.outcomes)
        reconciled = bool(claims) and not flagged and await _still_holds(claims, view)
        _write_page(page, text, claims, reconciled, actor, at, result.files, okf_wiki)
    for page_path, problem in unreadable_pages:
        result.outcomes.append(ClaimOutcome(page_path, "", UNREADABLE_PAGE, Action.FLAGGED, problem))
    complete = not result.flagged
    if result.files and records_last_update(previous_last_update, checked_since=checked_since, complete=complete):
        result.files[f"{wiki_dir}/{LAST_UPDATE}"] = last_update(
            previous_last_update, at=at, head=head, model=result.model, complete=complete
        )
    return result


async def _decide(
    page: PageWork, view: CodeView, decider: Decider | None, wiki_dir: str, cap: int | None, usage: Usage
) -> tuple[Mapping[str, Decision], str, dict[str, str]]:
    """The page's accepted decisions and text (the decider's, when one settled it), and why each other claim that
    needs attention stays flagged."""
    decisions: Mapping[str, Decision] = {}
    flagged: dict[str, str] = {}
    text = page.text
    if page.to_decide:
        if page.problem is not None:  # its prose cannot be edited safely: nothing to ask a model
            for item in page.to_decide:
                flagged[item.claim.id] = f"{page.problem}: a person must fix the page first"
        elif decider is None:
            for item in page.to_decide:
                flagged[item.claim.id] = "no model is configured: a person must confirm, update or retract it"
        else:
            settled = await decider.decide(page, view, wiki_dir)
            usage.add(settled.usage)
            flagged.update(settled.flagged)
            if settled.checked is not None:
                decisions, text = settled.checked.decisions, settled.checked.text
    for item in page.errors:
        errors = [e.error for e in item.result.evidence if e.error] or [item.result.error or "unknown"]
        flagged[item.claim.id] = f"its evidence cannot be evaluated: {errors[0]}"
    for item in page.over_cap:
        flagged[item.claim.id] = f"left for the next run: at most {cap} claims are decided per run"
    for item in page.carried:
        flagged[item.claim.id] = (
            f"already {item.result.verdict} before this change: only what the change made stale is decided here"
        )
    return decisions, text, flagged


def _applied(
    page: PageWork, decisions: Mapping[str, Decision], flagged: dict[str, str], outcomes: list[ClaimOutcome]
) -> list[Claim]:
    """The page's claims once the decisions are applied and moved evidence re-anchored; what happened to each
    claim is added to `outcomes`."""
    claims: list[Claim] = []
    for claim in page.sidecar.claims:
        before = tuple(r.resource for r in claim.evidence)
        decision = decisions.get(claim.id)
        if decision is not None and claim.id not in flagged:
            action = {"confirm": Action.CONFIRMED, "update": Action.UPDATED}.get(decision.action, Action.RETRACTED)
            after = tuple(r.resource for r in decision.evidence)
            new_statement = decision.statement if decision.statement != claim.statement else None
            outcomes.append(
                ClaimOutcome(
                    page.page, claim.id, claim.statement, action, decision.reason, new_statement, before, after
                )
            )
            if action is not Action.RETRACTED:
                claims.append(Claim(claim.id, decision.statement, decision.evidence))
            continue
        records = reanchored(page, claim.id) or claim.evidence
        after = tuple(r.resource for r in records)
        # A snippet's statement names the file and lines it copies: they follow the evidence.
        statement = restated_for(claim.statement, after) if records != claim.evidence else claim.statement
        claims.append(Claim(claim.id, statement, records))
        if claim.id in flagged:
            reason = flagged[claim.id]
            outcomes.append(
                ClaimOutcome(page.page, claim.id, claim.statement, Action.FLAGGED, reason, None, before, after)
            )
        elif records != claim.evidence:
            reason = "the same text stands elsewhere now; only its location (or line endings) changed"
            outcomes.append(
                ClaimOutcome(page.page, claim.id, claim.statement, Action.REANCHORED, reason, None, before, after)
            )
    return claims


def _write_page(
    page: PageWork,
    text: str,
    claims: list[Claim],
    reconciled: bool,
    actor: str,
    at: str,
    files: dict[str, bytes],
    okf_wiki: bool = True,
) -> None:
    """The page (its OKF `sources`, `generated` and `verified` projected) and its sidecar, into `files` when they
    change; a page whose text cannot be edited safely is left byte for byte, only its sidecar re-anchored. Outside
    an OKF wiki (`okf_wiki` false: a person's docs site) its front matter is left as written (`bot.ground.writing`)."""
    if page.problem is None:
        if okf_wiki:
            edited = text
            text = project_sources(text, [r.resource for c in claims for r in c.evidence])
            text = stamp_generated(page.text, text, actor, at)
            text = project_verified(text, (actor, at) if reconciled else None)
            claims = front_matter_moved(claims, edited, text)  # a copied block's page line moves with the front matter
        content = text.encode("utf-8")
    else:
        text, content = page.text, page.data or page.text.encode()
    # `verification` stays OpenWiki's own record (see ground/build.py): Wikiwarden's word is its `verified` event.
    verification = page.sidecar.verification
    sidecar = Sidecar(page_version(content), tuple(claims), verification if claims else None)
    if text != page.text:
        files[page.page] = content
    if sidecar != page.sidecar:
        files[page.sidecar_path] = render_sidecar(sidecar)

"""The follow-up pull requests, decided without I/O: their branch, their marker, who owns the branch, what to
do with it (open, update in place, leave unchanged, hand over, respect a decline), the fix's title and body,
and what the check run says about it. `api/publish.py` carries the decision out.

A fix and a grounding are two kinds of proposal (`ProposalKind`) with one set of rules; only their branch
folder, their marker and their words differ (the grounding's title and body are in `ground_pull_request.py`).

- The branch is `wikiwarden/fix/<target>` (`wikiwarden/ground/<target>`); the commit is one commit over the
  checked commit, and the branch is the bot's only while every commit it adds is the App's own. Once a person
  commits there, it is theirs.
- A fix whose files are already on the branch changes nothing (no commit, no ref move, no edit).
- One open pull request per branch, updated in place; a pull request closed without merging is never
  reopened, and a fix identical to one closed that way is not proposed again. After a merge, the next fix
  opens a new pull request on the same branch.
- The body carries a marker with the commit the fix's change started from, so the next fix of the same
  branch covers both changes while the pull request is open.
- Every untrusted string (the branch, a committer's name, statements, the model's reasons) goes through
  `bot.report.inert`: `plain` in the title (it is also the commit's message), `code` and `prose` in the body
  and in what the check run says (`FixStatus.text` is Markdown, inert by construction).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import quote

from ...claims.resources import parse_resource
from ...claims.snapshot import git_blob_id
from ...fix.engine import Action, FixResult
from ...report.fix import Link, pull_request_body
from ...report.inert import code, plain, prose
from ...report.wording import plural
from ...source.github import TreeEntry

_MARKER = re.compile(
    r"<!-- wikiwarden:(?P<kind>[a-z]+) since=(?P<since>[0-9a-f]{40}|none) change=(?P<change>[0-9a-f]{16,64}) -->"
)


@dataclass(frozen=True)
class ProposalKind:
    """A kind of follow-up pull request: its branch folder and marker (`name`), and how the check run names it."""

    name: str  # `fix`: `wikiwarden/fix/<target>`, `<!-- wikiwarden:fix ... -->`
    noun: str  # "fix", "grounding"
    plural: str
    by_hand: str  # what a person can do instead, once a proposal was declined

    @property
    def prefix(self) -> str:
        return f"wikiwarden/{self.name}/"

    def branch_for(self, target: str) -> str:
        return self.prefix + target

    def marker(self, since: str | None, change: str) -> str:
        return f"<!-- wikiwarden:{self.name} since={since or 'none'} change={change} -->"

    def read_marker(self, body: str | None) -> tuple[str | None, str] | None:
        """(since, change) of a body Wikiwarden wrote for this kind of proposal, or None."""
        for found in _MARKER.finditer(body or ""):
            if found["kind"] == self.name:
                since = found["since"]
                return (None if since == "none" else since), found["change"]
        return None

    @property
    def fork(self) -> str:
        """Why a fork's pull request gets no proposal."""
        return (
            f"This pull request comes from a fork: Wikiwarden cannot push to a fork's branch, so it proposes no "
            f"{self.noun} here. Once the pull request is merged, the default branch's check offers the {self.noun}."
        )


FIX = ProposalKind(
    "fix", "fix", "fixes", "Correct the claims by hand (`wikiwarden claim confirm` / `retract`) or reopen it."
)
GROUND = ProposalKind(
    "ground",
    "grounding",
    "groundings",
    "Ground the pages by hand (`wikiwarden ground --dry-run` lists the evidence for `wikiwarden claim add`) or "
    "reopen it.",
)
FIX_PREFIX = FIX.prefix
FORK = FIX.fork


def fix_branch_for(target: str) -> str:
    return FIX.branch_for(target)


def marker(since: str | None, change: str) -> str:
    return FIX.marker(since, change)


def read_marker(body: str | None) -> tuple[str | None, str] | None:
    """(since, change) of a fix's body Wikiwarden wrote, or None."""
    return FIX.read_marker(body)


def change_key(result: FixResult) -> str:
    """What the fix decides, without its timestamps, reasons or costs: equal keys are the same proposal."""
    decided = sorted(
        (o.page, o.claim_id, o.action.value, o.new_statement or "", list(o.evidence_after)) for o in result.outcomes
    )
    return hashlib.sha256(json.dumps(decided).encode()).hexdigest()[:32]


@dataclass
class BranchState:
    """A proposal's branch and its pull requests as they stand."""

    name: str
    sha: str | None = None
    person: str | None = None  # someone other than the App committed to the branch: it is theirs now
    open_pull: dict[str, Any] | None = None
    closed_pulls: list[dict[str, Any]] = field(default_factory=list)
    kind: ProposalKind = FIX

    @property
    def since(self) -> str | None:
        """Where the open pull request's change started (the next fix covers it too)."""
        found = self.kind.read_marker((self.open_pull or {}).get("body"))
        return found[0] if found else None

    @property
    def may_hold_fix(self) -> bool:
        """Whether the branch may already hold the fix, so its tree is worth comparing (an open pull request's
        branch the bot still owns)."""
        return self.sha is not None and self.open_pull is not None and self.person is None

    def declined(self, change: str) -> dict[str, Any] | None:
        """A pull request of this very change that was closed without merging."""
        for pull in self.closed_pulls:
            found = self.kind.read_marker(pull.get("body"))
            if found and found[1] == change and not pull.get("merged_at"):
                return pull
        return None


Outcome = Literal["opened", "updated", "unchanged", "handed-off", "declined"]


@dataclass(frozen=True)
class PublicationPlan:
    """What to do with the fix branch and its pull request."""

    outcome: Outcome
    pull: dict[str, Any] | None = None  # the pull request to update or to point at
    create_branch: bool = False  # the branch does not exist yet: create it (else force-move it)

    @property
    def writes(self) -> bool:
        return self.outcome in ("opened", "updated")


def holds_fix(
    fixed_tree: Mapping[str, TreeEntry], branch_tree: Mapping[str, TreeEntry], files: Mapping[str, bytes]
) -> bool:
    """Whether the branch already holds exactly the fixed commit's tree with these files (blob ids compared
    locally: no write, no upload)."""
    wanted = {path: entry.sha for path, entry in fixed_tree.items()}
    wanted.update({path: git_blob_id(content) for path, content in files.items()})
    return wanted == {path: entry.sha for path, entry in branch_tree.items()}


def plan_publication(state: BranchState, change: str, *, holds: bool = False) -> PublicationPlan:
    """The decision, from the branch's state and this fix's change key (`holds`: the branch already holds the
    fix, worth asking only when `state.may_hold_fix`)."""
    if state.person:
        return PublicationPlan("handed-off", state.open_pull)
    declined = state.declined(change)
    if declined is not None and state.open_pull is None:
        return PublicationPlan("declined", declined)
    if state.open_pull is not None:
        if holds and state.may_hold_fix:
            return PublicationPlan("unchanged", state.open_pull)
        return PublicationPlan("updated", state.open_pull, create_branch=state.sha is None)
    return PublicationPlan("opened", None, create_branch=state.sha is None)  # first time, or after a merge


# -- what the pull request and the check run say ---------------------------------------------------------


@dataclass(frozen=True)
class ProposalStatus:
    """What the check run says about a fix or a grounding (inert Markdown), and where the pull request is."""

    text: str
    url: str | None = None


FixStatus = ProposalStatus


def iso_time(date: str) -> str:
    """A commit date as OpenWiki writes times (`toISOString`): the fix's deterministic "now"."""
    when = datetime.fromisoformat(date.replace("Z", "+00:00"))
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def evidence_links(html_url: str | None, before: str | None, now: str) -> Link | None:
    """Links to evidence at the change's start ("before") and at the fixed commit ("now")."""
    if not html_url:
        return None

    def link(resource: str, when: str) -> str | None:
        commit = before if when == "before" else now
        if commit is None:
            return None
        try:
            res = parse_resource(resource)
        except ValueError:
            return None
        lines = f"#L{res.start}-L{res.end}" if res.start is not None else ""
        return f"{html_url}/blob/{commit}/{quote(res.path)}{lines}"

    return link


def counts(result: FixResult) -> str:
    found = [(a, sum(1 for o in result.outcomes if o.action is a)) for a in Action]
    return ", ".join(f"{n} {a.value}" for a, n in found if n) or "nothing to change"


def flagged_reasons(result: FixResult) -> str:
    """Why the first claims still need a person, as inert Markdown."""
    return " ".join(f"{code(o.page)}: “{prose(o.statement)}” ({prose(o.reason)})." for o in result.flagged[:10])


def proposal(
    result: FixResult, *, target: str, fixed: str, since: str | None, links: Link | None
) -> tuple[str, str, str]:
    """The fix's change key, the pull request's title and its body."""
    key = change_key(result)
    body = pull_request_body(
        result, heading=f"Wikiwarden: the wiki, true to {code(target)} again", marker=marker(since, key), link=links
    )
    title = f"Wiki: {counts(result)} after {plain(target)} {fixed[:7]}"[:250]
    return key, title, body


def describe(plan: PublicationPlan, pull: Mapping[str, Any] | None, state: BranchState, result: FixResult) -> FixStatus:
    """What the check run says once the fix's plan is carried out (`pull`: the pull request it ended with)."""
    flagged = len(result.flagged)
    tail = " " + plural(flagged, "claim still needs a person.", "claims still need a person.") if flagged else ""
    return announce(plan, pull, state, counts(result), tail)


def announce(
    plan: PublicationPlan, pull: Mapping[str, Any] | None, state: BranchState, done: str, tail: str = ""
) -> ProposalStatus:
    """What the check run says once a plan is carried out, for either kind of proposal: `done` counts what the
    proposal does and `tail` says what is left (both inert Markdown already)."""
    kind = state.kind
    pull = pull or {}
    number, url = pull.get("number"), pull.get("html_url")
    if plan.outcome == "handed-off":
        return ProposalStatus(
            f"The branch {code(state.name)} has commits by {prose(state.person or 'someone')}, so Wikiwarden no "
            "longer updates it"
            + (f" (#{number})" if number else "")
            + f". Merge or close that work, or delete the branch, and Wikiwarden will propose {kind.plural} again.",
            url,
        )
    if plan.outcome == "declined":
        return ProposalStatus(
            f"This very {kind.noun} was proposed in #{number} and closed without merging; Wikiwarden does not "
            f"propose it again. {kind.by_hand}",
            url,
        )
    verb = {"opened": "opened:", "updated": "updated:", "unchanged": f"already holds this {kind.noun}:"}[plan.outcome]
    return ProposalStatus(f"{kind.noun.capitalize()} pull request #{number} {verb} {done}.{tail}", url)

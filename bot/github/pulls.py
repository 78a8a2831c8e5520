"""The follow-up pull request: the fix as one commit on a branch the bot owns, and one open pull request for it.

- The branch is `wikiwarden/fix/<target>`; the commit is built with the Git Data API (a tree over the fixed
  commit's tree, a commit whose parent is that commit) and the branch force-moved to it, but only while every
  commit the branch adds is the App's own. Once a person commits there, the bot leaves the branch alone.
- A fix whose files are already on the branch changes nothing (no commit, no ref move, no edit).
- One open pull request per branch, updated in place; a pull request closed without merging is never
  reopened, and a fix identical to one closed that way is not proposed again.
- The body carries a marker with the commit the fix's change started from, so the next fix of the same
  branch covers both changes while the pull request is open.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gidgethub import BadRequest

from ..fix.engine import FixResult
from ..source.github import GitHubRepo, TreeEntry, git_blob_id
from .client import GitHubClient

FIX_PREFIX = "wikiwarden/fix/"
_MARKER = re.compile(r"<!-- wikiwarden:fix since=(?P<since>[0-9a-f]{40}|none) change=(?P<change>[0-9a-f]{16,64}) -->")


def fix_branch_for(target: str) -> str:
    return FIX_PREFIX + target


def marker(since: str | None, change: str) -> str:
    return f"<!-- wikiwarden:fix since={since or 'none'} change={change} -->"


def read_marker(body: str | None) -> tuple[str | None, str] | None:
    """(since, change) of a body Wikiwarden wrote, or None."""
    found = _MARKER.search(body or "")
    if found is None:
        return None
    since = found["since"]
    return (None if since == "none" else since), found["change"]


def change_key(result: FixResult) -> str:
    """What the fix decides, without its timestamps, reasons or costs: equal keys are the same proposal."""
    decided = sorted(
        (o.page, o.claim_id, o.action.value, o.new_statement or "", list(o.evidence_after)) for o in result.outcomes
    )
    return hashlib.sha256(json.dumps(decided).encode()).hexdigest()[:32]


@dataclass
class BranchState:
    """The fix branch and its pull requests as they stand."""

    name: str
    sha: str | None = None
    person: str | None = None  # someone other than the App committed to the branch: it is theirs now
    open_pull: dict[str, Any] | None = None
    closed_pulls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def since(self) -> str | None:
        """Where the open pull request's change started (the next fix covers it too)."""
        found = read_marker((self.open_pull or {}).get("body"))
        return found[0] if found else None

    def declined(self, change: str) -> dict[str, Any] | None:
        """A pull request of this very change that was closed without merging."""
        for pull in self.closed_pulls:
            found = read_marker(pull.get("body"))
            if found and found[1] == change and not pull.get("merged_at"):
                return pull
        return None


@dataclass(frozen=True)
class Published:
    outcome: str  # opened, updated, unchanged, handed-off, declined
    pull: dict[str, Any] | None = None


def _login(user: Any) -> str | None:
    return user.get("login") if isinstance(user, dict) else None


async def inspect_branch(gh: GitHubClient, repo: str, name: str, fixed: str, bot_login: str) -> BranchState:
    """Who owns the fix branch (commits it adds over `fixed` not made by the App), and its pull requests."""
    owner, short = repo.split("/", 1)
    state = BranchState(name)
    try:
        ref = await gh.getitem(
            "/repos/{owner}/{repo}/git/ref/{ref}", url_vars={"owner": owner, "repo": short, "ref": f"heads/{name}"}
        )
        state.sha = ref["object"]["sha"]
    except BadRequest as exc:
        if int(exc.status_code) != 404:
            raise
    if state.sha is not None and state.sha != fixed:
        try:
            compared = await gh.getitem(
                "/repos/{owner}/{repo}/compare/{basehead}",
                url_vars={"owner": owner, "repo": short, "basehead": f"{fixed}...{state.sha}"},
            )
            commits = compared.get("commits") or []
        except BadRequest as exc:
            if int(exc.status_code) != 404:
                raise
            commits, state.person = [], "someone (the branch no longer shares history with the code)"
        for commit in commits:
            for role in ("author", "committer"):
                login = _login(commit.get(role))
                if login != bot_login:
                    state.person = login or (commit.get("commit") or {}).get(role, {}).get("name") or "someone"
                    break
            if state.person:
                break
    pulls = await gh.getitem(
        "/repos/{owner}/{repo}/pulls{?head,state,sort,direction}",
        url_vars={
            "owner": owner, "repo": short, "head": f"{owner}:{name}", "state": "all", "sort": "created",
            "direction": "desc",
        },
    )  # fmt: skip
    for pull in pulls:
        if pull.get("state") == "open" and state.open_pull is None:
            state.open_pull = pull
        elif pull.get("state") == "closed":
            state.closed_pulls.append(pull)
    return state


def _unchanged(fixed_tree: dict[str, TreeEntry], branch_tree: dict[str, TreeEntry], files: Mapping[str, bytes]) -> bool:
    """Whether the branch already holds exactly the fixed commit's tree with these files (blob ids compared
    locally: no write, no upload)."""
    wanted = {path: entry.sha for path, entry in fixed_tree.items()}
    wanted.update({path: git_blob_id(content) for path, content in files.items()})
    return wanted == {path: entry.sha for path, entry in branch_tree.items()}


async def publish_fix(
    gh: GitHubClient,
    repo: GitHubRepo,
    state: BranchState,
    *,
    target: str,
    fixed: str,
    fixed_tree: str,
    files: Mapping[str, bytes],
    title: str,
    body: str,
    change: str,
) -> Published:
    """Put `files` on the fix branch as one commit over `fixed`, and open or update its pull request."""
    if state.person:
        return Published("handed-off", state.open_pull)
    declined = state.declined(change)
    if declined is not None and state.open_pull is None:
        return Published("declined", declined)
    owner, name = repo.owner, repo.name
    url_vars = {"owner": owner, "repo": name}
    tree = await repo.tree(fixed)
    if state.sha is not None and state.open_pull is not None and _unchanged(tree, await repo.tree(state.sha), files):
        return Published("unchanged", state.open_pull)

    entries = [
        {
            "path": path,
            "mode": tree[path].mode if path in tree else "100644",
            "type": "blob",
            "content": content.decode(),
        }
        for path, content in sorted(files.items())
    ]
    new_tree = await gh.post(
        "/repos/{owner}/{repo}/git/trees", url_vars=url_vars, data={"base_tree": fixed_tree, "tree": entries}
    )
    commit = await gh.post(
        "/repos/{owner}/{repo}/git/commits",
        url_vars=url_vars,
        data={
            "message": title + "\n\nProposed by Wikiwarden: see the pull request.",
            "tree": new_tree["sha"],
            "parents": [fixed],
        },
    )
    ref_vars = {**url_vars, "ref": f"heads/{state.name}"}
    if state.sha is None:
        try:
            await gh.post(
                "/repos/{owner}/{repo}/git/refs",
                url_vars=url_vars,
                data={"ref": f"refs/heads/{state.name}", "sha": commit["sha"]},
            )
        except BadRequest as exc:
            if int(exc.status_code) != 422:
                raise
            raise BranchRace(state.name) from exc  # created meanwhile: the caller inspects it again
    else:
        await gh.patch(
            "/repos/{owner}/{repo}/git/refs/{ref}", url_vars=ref_vars, data={"sha": commit["sha"], "force": True}
        )

    if state.open_pull is not None:
        pull = await gh.patch(
            "/repos/{owner}/{repo}/pulls/{number}",
            url_vars={**url_vars, "number": str(state.open_pull["number"])},
            data={"title": title, "body": body},
        )
        return Published("updated", pull)
    try:
        pull = await gh.post(
            "/repos/{owner}/{repo}/pulls",
            url_vars=url_vars,
            data={"title": title, "head": state.name, "base": target, "body": body},
        )
    except BadRequest as exc:
        if int(exc.status_code) != 422:
            raise
        existing = await gh.getitem(
            "/repos/{owner}/{repo}/pulls{?head,state}",
            url_vars={**url_vars, "head": f"{owner}:{state.name}", "state": "open"},
        )
        if not existing:
            raise
        pull = await gh.patch(
            "/repos/{owner}/{repo}/pulls/{number}",
            url_vars={**url_vars, "number": str(existing[0]["number"])},
            data={"title": title, "body": body},
        )
        return Published("updated", pull)
    return Published("opened", pull)


class BranchRace(Exception):
    """The fix branch appeared between looking and creating it (another job, or a person)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the branch {name} was created by someone else meanwhile")
        self.name = name

"""Carrying out a publication plan (`content/pull_requests.py` decides): read a proposal's branch state, then write
the one commit with the Git Data API, move the branch, and open or update the pull request. The fix and the
grounding both publish through `propose`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gidgethub import BadRequest

from ...source.github import GitHubSource, tree_diff
from ..content.pull_requests import FIX, BranchState, ProposalKind, PublicationPlan, holds_fix, plan_publication
from .client import GitHubClient


class BranchRace(Exception):
    """The proposal's branch appeared between looking and creating it (another job, or a person)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the branch {name} was created by someone else meanwhile")
        self.name = name


def _login(user: Any) -> str | None:
    return user.get("login") if isinstance(user, dict) else None


async def inspect_branch(
    gh: GitHubClient, repo: str, name: str, fixed: str, bot_login: str, kind: ProposalKind = FIX
) -> BranchState:
    """Who owns the proposal's branch (commits it adds over `fixed` not made by the App), and its pull requests."""
    owner, short = repo.split("/", 1)
    state = BranchState(name, kind=kind)
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


async def publish(
    gh: GitHubClient,
    source: GitHubSource,
    state: BranchState,
    plan: PublicationPlan,
    *,
    target: str,
    fixed: str,
    fixed_tree: str,
    files: Mapping[str, bytes],
    title: str,
    body: str,
) -> tuple[PublicationPlan, dict[str, Any] | None]:
    """Carry out `plan`: `files` as one commit over `fixed` on the fix branch, and its pull request opened or
    updated. Returns the plan as carried out (a pull request found open meanwhile is updated) and the pull
    request it ended with."""
    if not plan.writes:
        return plan, plan.pull
    url_vars = {"owner": source.owner, "repo": source.name}
    tree = await source.tree(fixed)
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
    if plan.create_branch:
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
            "/repos/{owner}/{repo}/git/refs/{ref}",
            url_vars={**url_vars, "ref": f"heads/{state.name}"},
            data={"sha": commit["sha"], "force": True},
        )

    if plan.pull is not None:
        return plan, await _edit(gh, url_vars, plan.pull["number"], title, body)
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
            url_vars={**url_vars, "head": f"{source.owner}:{state.name}", "state": "open"},
        )
        if not existing:
            raise
        updated = await _edit(gh, url_vars, existing[0]["number"], title, body)
        return PublicationPlan("updated", updated), updated
    return plan, pull


async def _edit(gh: GitHubClient, url_vars: dict[str, str], number: int, title: str, body: str) -> dict[str, Any]:
    edited: dict[str, Any] = await gh.patch(
        "/repos/{owner}/{repo}/pulls/{number}",
        url_vars={**url_vars, "number": str(number)},
        data={"title": title, "body": body},
    )
    return edited


async def propose(
    gh: GitHubClient,
    source: GitHubSource,
    state: BranchState,
    *,
    key: str,
    files: Mapping[str, bytes],
    title: str,
    body: str,
    target: str,
    fixed: str,
    fixed_tree: str,
    bot_login: str,
) -> tuple[PublicationPlan, dict[str, Any] | None, BranchState]:
    """Decide and carry out a proposal (`key`: what it proposes, for the no-reproposal rule): nothing when the
    branch already holds exactly these files, else one commit and its pull request. A branch created meanwhile
    is inspected again, once. Returns the plan carried out, the pull request and the branch's state."""
    for attempt in range(2):
        holds = False
        if state.may_hold_fix and state.sha is not None:
            holds = holds_fix(await source.tree(fixed), await source.tree(state.sha), files)
        plan = plan_publication(state, key, holds=holds)
        try:
            done, pull = await publish(
                gh, source, state, plan, target=target, fixed=fixed, fixed_tree=fixed_tree, files=files,
                title=title, body=body,
            )  # fmt: skip
            return done, pull, state
        except BranchRace:
            if attempt:
                raise
            state = await inspect_branch(gh, source.full_name, state.name, fixed, bot_login, state.kind)
    raise AssertionError("unreachable")


async def proposed_paths(gh: GitHubClient, source: GitHubSource, state: BranchState) -> set[str]:
    """The paths the open pull request's own commit changes (the bot's one commit over the commit it was made
    on), so a later proposal can keep proposing them; nothing when the branch is not the bot's open one."""
    if not state.may_hold_fix or state.sha is None:
        return set()
    commit = await gh.getitem(
        "/repos/{owner}/{repo}/git/commits/{sha}",
        url_vars={"owner": source.owner, "repo": source.name, "sha": state.sha},
    )
    parents = commit.get("parents") or []
    if len(parents) != 1:
        return set()
    before, after = await source.tree(parents[0]["sha"]), await source.tree(state.sha)
    return {path for change in tree_diff(before, after) for path in (change.old_path, change.new_path) if path}

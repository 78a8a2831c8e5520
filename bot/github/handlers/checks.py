"""`check_suite` / `check_run` re-requested (a person asked for the check again) and `requested_action`
(the Fix wiki button)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gidgethub.routing import Router
from gidgethub.sansio import Event

from ...jobs import Job
from ...jobs.requests import CheckRequest, FixRequest
from ..checks import CHECK_NAME, FIX_ACTION
from .fields import repo_ref

if TYPE_CHECKING:
    from .context import WebhookContext

router = Router()
ZERO_SHA = "0" * 40


def _change(repo: dict[str, Any], suite: dict[str, Any]) -> dict[str, Any]:
    """What a check suite's commit changed: a same-repository pull request's change (from its base), else the
    push's (from `before`); `target` is the branch a fix goes to, None for a fork (whose branch GitHub hides)."""
    pulls = suite.get("pull_requests") or []
    same_repo = [p for p in pulls if ((p.get("base") or {}).get("repo") or {}).get("id") == repo["id"]]
    if same_repo:
        pull = same_repo[0]
        return {
            "base": pull["base"]["sha"],
            "base_label": pull["base"]["ref"],
            "pr_number": pull["number"],
            "target": (pull.get("head") or {}).get("ref") or suite.get("head_branch"),
            "key": f"pr:{pull['number']}",
        }
    before = suite.get("before") or ZERO_SHA
    base = None if before == ZERO_SHA else before
    branch = suite.get("head_branch")
    return {
        "base": base,
        "base_label": before[:12] if base else None,
        "pr_number": None,
        "target": branch,
        "key": f"branch:{branch}",
    }


def _recheck(data: dict[str, Any], suite: dict[str, Any], delivery: str) -> Job:
    change = _change(data["repository"], suite)
    request = CheckRequest(
        repo=repo_ref(data),
        head_sha=suite["head_sha"],
        base=change["base"],
        base_label=change["base_label"],
        merge_base=True,
        new_run=True,  # GitHub asks for a new check run when one is re-requested
    )
    return Job(f"{data['repository']['id']}:{change['key']}", delivery, request)


@router.register("check_suite", action="rerequested")
async def on_suite_rerequested(event: Event, ctx: WebhookContext) -> None:
    await ctx.enqueue(_recheck(event.data, event.data["check_suite"], ctx.delivery))


@router.register("check_run", action="rerequested")
async def on_run_rerequested(event: Event, ctx: WebhookContext) -> None:
    run = event.data["check_run"]
    if run.get("name") == CHECK_NAME:
        await ctx.enqueue(_recheck(event.data, {**run["check_suite"], "head_sha": run["head_sha"]}, ctx.delivery))


@router.register("check_run", action="requested_action")
async def on_requested_action(event: Event, ctx: WebhookContext) -> None:
    data = event.data
    run = data["check_run"]
    if (data.get("requested_action") or {}).get("identifier") != FIX_ACTION["identifier"]:
        return
    suite = {**(run.get("check_suite") or {}), "pull_requests": run.get("pull_requests") or []}
    change = _change(data["repository"], suite)
    target = change["target"]
    request = FixRequest(
        repo=repo_ref(data),
        head_sha=run["head_sha"],
        check_run_id=run["id"],
        target=target,
        base=change["base"],
        base_label=change["base_label"],
        merge_base=True,
        pr_number=change["pr_number"],
        requested_by=(data.get("sender") or {}).get("login"),
    )
    await ctx.enqueue(Job(f"{data['repository']['id']}:fix:{target or run['head_sha']}", ctx.delivery, request))

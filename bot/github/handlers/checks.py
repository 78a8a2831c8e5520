"""`check_suite` / `check_run` re-requested (a person asked for the check again) and `requested_action`
(the Fix wiki button)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gidgethub.routing import Router
from gidgethub.sansio import Event

from ...jobs import Job
from ..checks import CHECK_NAME, FIX_ACTION

if TYPE_CHECKING:
    from . import WebhookContext

router = Router()
ZERO_SHA = "0" * 40


def _recheck(data: dict[str, Any], suite: dict[str, Any], delivery: str) -> Job:
    repo = data["repository"]
    pulls = suite.get("pull_requests") or []
    same_repo = [p for p in pulls if ((p.get("base") or {}).get("repo") or {}).get("id") == repo["id"]]
    if same_repo:
        base, label, key = same_repo[0]["base"]["sha"], same_repo[0]["base"]["ref"], f"pr:{same_repo[0]['number']}"
    else:
        before = suite.get("before") or ZERO_SHA
        base = None if before == ZERO_SHA else before
        label, key = (before[:12] if base else None), f"branch:{suite.get('head_branch')}"
    return Job(
        kind="check",
        key=f"{repo['id']}:{key}",
        delivery=delivery,
        data={
            "installation_id": data["installation"]["id"],
            "repo": repo["full_name"],
            "head_sha": suite["head_sha"],
            "base": base,
            "base_label": label,
            "merge_base": True,
            "new_run": True,  # GitHub asks for a new check run when one is re-requested
        },
    )


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
    repo = data["repository"]
    pulls = run.get("pull_requests") or []
    await ctx.enqueue(
        Job(
            kind="fix",
            key=f"{repo['id']}:fix:{run['head_sha']}",
            delivery=ctx.delivery,
            data={
                "installation_id": data["installation"]["id"],
                "repo": repo["full_name"],
                "head_sha": run["head_sha"],
                "check_run_id": run["id"],
                "pr_number": pulls[0]["number"] if pulls else None,
                "requested_by": (data.get("sender") or {}).get("login"),
            },
        )
    )

"""`pull_request` opened, synchronize, reopened: check what the pull request does to the wiki."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gidgethub.routing import Router
from gidgethub.sansio import Event

from ...jobs import Job
from ...jobs.requests import CheckRequest
from .fields import repo_ref

if TYPE_CHECKING:
    from .context import WebhookContext

router = Router()


@router.register("pull_request", action="opened")
@router.register("pull_request", action="synchronize")
@router.register("pull_request", action="reopened")
async def on_pull_request(event: Event, ctx: WebhookContext) -> None:
    data = event.data
    pull = data["pull_request"]
    repo = data["repository"]
    head_repo = (pull.get("head") or {}).get("repo") or {}
    fork = head_repo.get("full_name") != repo["full_name"]
    request = CheckRequest(
        repo=repo_ref(data),
        head_sha=pull["head"]["sha"],
        head_label=f"#{pull['number']} ({pull['head']['sha'][:12]})",
        base=pull["base"]["sha"],
        base_label=pull["base"]["ref"],
        merge_base=True,
        pr_number=pull["number"],
        branch=pull["head"]["ref"],
        fork=fork,
    )
    await ctx.enqueue(Job(f"{repo['id']}:pr:{pull['number']}", ctx.delivery, request))

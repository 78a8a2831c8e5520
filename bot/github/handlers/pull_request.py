"""`pull_request` opened, synchronize, reopened: check what the pull request does to the wiki."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...jobs import Job
from ...jobs.requests import CheckRequest
from .fields import repo_ref
from ..payloads import PullRequestEvent
from .routing import Routes

if TYPE_CHECKING:
    from .context import WebhookContext

routes = Routes()


@routes.register("pull_request", "opened", "synchronize", "reopened", model=PullRequestEvent)
async def on_pull_request(event: PullRequestEvent, ctx: WebhookContext) -> None:
    pull, repo = event.pull_request, event.repository
    fork = pull.head.repo is None or pull.head.repo.full_name != repo.full_name
    request = CheckRequest(
        repo=repo_ref(event),
        head_sha=pull.head.sha,
        head_label=f"#{pull.number} ({pull.head.sha[:12]})",
        base=pull.base.sha,
        base_label=pull.base.ref,
        merge_base=True,
        pr_number=pull.number,
        branch=pull.head.ref,
        fork=fork,
    )
    await ctx.enqueue(Job(f"{repo.id}:pr:{pull.number}", ctx.delivery, request))

"""`pull_request` opened, synchronize, reopened: check what the pull request does to the wiki."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...jobs import Job
from ...jobs.requests import CheckRequest
from ..events import pull_request_change
from ..payloads import PullRequestEvent
from .fields import repo_ref
from .routing import Routes

if TYPE_CHECKING:
    from .context import WebhookContext

routes = Routes()


@routes.register("pull_request", "opened", "synchronize", "reopened", model=PullRequestEvent)
async def on_pull_request(event: PullRequestEvent, ctx: WebhookContext) -> None:
    repo = event.repository
    change = pull_request_change(event.pull_request, repo.full_name)
    request = CheckRequest(
        repo=repo_ref(event),
        head_sha=change.head,
        head_label=change.head_label,
        base=change.base,
        base_label=change.base_label,
        merge_base=change.merge_base,
        pr_number=change.pr_number,
        branch=change.branch,
        fork=change.fork,
    )
    await ctx.enqueue(Job(f"{repo.id}:pr:{change.pr_number}", ctx.delivery, request))

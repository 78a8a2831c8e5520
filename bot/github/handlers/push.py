"""`push`: a branch moved; check what its new commits did to the wiki. Tags and deletions are ignored."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...jobs import Job
from ...jobs.requests import CheckRequest
from ..events import Skipped, push_change
from ..payloads import PushEvent
from .fields import repo_ref
from .routing import Routes

if TYPE_CHECKING:
    from .context import WebhookContext

routes = Routes()


@routes.register("push", model=PushEvent)
async def on_push(push: PushEvent, ctx: WebhookContext) -> None:
    repo = push.repository
    change = push_change(push, repo.default_branch)
    if isinstance(change, Skipped):
        return
    branch = change.branch
    request = CheckRequest(
        repo=repo_ref(push),
        head_sha=change.head,
        head_label=change.head_label,
        base=change.base,
        base_label=change.base_label,
        merge_base=change.merge_base,
        branch=branch,
        # A branch with an open pull request is checked against the pull request's base, so the push and
        # the pull request events agree on one check run.
        prefer_pull_request=branch != repo.default_branch,
        default_branch=branch == repo.default_branch,
    )
    await ctx.enqueue(Job(f"{repo.id}:branch:{branch}", ctx.delivery, request))

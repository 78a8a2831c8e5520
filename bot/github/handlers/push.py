"""`push`: a branch moved; check what its new commits did to the wiki. Tags and deletions are ignored."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...jobs import Job
from ...jobs.requests import CheckRequest
from .fields import repo_ref
from ..payloads import PushEvent
from .routing import Routes

if TYPE_CHECKING:
    from .context import WebhookContext

routes = Routes()
ZERO_SHA = "0" * 40


@routes.register("push", model=PushEvent)
async def on_push(push: PushEvent, ctx: WebhookContext) -> None:
    if not push.ref.startswith("refs/heads/") or push.deleted or push.after == ZERO_SHA:
        return  # a tag, or a deleted branch: nothing to check
    branch = push.ref.removeprefix("refs/heads/")
    repo = push.repository
    default = repo.default_branch
    before, after = push.before, push.after
    if push.created or before == ZERO_SHA:
        # A new branch: its own commits, i.e. from where it left the default branch (nothing to compare
        # with when the default branch itself is new: every claim is checked).
        base, merge_base, base_label = (default, True, default) if branch != default else (None, True, None)
    elif push.forced:
        base, merge_base, base_label = before, False, f"before the force-push ({before[:12]})"  # tree to tree
    else:
        base, merge_base, base_label = before, True, before[:12]
    request = CheckRequest(
        repo=repo_ref(push),
        head_sha=after,
        head_label=f"{branch} ({after[:12]})",
        base=base,
        base_label=base_label,
        merge_base=merge_base,
        branch=branch,
        # A branch with an open pull request is checked against the pull request's base, so the push and
        # the pull request events agree on one check run.
        prefer_pull_request=branch != default,
        default_branch=branch == default,
    )
    await ctx.enqueue(Job(f"{repo.id}:branch:{branch}", ctx.delivery, request))

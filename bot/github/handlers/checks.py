"""`check_suite` / `check_run` re-requested (a person asked for the check again) and `requested_action`
(the Fix wiki and Ground wiki buttons)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...jobs import Job
from ...jobs.requests import CheckRequest, FixRequest, GroundRequest
from ..content.check_output import CHECK_NAME, FIX_ACTION, GROUND_ACTION
from ..events import Change, suite_change
from ..payloads import CheckRunEvent, CheckSuiteEvent, RepositoryEvent, RequestedActionEvent, SuiteChange
from .fields import repo_ref
from .routing import Routes

if TYPE_CHECKING:
    from .context import WebhookContext

routes = Routes()


def _key(change: Change) -> str:
    """The job's key: one check of a pull request, or of a branch, at a time."""
    return f"pr:{change.pr_number}" if change.pr_number is not None else f"branch:{change.branch}"


def _recheck(event: RepositoryEvent, suite: SuiteChange, head_sha: str, delivery: str) -> Job:
    change = suite_change(event.repository.id, suite, head_sha)
    request = CheckRequest(
        repo=repo_ref(event),
        head_sha=head_sha,
        base=change.base,
        base_label=change.base_label,
        merge_base=True,
        new_run=True,  # GitHub asks for a new check run when one is re-requested
    )
    return Job(f"{event.repository.id}:{_key(change)}", delivery, request)


@routes.register("check_suite", "rerequested", model=CheckSuiteEvent)
async def on_suite_rerequested(event: CheckSuiteEvent, ctx: WebhookContext) -> None:
    await ctx.enqueue(_recheck(event, event.check_suite, event.check_suite.head_sha, ctx.delivery))


@routes.register("check_run", "rerequested", model=CheckRunEvent)
async def on_run_rerequested(event: CheckRunEvent, ctx: WebhookContext) -> None:
    run = event.check_run
    if run.name == CHECK_NAME:
        await ctx.enqueue(_recheck(event, run.check_suite, run.head_sha, ctx.delivery))


@routes.register("check_run", "requested_action", model=RequestedActionEvent)
async def on_requested_action(event: RequestedActionEvent, ctx: WebhookContext) -> None:
    run = event.check_run
    identifier = event.requested_action.identifier
    if identifier not in (FIX_ACTION["identifier"], GROUND_ACTION["identifier"]):
        return
    # The button's run lists the pull requests itself; its suite's list may be older.
    suite = run.check_suite.model_copy(update={"pull_requests": run.pull_requests})
    change = suite_change(event.repository.id, suite, run.head_sha)
    requested_by = event.sender.login if event.sender is not None else None
    if identifier == GROUND_ACTION["identifier"]:
        ground = GroundRequest(
            repo=repo_ref(event),
            head_sha=run.head_sha,
            check_run_id=run.id,
            target=change.target,
            pr_number=change.pr_number,
            requested_by=requested_by,
        )
        await ctx.enqueue(Job(f"{event.repository.id}:ground:{change.target or run.head_sha}", ctx.delivery, ground))
        return
    request = FixRequest(
        repo=repo_ref(event),
        head_sha=run.head_sha,
        check_run_id=run.id,
        target=change.target,
        base=change.base,
        base_label=change.base_label,
        merge_base=True,
        pr_number=change.pr_number,
        requested_by=requested_by,
    )
    key = f"{event.repository.id}:fix:{change.target or run.head_sha}"
    await ctx.enqueue(Job(key, ctx.delivery, request))

"""The fix job: the "Fix wiki" button and auto-fix pushes land here.

Read the change again (from where the open fix pull request's change started, when there is one, so one pull
request covers every push until it is merged), run the shared fix use case, and publish the result as the
follow-up pull request (decided in `pulls.py`, carried out in `publish.py`); then say on the check run what
happened. Every file the fix writes is computed from the fixed commit alone (its committer date stands in
for "now"), so a second run over the same commit proposes exactly the same files and changes nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..claims.inert import prose
from ..claims.sweep import SweepOptions
from ..fix.engine import FixResult
from ..jobs import ONLY_TRY, Attempt, Job
from ..jobs.requests import FixRequest
from ..source.github import GitHubSnapshot, GitHubSource
from ..usecases.fix import prepare_fix, run_fix
from .checks import explain, find_check_run, note_on_check_run
from .client import GitHubClient
from .failures import permanent_text
from .publish import BranchRace, inspect_branch, publish
from .pulls import (
    FORK,
    BranchState,
    FixStatus,
    counts,
    describe,
    evidence_links,
    fix_branch_for,
    flagged_reasons,
    holds_fix,
    iso_time,
    plan_publication,
    proposal,
)
from .repo_config import CONFIG_PATH, ConfigError, read_repo_config

if TYPE_CHECKING:
    from .runtime import AppRuntime

log = logging.getLogger(__name__)


async def run_fix_job(rt: AppRuntime, job: Job, attempt: Attempt = ONLY_TRY) -> None:
    request = job.request
    assert isinstance(request, FixRequest)
    repo_name, head_sha = request.repo.full_name, request.head_sha
    gh = await rt.client(request.repo.installation_id)  # an uninstalled App fails here for good: no run to tell
    run_id = request.check_run_id
    try:
        if run_id is None:
            run_id = await find_check_run(gh, repo_name, head_sha, rt.settings.app_id)
        status = await _fix(rt, gh, request)
    except Exception as exc:
        permanent = await rt.permanent_failure(request.repo, exc)
        if permanent is None and not attempt.final:
            log.warning("fix failed, to be tried again: %s", type(exc).__name__, extra={"head": head_sha})
            raise
        if permanent is None:  # expected failures are logged once, in words, by the queue
            log.exception("fix failed", extra={"repo": repo_name, "head": head_sha, "delivery": job.delivery})
        if run_id is not None:  # the run can still be reached: say why on it
            text = permanent_text(str(permanent)) if permanent is not None else explain(exc)
            try:
                note = f"Wikiwarden could not propose a fix: {prose(text)}"
                await note_on_check_run(gh, repo_name, run_id, note)
            except Exception:
                if permanent is None:  # else it is the same refusal again: the queue's line says it
                    log.exception("could not report the failed fix on the check run", extra={"repo": repo_name})
        if permanent is not None:
            raise permanent from exc
        raise
    if run_id is not None:
        await note_on_check_run(gh, repo_name, run_id, status.text, status.url)


async def _fix(rt: AppRuntime, gh: GitHubClient, request: FixRequest) -> FixStatus:
    repo_name, head_sha, target = request.repo.full_name, request.head_sha, request.target
    if target is None:
        return FixStatus(FORK)
    source = rt.source(gh, repo_name)
    head = await source.snapshot(head_sha, label=f"{target} ({head_sha[:12]})")
    try:
        config = await read_repo_config(source, head, rt.settings)
    except ConfigError as exc:
        return FixStatus(f"No fix: {CONFIG_PATH} is not valid. {prose(str(exc))}")
    if request.pr_number is not None and not config.fix_pull_requests:
        return FixStatus(f"No fix: `fix_pull_requests` is off in {CONFIG_PATH}.")

    state = await inspect_branch(gh, repo_name, fix_branch_for(target), head_sha, await rt.bot_login())
    if state.person:  # a person's branch now: read nothing more, spend nothing
        return describe(plan_publication(state, ""), state.open_pull, state, FixResult())
    base, merge_base = request.base, request.merge_base
    if request.pr_number is None and state.since:
        base, merge_base = state.since, True  # one pull request covers every change since it was opened
    change = await source.change(base, head, merge_base=merge_base, label=request.base_label) if base else None
    options = SweepOptions(wiki_dir=config.wiki_dir, max_file_bytes=config.limits.max_file_bytes)
    cap = config.limits.max_claims_per_fix
    inputs = await prepare_fix(source, head, change, options, cap)
    if not inputs.work:
        return FixStatus("Nothing to fix: no claim this change touched needs attention.")

    commit = await gh.getitem(
        "/repos/{owner}/{repo}/git/commits/{sha}",
        url_vars={"owner": source.owner, "repo": source.name, "sha": head_sha},
    )
    agent = rt.agents.agent(
        repo_name, config.model, per_run=config.limits.tokens_per_run, per_day=config.limits.tokens_per_day
    )
    result = await run_fix(
        inputs, agent, wiki_dir=config.wiki_dir, cap=cap, at=iso_time(commit["committer"]["date"]), head_commit=head_sha
    )
    if not result.files:
        return FixStatus(f"No file to change: {counts(result)}. " + flagged_reasons(result))
    start = change.base.commit if change is not None else None
    links = evidence_links(request.repo.html_url, start, head_sha)
    return await _publish(rt, gh, source, head, commit, state, result, target=target, since=base, links=links)


async def _publish(
    rt: AppRuntime,
    gh: GitHubClient,
    source: GitHubSource,
    head: GitHubSnapshot,
    commit: dict[str, Any],
    state: BranchState,
    result: FixResult,
    *,
    target: str,
    since: str | None,
    links: Any,
) -> FixStatus:
    fixed = head.commit
    key, title, body = proposal(result, target=target, fixed=fixed, since=since, links=links)
    for attempt in range(2):
        holds = False
        if state.may_hold_fix and state.sha is not None:
            holds = holds_fix(await source.tree(fixed), await source.tree(state.sha), result.files)
        plan = plan_publication(state, key, holds=holds)
        try:
            done, pull = await publish(
                gh, source, state, plan, target=target, fixed=fixed, fixed_tree=commit["tree"]["sha"],
                files=result.files, title=title, body=body,
            )  # fmt: skip
            return describe(done, pull, state, result)
        except BranchRace:
            if attempt:
                raise
            state = await inspect_branch(gh, source.full_name, state.name, fixed, await rt.bot_login())
    raise AssertionError("unreachable")

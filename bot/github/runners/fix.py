"""The fix job: the "Fix wiki" button and auto-fix pushes land here.

Read the change again (from where the open fix pull request's change started, when there is one, so one pull request
covers every push until it is merged), run the shared fix use case, and publish the result as the follow-up pull
request (decided in `content/pull_requests.py`, carried out in `api/publish.py`); then say on the check run what
happened. Every file the fix writes is computed from the fixed commit alone (its committer date stands in for
"now"), so a second run over the same commit proposes exactly the same files and changes nothing.

`propose_fix` needs only a `FixHost`: the App's runtime (installation tokens, the operator's limits) or the GitHub
Action's (the workflow's token, the repository's own config), so both open the same pull request the same way.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Protocol

from ...claims.options import SweepOptions
from ...claims.pages import CONFIG_PATH
from ...fix.engine import FixResult
from ...ground.baseline import BaselineError
from ...jobs import ONLY_TRY, Attempt, Job
from ...jobs.requests import FixRequest
from ...report.inert import prose
from ...source.github import GitHubSnapshot, GitHubSource
from ...source.memory import SweepMemory
from ...usecases.config import Config
from ...usecases.config_file import ConfigError, RepoConfig
from ...usecases.fix import prepare_fix, run_fix
from ...usecases.references import reference_rules
from ..api.client import GitHubClient
from ..api.publish import inspect_branch, propose
from ..content.check_output import model_refusal_note
from ..content.pull_requests import (
    FIX,
    FORK,
    BranchState,
    FixStatus,
    ProposalStatus,
    counts,
    describe,
    evidence_links,
    fix_branch_for,
    flagged_reasons,
    iso_time,
    plan_publication,
    proposal,
)
from .proposing import run_proposal

if TYPE_CHECKING:
    from ...fix.engine import Decider
    from ..runtime import AppRuntime


class Agents(Protocol):
    def agent(
        self,
        repo: str,
        model: str | None = None,
        *,
        per_run: int | None = None,
        per_day: int | None = None,
        repo_id: int | None = None,
    ) -> Decider | None:
        """The model deciding one fix of `repo` (GitHub's `repo_id`: whose answers it pays for and reuses) within
        these budgets; None without a model (re-anchoring only)."""
        ...


class FixHost(Protocol):
    """What the fix needs of the process running it, besides a client for the repository."""

    @property
    def agents(self) -> Agents: ...

    def source(self, gh: GitHubClient, full_name: str) -> GitHubSource: ...

    @property
    def evidence(self) -> SweepMemory:
        """Which files each sidecar cites, kept between jobs (and workers)."""
        ...

    async def bot_login(self) -> str:
        """Whose commits on the fix branch are the bot's own (the ownership rules in `content/pull_requests.py`)."""
        ...

    async def repo_config(self, source: GitHubSource, head: GitHubSnapshot) -> RepoConfig:
        """The repository's config at the fixed commit; ConfigError when it cannot be used."""
        ...


async def run_fix_job(rt: AppRuntime, job: Job, attempt: Attempt = ONLY_TRY) -> None:
    request = job.request
    assert isinstance(request, FixRequest)

    async def fix(gh: GitHubClient) -> ProposalStatus:
        return await propose_fix(rt, gh, request)

    await run_proposal(rt, job, attempt, FIX, fix)


async def propose_fix(rt: FixHost, gh: GitHubClient, request: FixRequest) -> FixStatus:
    """Fix what the request's change made stale and propose it as the follow-up pull request; what came of it."""
    repo_name, head_sha, target = request.repo.full_name, request.head_sha, request.target
    if target is None:
        return FixStatus(FORK)
    source = rt.source(gh, repo_name)
    head = await source.snapshot(head_sha, label=f"{target} ({head_sha[:12]})")
    try:
        config = await rt.repo_config(source, head)
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
    try:
        rules = await reference_rules(source, head, Config(config))
    except BaselineError as exc:
        return FixStatus(f"No fix: {prose(str(exc))}")
    inputs = await prepare_fix(source, head, change, options, cap, memory=rt.evidence, rules=rules)
    if not inputs.has_work:
        return FixStatus("Nothing to fix: no claim or reference this change touched needs attention.")

    commit = await gh.getitem(
        "/repos/{owner}/{repo}/git/commits/{sha}",
        url_vars={"owner": source.owner, "repo": source.name, "sha": head_sha},
    )
    agent = rt.agents.agent(
        repo_name, config.model, per_run=config.limits.tokens_per_run, per_day=config.limits.tokens_per_day,
        repo_id=request.repo.id,
    )  # fmt: skip
    result = await run_fix(
        inputs, agent, wiki_dir=config.wiki_dir, cap=cap, at=iso_time(commit["committer"]["date"]), head_commit=head_sha
    )
    if not result.files:
        status = FixStatus(f"No file to change: {counts(result)}. " + flagged_reasons(result))
    else:
        start = change.base.commit if change is not None else None
        links = evidence_links(request.repo.html_url, start, head_sha)
        status = await _publish(rt, gh, source, head, commit, state, result, target=target, since=base, links=links)
    return with_model_refusal(status, config)


def with_model_refusal(status: ProposalStatus, config: RepoConfig) -> ProposalStatus:
    """The status, saying as well that the repository's `model:` is not one the App offers, when it is not."""
    if config.model_refusal is None:
        return status
    return dataclasses.replace(status, text=f"{status.text} {model_refusal_note(config.model_refusal)}")


async def _publish(
    rt: FixHost,
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
    done, pull, state = await propose(
        gh, source, state, key=key, files=result.files, title=title, body=body, target=target, fixed=fixed,
        fixed_tree=commit["tree"]["sha"], bot_login=await rt.bot_login(),
    )  # fmt: skip
    return describe(done, pull, state, result)

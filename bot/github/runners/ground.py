"""The grounding job: the "Ground wiki" button and `ground: auto` pushes land here.

Ground the next pages of the wiki that have no claims (the shared grounding use case, the same agent and token
budgets as the fix), and propose the files as the grounding pull request on `wikiwarden/ground/<branch>`, with the
fix's rules (`content/pull_requests.py`, carried out by `api/publish.py`): the bot's branch only, one pull request
updated in place, a declined grounding never proposed again. While that pull request is open, each run grounds its
pages again (answers already accepted cost nothing) and the next batch, so a large wiki is grounded run by run in
one pull request. Stamps are the grounded commit's committer date, so the same commit and answers give the same
files and a second run changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...claims.options import SweepOptions
from ...claims.pages import CONFIG_PATH
from ...jobs import ONLY_TRY, Attempt, Job
from ...jobs.requests import GroundRequest
from ...report.inert import code, prose
from ...usecases.config import read_repo_config
from ...usecases.config_file import ConfigError
from ...usecases.ground import prepare_ground, run_ground
from ..api.client import GitHubClient
from ..api.publish import inspect_branch, propose, proposed_paths
from ..content.ground_pull_request import ground_counts, ground_proposal, ground_tail, next_batch, proposed_pages
from ..content.pull_requests import GROUND, ProposalStatus, announce, evidence_links, iso_time, plan_publication
from .fix import with_model_refusal
from .proposing import run_proposal

if TYPE_CHECKING:
    from ..runtime import AppRuntime

NO_MODEL = (
    "No grounding: the App has no model configured (`WIKIWARDEN_MODEL`). `wikiwarden ground --dry-run` lists each "
    "page's candidate evidence, to ground it by hand with `wikiwarden claim add`."
)

NO_DEFAULT_MODEL = (
    f"No grounding: the App has no default model (`WIKIWARDEN_MODEL`); a repository names one it offers "
    f"(`WIKIWARDEN_MODELS`) with `model:` in {CONFIG_PATH}."
)


async def run_ground_job(rt: AppRuntime, job: Job, attempt: Attempt = ONLY_TRY) -> None:
    request = job.request
    assert isinstance(request, GroundRequest)

    async def ground(gh: GitHubClient) -> ProposalStatus:
        return await _ground(rt, gh, request)

    await run_proposal(rt, job, attempt, GROUND, ground)


async def _ground(rt: AppRuntime, gh: GitHubClient, request: GroundRequest) -> ProposalStatus:
    repo_name, head_sha, target = request.repo.full_name, request.head_sha, request.target
    if target is None:
        return ProposalStatus(GROUND.fork)
    source = rt.source(gh, repo_name)
    head = await source.snapshot(head_sha, label=f"{target} ({head_sha[:12]})")
    try:
        config = await read_repo_config(source, head, rt.settings)
    except ConfigError as exc:
        return ProposalStatus(f"No grounding: {CONFIG_PATH} is not valid. {prose(str(exc))}")
    if config.ground == "off":
        return ProposalStatus(f"No grounding: `ground` is off in {CONFIG_PATH}.")
    agent = rt.agents.agent(
        repo_name, config.model, per_run=config.limits.tokens_per_run, per_day=config.limits.tokens_per_day,
        repo_id=request.repo.id,
    )  # fmt: skip
    if agent is None:  # nothing can be grounded: read nothing, build no index
        why = NO_MODEL if not rt.settings.offered_models else NO_DEFAULT_MODEL
        return with_model_refusal(ProposalStatus(why), config)

    state = await inspect_branch(gh, repo_name, GROUND.branch_for(target), head_sha, await rt.bot_login(), GROUND)
    if state.person:  # a person's branch now: read nothing more, spend nothing
        return announce(plan_publication(state, ""), state.open_pull, state, "")
    proposed = proposed_pages(await proposed_paths(gh, source, state), config.wiki_dir)
    options = SweepOptions(wiki_dir=config.wiki_dir, max_file_bytes=config.limits.max_file_bytes)
    size = config.limits.max_pages_per_ground
    inputs = await prepare_ground(source, head, options, max_pages=size + len(proposed))
    inputs.work, inputs.waiting = next_batch(inputs.work, inputs.waiting, proposed, size)
    if not inputs.work:
        return ProposalStatus("Nothing to ground: every page has claims or states nothing the code shows.")

    commit = await gh.getitem(
        "/repos/{owner}/{repo}/git/commits/{sha}",
        url_vars={"owner": source.owner, "repo": source.name, "sha": head_sha},
    )
    result = await run_ground(inputs, agent, wiki_dir=config.wiki_dir, at=iso_time(commit["committer"]["date"]))
    if not result.files:
        reasons = " ".join(f"{code(p.page)}: {prose(p.problem)}." for p in result.pages[:10] if p.problem)
        status = ProposalStatus(f"No file to change: {ground_counts(result.pages)}. {reasons}".strip())
        return with_model_refusal(status, config)
    before = {item.page: item.text for item in inputs.work}
    links = evidence_links(request.repo.html_url, None, head_sha)
    key, title, body = ground_proposal(
        result, before, target=target, fixed=head_sha, wiki_dir=config.wiki_dir, link=links
    )
    done, pull, state = await propose(
        gh, source, state, key=key, files=result.files, title=title, body=body, target=target, fixed=head_sha,
        fixed_tree=commit["tree"]["sha"], bot_login=await rt.bot_login(),
    )  # fmt: skip
    return with_model_refusal(announce(done, pull, state, ground_counts(result.pages), ground_tail(result)), config)

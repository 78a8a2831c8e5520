"""The check job: read the change on GitHub, check the wiki through it (the shared use case), and publish the
check run; after a push to the default branch, start the fix (`auto_fix`) or the grounding (`ground: auto`) the
repository asked for."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ...claims.ignore import IgnoreLimitError
from ...claims.options import SweepOptions
from ...claims.pages import CONFIG_PATH
from ...ground.baseline import BaselineError
from ...jobs import ONLY_TRY, Attempt, Job
from ...jobs.requests import CheckRequest, FixRequest, GroundRequest
from ...usecases.check import check
from ...usecases.config import Config, read_repo_config
from ...usecases.config_file import ConfigError
from ...usecases.ground import settled_pages
from ...usecases.references import reference_rules
from ..api.check_runs import complete_check_run, find_check_run, start_check_run
from ..api.client import GitHubClient
from ..api.failures import permanent_text
from ..content.check_output import FIX_ACTION, GROUND_ACTION, check_output, explain, failure_output

if TYPE_CHECKING:
    from ..runtime import AppRuntime

log = logging.getLogger(__name__)


async def _open_pull_request_base(gh: GitHubClient, repo: str, branch: str) -> str | None:
    """The base commit of the open pull request from `branch` of this repository, if there is one."""
    owner, name = repo.split("/", 1)
    pulls = await gh.getitem(
        "/repos/{owner}/{repo}/pulls{?head,state}",
        url_vars={"owner": owner, "repo": name, "head": f"{owner}:{branch}", "state": "open"},
    )
    return pulls[0]["base"]["sha"] if pulls else None


async def run_check(rt: AppRuntime, job: Job, attempt: Attempt = ONLY_TRY) -> None:
    request = job.request
    assert isinstance(request, CheckRequest)
    repo_name, head_sha = request.repo.full_name, request.head_sha
    gh = await rt.client(request.repo.installation_id)  # an uninstalled App fails here for good: no run to tell
    run_id: int | None = None
    try:
        # A re-requested check gets a new run; its later tries reuse the run the first one made.
        fresh = request.new_run and attempt.number == 1
        run_id = None if fresh else await find_check_run(gh, repo_name, head_sha, rt.settings.app_id)
        if run_id is None:
            run_id = await start_check_run(gh, repo_name, head_sha, external_id=job.delivery)
        await _check(rt, gh, job, request, run_id)
    except Exception as exc:
        permanent = await rt.permanent_failure(request.repo, exc)
        if permanent is None and not attempt.final:
            log.warning("check failed, to be tried again: %s", type(exc).__name__, extra={"head": head_sha})
            raise
        if permanent is None:  # expected failures are logged once, in words, by the queue
            log.exception("check failed", extra={"repo": repo_name, "head": head_sha, "delivery": job.delivery})
        if run_id is not None:  # the run can still be reached: say why on it
            text = permanent_text(str(permanent)) if permanent is not None else explain(exc)
            try:
                await complete_check_run(
                    gh, repo_name, run_id, failure_output("Wikiwarden could not check this commit", text)
                )
            except Exception:
                if permanent is None:  # else it is the same refusal again: the queue's line says it
                    log.exception("could not report the failure on the check run", extra={"repo": repo_name})
        if permanent is not None:
            raise permanent from exc
        raise


async def _check(rt: AppRuntime, gh: GitHubClient, job: Job, request: CheckRequest, run_id: int) -> None:
    repo_name, head_sha = request.repo.full_name, request.head_sha
    source = rt.source(gh, repo_name)
    head = await source.snapshot(head_sha, label=request.head_label or head_sha)
    try:
        config = await read_repo_config(source, head, rt.settings)
    except ConfigError as exc:
        await complete_check_run(gh, repo_name, run_id, failure_output(f"{CONFIG_PATH} is not valid", str(exc)))
        return

    base, merge_base = request.base, request.merge_base
    if request.prefer_pull_request and request.branch:
        pull_base = await _open_pull_request_base(gh, repo_name, request.branch)
        if pull_base is not None:
            base, merge_base = pull_base, True
    change = await source.change(base, head, merge_base=merge_base, label=request.base_label) if base else None
    options = SweepOptions(wiki_dir=config.wiki_dir, max_file_bytes=config.limits.max_file_bytes)
    try:
        rules = await reference_rules(source, head, Config(config))
    except BaselineError as exc:
        await complete_check_run(gh, repo_name, run_id, failure_output("The baseline cannot be read", str(exc)))
        return
    try:
        report = await check(source, head, change, options, memory=rt.evidence, rules=rules)
    except IgnoreLimitError as exc:  # .openwikiignore or a .gitignore with too many or too long patterns
        await complete_check_run(gh, repo_name, run_id, failure_output("The ignore patterns cannot be used", str(exc)))
        return
    settled: list[str] = []
    if report.ungrounded_pages and config.ground != "off":  # pages grounding read already get no button
        settled = await settled_pages(source, head, report.ungrounded_pages, config.wiki_dir)
    output = check_output(
        report, config, fork=request.fork, pull_request=request.pr_number is not None, settled=settled
    )
    await complete_check_run(gh, repo_name, run_id, output)
    if request.default_branch and rt.submit is not None:
        if config.auto_fix and FIX_ACTION in output.actions:
            await rt.submit(auto_fix_job(job, run_id, base, merge_base))
        if config.ground == "auto" and GROUND_ACTION in output.actions:
            await rt.submit(auto_ground_job(job, run_id))


def auto_fix_job(check_job: Job, run_id: int, base: str | None, merge_base: bool) -> Job:
    """The fix that follows a push to the default branch when the repository turned `auto_fix` on."""
    request = check_job.request
    assert isinstance(request, CheckRequest) and request.branch is not None
    fix = FixRequest(
        repo=request.repo,
        head_sha=request.head_sha,
        check_run_id=run_id,
        target=request.branch,
        base=base,
        base_label=request.base_label,
        merge_base=merge_base,
        trigger="auto_fix",
    )
    return Job(f"{request.repo.id}:fix:{request.branch}", check_job.delivery, fix)


def auto_ground_job(check_job: Job, run_id: int) -> Job:
    """The grounding that follows a push to the default branch leaving pages without claims, when the repository
    chose `ground: auto`."""
    request = check_job.request
    assert isinstance(request, CheckRequest) and request.branch is not None
    ground = GroundRequest(
        repo=request.repo, head_sha=request.head_sha, check_run_id=run_id, target=request.branch, trigger="auto"
    )
    return Job(f"{request.repo.id}:ground:{request.branch}", check_job.delivery, ground)

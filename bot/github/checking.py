"""The check job: read the change on GitHub, sweep the wiki through it, and publish the check run."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gidgethub import BadRequest, HTTPException, RateLimitExceeded

from ..claims.sweep import Change, SweepOptions
from ..jobs import ONLY_TRY, Attempt, Job
from ..source.github import GitHubRepo, GitHubSnapshot, sweep_github
from .checks import check_output, complete_check_run, failure_output, find_check_run, start_check_run
from .client import GitHubClient
from .repo_config import CONFIG_PATH, ConfigError, RepoConfig, parse_repo_config

if TYPE_CHECKING:
    from .runtime import AppRuntime

log = logging.getLogger(__name__)
FORK_NOTE = (
    "\n\n_This pull request comes from a fork: Wikiwarden cannot push a fix to it. Once it is merged, the "
    "default branch's check offers the fix._\n"
)


async def read_config(repo: GitHubRepo, head: GitHubSnapshot) -> RepoConfig:
    if CONFIG_PATH not in head.tree:
        return RepoConfig()
    await repo.fetch(head, [CONFIG_PATH])
    return parse_repo_config(head.read(CONFIG_PATH))


async def _open_pull_request_base(gh: GitHubClient, repo: str, branch: str) -> str | None:
    """The base commit of the open pull request from `branch` of this repository, if there is one."""
    owner, name = repo.split("/", 1)
    pulls = await gh.getitem(
        "/repos/{owner}/{repo}/pulls{?head,state}",
        url_vars={"owner": owner, "repo": name, "head": f"{owner}:{branch}", "state": "open"},
    )
    return pulls[0]["base"]["sha"] if pulls else None


async def read_change(
    repo: GitHubRepo, base: str | None, head: str, *, merge_base: bool, label: str | None = None
) -> Change | None:
    """The change from `base` to `head`; None (every claim is checked) without a base or when GitHub no longer
    knows the base commit (a force-push dropped it)."""
    if not base:
        return None
    try:
        start, files = await repo.changes(base, head, merge_base=merge_base)
    except BadRequest as exc:
        if int(exc.status_code) != 404:
            raise
        log.warning("base commit unknown to GitHub; checking every claim", extra={"repo": repo.full_name, "base": base})
        return None
    return Change(await repo.snapshot(start, label=f"{label or base} ({start[:12]})"), files)


def explain(exc: BaseException) -> str:
    """A failure in plain words for the check run: what went wrong, never a trace or a secret."""
    if isinstance(exc, RateLimitExceeded):
        return "GitHub's rate limit for this installation was reached. Re-run this check once it resets."
    if isinstance(exc, HTTPException):
        return f"GitHub answered {int(exc.status_code)} ({exc.status_code.phrase}) and kept doing so after retries."
    if isinstance(exc, TimeoutError):
        return "GitHub did not answer in time."
    return f"Wikiwarden hit an internal error ({type(exc).__name__}); the maintainers have the details in its logs."


async def run_check(rt: AppRuntime, job: Job, attempt: Attempt = ONLY_TRY) -> None:
    data = job.data
    repo_name, head_sha = data["repo"], data["head_sha"]
    gh = await rt.client(int(data["installation_id"]))
    # A re-requested check gets a new run; its later tries reuse the run the first one made.
    fresh = data.get("new_run") and attempt.number == 1
    run_id = None if fresh else await find_check_run(gh, repo_name, head_sha, rt.settings.app_id)
    if run_id is None:
        run_id = await start_check_run(gh, repo_name, head_sha, external_id=job.delivery)
    try:
        await _check(rt, gh, job, run_id)
    except Exception as exc:
        if not attempt.final:
            log.warning("check failed, to be tried again: %s", type(exc).__name__, extra={"head": head_sha})
            raise
        log.exception("check failed", extra={"repo": repo_name, "head": head_sha, "delivery": job.delivery})
        try:
            await complete_check_run(
                gh, repo_name, run_id, failure_output("Wikiwarden could not check this commit", explain(exc))
            )
        except Exception:
            log.exception("could not report the failure on the check run", extra={"repo": repo_name})
        raise


async def _check(rt: AppRuntime, gh: GitHubClient, job: Job, run_id: int) -> None:
    data = job.data
    repo_name, head_sha = data["repo"], data["head_sha"]
    repo = rt.repo(gh, repo_name, rt.settings.max_file_bytes)
    head = await repo.snapshot(head_sha, label=data.get("head_label") or head_sha)
    try:
        config = await read_config(repo, head)
    except ConfigError as exc:
        await complete_check_run(gh, repo_name, run_id, failure_output(f"{CONFIG_PATH} is not valid", str(exc)))
        return
    repo.max_file_bytes = config.limits.max_file_bytes

    base, merge_base = data.get("base"), bool(data.get("merge_base", True))
    if data.get("prefer_pull_request") and data.get("branch"):
        pull_base = await _open_pull_request_base(gh, repo_name, data["branch"])
        if pull_base is not None:
            base, merge_base = pull_base, True
    change = await read_change(repo, base, head_sha, merge_base=merge_base, label=data.get("base_label"))
    options = SweepOptions(wiki_dir=config.wiki_dir, max_file_bytes=config.limits.max_file_bytes)
    report = await sweep_github(repo, head, change, options)
    fork = bool(data.get("fork"))
    can_fix = not fork and (data.get("pr_number") is None or config.fix_pull_requests)
    output = check_output(report, config, can_fix=can_fix)
    if fork and output.conclusion != "success":
        output.summary = output.summary[: 65_535 - len(FORK_NOTE)] + FORK_NOTE
    await complete_check_run(gh, repo_name, run_id, output)
    if config.auto_fix and data.get("default_branch") and output.actions and rt.submit is not None:
        await rt.submit(auto_fix_job(job, run_id, base, merge_base))


def auto_fix_job(check: Job, run_id: int, base: str | None, merge_base: bool) -> Job:
    """The fix that follows a push to the default branch when the repository turned `auto_fix` on."""
    data = check.data
    keep = ("installation_id", "repo", "repo_id", "html_url", "head_sha", "base_label")
    return Job(
        kind="fix",
        key=f"{data.get('repo_id') or data['repo']}:fix:{data['branch']}",
        delivery=check.delivery,
        data={
            **{k: data.get(k) for k in keep},
            "check_run_id": run_id,
            "target": data["branch"],
            "base": base,
            "merge_base": merge_base,
            "pr_number": None,
            "trigger": "auto_fix",
        },
    )

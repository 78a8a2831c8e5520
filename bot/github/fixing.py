"""The fix job: the "Fix wiki" button and auto-fix pushes land here.

Read the change again (from where the open fix pull request's change started, when there is one, so one pull
request covers every push until it is merged), plan the work, let the agent decide the stale claims, and
publish the result as the follow-up pull request; then say on the check run what happened. Every file the
fix writes is computed from the fixed commit alone (its committer date stands in for "now"), so a second
run over the same commit proposes exactly the same files and changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..claims.resources import parse_resource
from ..claims.sweep import Sweeper, SweepOptions
from ..fix.engine import LAST_UPDATE, Action, FixResult, fix_wiki
from ..fix.summary import Link, pull_request_body
from ..fix.view import CodeView, search_scope
from ..fix.work import pages_with_work, plan_work
from ..jobs import ONLY_TRY, Attempt, Job
from ..pipeline import ACTOR
from ..source.github import GitHubRepo, GitHubSnapshot, sweep_github
from .checking import explain, read_change, read_config
from .checks import find_check_run, note_on_check_run
from .client import GitHubClient
from .pulls import BranchRace, BranchState, Published, change_key, fix_branch_for, inspect_branch, marker, publish_fix
from .repo_config import CONFIG_PATH, ConfigError

if TYPE_CHECKING:
    from .runtime import AppRuntime

log = logging.getLogger(__name__)

FORK = (
    "This pull request comes from a fork: Wikiwarden cannot push to a fork's branch, so it proposes no fix "
    "here. Once the pull request is merged, the default branch's check offers the fix."
)


@dataclass(frozen=True)
class FixStatus:
    """What the check run says about the fix, and where the pull request is."""

    text: str
    url: str | None = None


def _iso(date: str) -> str:
    """A commit date as OpenWiki writes times (`toISOString`): the fix's deterministic "now"."""
    when = datetime.fromisoformat(date.replace("Z", "+00:00"))
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def evidence_links(html_url: str | None, before: str | None, now: str) -> Link | None:
    """Links to evidence at the change's start ("before") and at the fixed commit ("now")."""
    if not html_url:
        return None

    def link(resource: str, when: str) -> str | None:
        commit = before if when == "before" else now
        if commit is None:
            return None
        try:
            res = parse_resource(resource)
        except ValueError:
            return None
        lines = f"#L{res.start}-L{res.end}" if res.start is not None else ""
        return f"{html_url}/blob/{commit}/{quote(res.path)}{lines}"

    return link


def _counts(result: FixResult) -> str:
    counts = [(a, sum(1 for o in result.outcomes if o.action is a)) for a in Action]
    return ", ".join(f"{n} {a.value}" for a, n in counts if n) or "nothing to change"


def _describe(published: Published, state: BranchState, result: FixResult) -> FixStatus:
    pull = published.pull or {}
    number, url = pull.get("number"), pull.get("html_url")
    if published.outcome == "handed-off":
        return FixStatus(
            f"The branch `{state.name}` has commits by {state.person}, so Wikiwarden no longer updates it"
            + (f" (#{number})" if number else "")
            + ". Merge or close that work, or delete the branch, and Wikiwarden will propose fixes again.",
            url,
        )
    if published.outcome == "declined":
        return FixStatus(
            f"This very fix was proposed in #{number} and closed without merging; Wikiwarden does not propose it "
            "again. Correct the claims by hand (`wikiwarden claim confirm` / `retract`) or reopen it.",
            url,
        )
    verb = {"opened": "opened", "updated": "updated", "unchanged": "already holds this fix:"}[published.outcome]
    flagged = len(result.flagged)
    tail = f" {flagged} claims still need a person." if flagged else ""
    return FixStatus(f"Fix pull request #{number} {verb} {_counts(result)}.{tail}", url)


async def run_fix(rt: AppRuntime, job: Job, attempt: Attempt = ONLY_TRY) -> None:
    data = job.data
    repo_name, head_sha = data["repo"], data["head_sha"]
    gh = await rt.client(int(data["installation_id"]))
    run_id = data.get("check_run_id") or await find_check_run(gh, repo_name, head_sha, rt.settings.app_id)
    try:
        status = await _fix(rt, gh, job)
    except Exception as exc:
        if not attempt.final:
            log.warning("fix failed, to be tried again: %s", type(exc).__name__, extra={"head": head_sha})
            raise
        log.exception("fix failed", extra={"repo": repo_name, "head": head_sha, "delivery": job.delivery})
        if run_id is not None:
            try:
                await note_on_check_run(
                    gh, repo_name, int(run_id), f"Wikiwarden could not propose a fix: {explain(exc)}"
                )
            except Exception:
                log.exception("could not report the failed fix on the check run", extra={"repo": repo_name})
        raise
    if run_id is not None:
        await note_on_check_run(gh, repo_name, int(run_id), status.text, status.url)


async def _fix(rt: AppRuntime, gh: GitHubClient, job: Job) -> FixStatus:
    data = job.data
    repo_name, head_sha, target = data["repo"], data["head_sha"], data.get("target")
    if data.get("fork") or not target:
        return FixStatus(FORK)
    repo = rt.repo(gh, repo_name, rt.settings.max_file_bytes)
    head = await repo.snapshot(head_sha, label=f"{target} ({head_sha[:12]})")
    try:
        config = await read_config(repo, head)
    except ConfigError as exc:
        return FixStatus(f"No fix: {CONFIG_PATH} is not valid. {exc}")
    if data.get("pr_number") is not None and not config.fix_pull_requests:
        return FixStatus(f"No fix: `fix_pull_requests` is off in {CONFIG_PATH}.")
    repo.max_file_bytes = config.limits.max_file_bytes

    state = await inspect_branch(gh, repo_name, fix_branch_for(target), head_sha, await rt.bot_login())
    if state.person:  # a person's branch now: read nothing more, spend nothing
        return _describe(Published("handed-off", state.open_pull), state, FixResult())
    base, merge_base = data.get("base"), bool(data.get("merge_base", True))
    if data.get("pr_number") is None and state.since:
        base, merge_base = state.since, True  # one pull request covers every change since it was opened
    change = await read_change(repo, base, head_sha, merge_base=merge_base, label=data.get("base_label"))
    options = SweepOptions(wiki_dir=config.wiki_dir, max_file_bytes=config.limits.max_file_bytes)
    report = await sweep_github(repo, head, change, options)
    pages = pages_with_work(report)
    last_path = f"{config.wiki_dir}/{LAST_UPDATE}"
    extra = [last_path] if last_path in head.tree else []
    await repo.fetch(head, [p for page in pages for p in (page.page, page.sidecar)] + extra)
    work = plan_work(report, head.read, config.limits.max_claims_per_fix)
    if not work:
        return FixStatus("Nothing to fix: no claim this change touched needs attention.")

    commit = await gh.getitem(
        "/repos/{owner}/{repo}/git/commits/{sha}", url_vars={"owner": repo.owner, "repo": repo.name, "sha": head_sha}
    )
    scope = search_scope(head.tree, change.paths if change else (), work)

    async def fetch(paths: Any) -> None:
        await repo.fetch(head, paths)

    view = CodeView(Sweeper(head, None, options, config.wiki_dir), scope, fetch)
    previous = head.read(last_path) if extra else None
    result = await fix_wiki(
        work, view, rt.agent(config, repo_name), wiki_dir=config.wiki_dir, actor=ACTOR,
        at=_iso(commit["committer"]["date"]), head=head_sha, previous_last_update=previous,
        cap=config.limits.max_claims_per_fix,
    )  # fmt: skip
    if not result.files:
        return FixStatus(f"No file to change: {_counts(result)}. " + _flagged_reasons(result))
    start = change.base.commit if change is not None else None
    links = evidence_links(data.get("html_url"), start, head_sha)
    return await _publish(rt, gh, repo, head, commit, state, result, target=target, since=base, links=links)


def _flagged_reasons(result: FixResult) -> str:
    return " ".join(f"{o.page}: “{o.statement}” ({o.reason})." for o in result.flagged[:10])


async def _publish(
    rt: AppRuntime,
    gh: GitHubClient,
    repo: GitHubRepo,
    head: GitHubSnapshot,
    commit: dict[str, Any],
    state: BranchState,
    result: FixResult,
    *,
    target: str,
    since: str | None,
    links: Link | None,
) -> FixStatus:
    key = change_key(result)
    body = pull_request_body(
        result, heading=f"Wikiwarden: the wiki, true to `{target}` again", marker=marker(since, key), link=links
    )
    title = f"Wiki: {_counts(result)} after {target} {head.commit[:7]}"
    for attempt in range(2):
        try:
            published = await publish_fix(
                gh, repo, state, target=target, fixed=head.commit, fixed_tree=commit["tree"]["sha"],
                files=result.files, title=title[:250], body=body, change=key,
            )  # fmt: skip
            return _describe(published, state, result)
        except BranchRace:
            if attempt:
                raise
            state = await inspect_branch(gh, repo.full_name, state.name, head.commit, await rt.bot_login())
    raise AssertionError("unreachable")

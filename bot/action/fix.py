"""The fix, proposed as the App proposes it (`bot.github.runners.fix.propose_fix`) with the workflow's token: whether
to, the proposal itself, and a failure in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..claims.verdicts import Verdict
from ..extras import missing_extra
from .event import EventChange
from .inputs import ActionError, ActionInputs
from .outputs import Runner, fix_summary

if TYPE_CHECKING:
    from ..agent.factory import AgentFactory
    from ..claims.results import SweepReport
    from ..fix.engine import Decider
    from ..github.api.client import GitHubClient
    from ..source.github import GitHubSnapshot, GitHubSource
    from ..usecases.config_file import RepoConfig


def why_no_fix(change: EventChange, bot_login: str, report: SweepReport) -> str | None:
    """Why a run asked to fix proposes nothing (None: it proposes the fix). The fix follows a push or a pull
    request (a fork's: the fix itself says why there is none); never the bot's own push, as the App ignores its
    own events; and only when the check found evidence to re-anchor or a claim to re-verify."""
    if change.event not in ("push", "pull_request"):
        return f"No fix: the fix follows push and pull_request events, not {change.event}."
    if change.sender is not None and change.sender == bot_login:
        return f"No fix: {bot_login} caused this event, as it does by pushing a fix."
    acted_on = (Verdict.MOVED, Verdict.COSMETIC, Verdict.STALE, Verdict.UNRESOLVED)
    if not any(claim.verdict in acted_on for _, claim in report.claims()):
        return "Nothing to fix: no claim has evidence to re-anchor or to re-verify."
    return None


async def propose(
    env: Mapping[str, str],
    inputs: ActionInputs,
    change: EventChange,
    repository: str,
    config: RepoConfig,
    runner: Runner,
) -> bool:
    """Propose the fix as the App does (`bot.github.runners.fix.propose_fix`), with the workflow's token; False when it
    could not be proposed (an `::error::` says why)."""
    try:  # the App's GitHub client: action.yml installs the app extra when fix is on
        import aiohttp  # noqa: PLC0415
        from gidgethub import GitHubException  # noqa: PLC0415

        from ..github.api.client import GitHubClient, MutationGate  # noqa: PLC0415
        from ..github.api.publish import BranchRace  # noqa: PLC0415
        from ..github.runners.fix import propose_fix  # noqa: PLC0415
        from ..jobs.requests import FixRequest, RepoRef  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        raise ActionError(missing_extra(exc, "app", "fix: true")) from None

    api = (env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    graphql = env.get("GITHUB_GRAPHQL_URL") or f"{api}/graphql"
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    assert change.head is not None
    request = FixRequest(
        # The workflow's token belongs to an installation of GitHub Actions whose id the step is never told; the
        # fix reads only the repository's name and address.
        repo=RepoRef(
            installation_id=0, full_name=repository, id=change.repository_id or 0, html_url=f"{server}/{repository}"
        ),
        head_sha=change.head,
        target=change.target,
        base=change.base,
        base_label=change.base_label,
        merge_base=change.merge_base,
        pr_number=change.pr_number,
    )
    async with aiohttp.ClientSession() as session:
        gh = GitHubClient(
            session,
            oauth_token=inputs.token,
            base_url=api,
            gate=MutationGate(inputs.mutation_spacing_seconds),  # GitHub asks for about a second between writes
        )
        host = TokenHost(inputs, graphql, config)
        try:
            status = await propose_fix(host, gh, request)
        except (GitHubException, aiohttp.ClientError, TimeoutError, BranchRace) as exc:  # else a bug: its traceback
            runner.error(f"Wikiwarden could not propose the fix: {fix_problem(exc)}")
            return False
        finally:
            await host.close()
    runner.command("notice", status.text, title="Wikiwarden fix")
    runner.append_summary(fix_summary(status.text, status.url))
    runner.set_outputs({"pull-request": status.url or ""})
    return True


def fix_problem(exc: Exception) -> str:
    """A failed fix in words: GitHub's refusal with what usually causes it, a race for the branch, GitHub out of
    reach, or what the App says of a rate limit, a 5xx or a timeout."""
    import aiohttp  # noqa: PLC0415

    from ..github.api.failures import refusal  # noqa: PLC0415
    from ..github.api.publish import BranchRace  # noqa: PLC0415
    from ..github.content.check_output import explain  # noqa: PLC0415

    refused = refusal(exc)
    if refused is not None:
        hint = ""
        if refused.status in (401, 403, 404):
            hint = (
                " The token must be allowed to write contents and pull requests (`permissions: contents: write, "
                "pull-requests: write` in the workflow), and for the workflow's GITHUB_TOKEN the repository must "
                "allow GitHub Actions to create pull requests (Settings, Actions, General, Workflow permissions)."
            )
        return f"GitHub refused it ({refused.phrase}: {refused.message}).{hint}"
    if isinstance(exc, BranchRace):
        return f"{exc}; run the workflow again."
    if isinstance(exc, aiohttp.ClientError):
        return f"GitHub could not be reached ({type(exc).__name__}) and kept failing after retries."
    return explain(exc)


class TokenHost:
    """The fix's host in a workflow (`bot.github.runners.fix.FixHost`): one repository; the config the check used (the
    same commit's file, not bounded by an operator's limits: the repository is its own operator here); the model
    the inputs name (none: re-anchoring only); and the token's login as the bot's."""

    def __init__(self, inputs: ActionInputs, graphql_url: str, config: RepoConfig) -> None:
        from ..source.github import SourceCache  # noqa: PLC0415
        from ..source.memory import SharedIndex  # noqa: PLC0415

        self.inputs = inputs
        self.graphql_url = graphql_url
        self.config = config
        self.cache = SourceCache()
        self.evidence = SharedIndex()  # one workflow run's: nothing outlives it
        self.agents = _agents(inputs)

    def source(self, gh: GitHubClient, full_name: str) -> GitHubSource:
        from ..source.github import GitHubSource  # noqa: PLC0415

        return GitHubSource(gh, full_name, self.graphql_url, self.cache)

    async def bot_login(self) -> str:
        return self.inputs.bot_login

    async def repo_config(self, source: GitHubSource, head: GitHubSnapshot) -> RepoConfig:
        return self.config

    async def close(self) -> None:
        await self.agents.close()


class _NoModel:
    """No model configured: the fix does the deterministic work (re-anchoring) only, as the App does without one."""

    def agent(
        self, repo: str, model: str | None = None, *, per_run: int | None = None, per_day: int | None = None,
        repo_id: int | None = None,
    ) -> Decider | None:  # fmt: skip
        return None

    async def close(self) -> None:
        return None


def _agents(inputs: ActionInputs) -> AgentFactory | _NoModel:
    if inputs.model is None:
        return _NoModel()
    from pydantic import SecretStr  # noqa: PLC0415

    from ..settings import ModelSettings  # noqa: PLC0415

    try:
        from ..agent.factory import AgentFactory  # noqa: PLC0415 - the model's client: the agent extra
    except ModuleNotFoundError as exc:
        raise ActionError(missing_extra(exc, "agent", "a model")) from None

    key = SecretStr(inputs.openai_api_key) if inputs.openai_api_key else None
    return AgentFactory(ModelSettings(model=inputs.model, openai_base_url=inputs.openai_base_url, openai_api_key=key))
